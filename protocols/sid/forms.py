"""SID's request kinds: an answer (measured or not), a revision, and the attention probe.

What it does: builds the ``Form`` kinds the debate asks:

* ``answer`` (round 1) and ``revise`` / ``revise_kept`` (later rounds, with
  the others' answers whole, or what was kept of them): plain prose ending
  with its answer in the view's format (``formats``: "The answer is (B).",
  ``\\boxed{...}`` for MATH, ...; no JSON schema: SID measures the model's own
  token statistics, and forced structure tokens would distort them), read
  by ``formats.read``. Fallbacks: a reply naming no
  answer is kept and published with the previous answer (noted); an empty
  reply keeps the previous one (round 1: none). In the gated variants every
  answer asks for token statistics (``measured``).
* ``revise_summary`` (the ``summary`` variant): a revision reading a summary
  of the others' answers, and ``summarize``: the request for that summary,
  asked of the recipient's own model with the others' answers alone (no
  system prompt, the question left out: the authors' code asks its model
  to "summarize the following text"; the wording here is this project's),
  its text the summary, never asked of a person.
* ``focus``: the attention probe, a prefill-only request whose completion
  carries the others' answers' tokens scored by their attention to the focus
  instruction; it has no text to read and is never asked of a person.

A person answers with their reasoning and their answer.

What it does not do: decide who is asked when (``loop``) or word prompts (``prompts/``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from debate_core.backends.base import Message, Signals
from debate_core.kernel.answers import MAX_FREE_ANSWER, normalize_answer
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from protocols.sid.formats import read
from protocols.sid.prompting import attention_query, fields, render, template
from protocols.sid.views import Reply, SidView

MAX_ANSWER_CHARS = 6_000


def read_answer(text: str, view: SidView) -> str | None:
    """The answer ``text`` names in the view's format (``formats.read``), or None."""
    return read(text, view.answer_format, view.question)


def _parse(raw: str, view: SidView) -> tuple[Reply, str | None]:
    text = raw.strip()
    if not any(ch.isalnum() for ch in text):
        raise FormInvalid("an empty answer")
    answer = read_answer(text, view)
    if answer is None:
        return Reply(text, view.current_answer), "no answer line naming an answer: the answer stays as it was"
    return Reply(text, answer), None


def _fields(view: SidView) -> tuple[FieldSpec, ...]:
    reasoning = FieldSpec("text", "text", "Your reasoning", max_chars=MAX_ANSWER_CHARS, words=True, noun="reasoning")
    if view.question.labels:
        answer = FieldSpec("answer", "choice", "Your answer", choices=view.question.labels, noun="answer")
    else:
        answer = FieldSpec("answer", "text", "Your answer", max_chars=MAX_FREE_ANSWER, words=True, noun="answer")
    return (reasoning, answer)


def _from_human(values: Mapping[str, Any], view: SidView) -> Reply:
    answer = normalize_answer(values.get("answer"), view.question)
    if view.question.labels:
        shown = f"({answer})"
    else:
        shown = f"\\boxed{{{answer}}}" if view.answer_format.reader == "boxed" else str(answer)
    return Reply(f"{values['text']}\nThe answer is {shown}.", answer)


def reply_form(kind: str, description: str, template: str, cap: int, *, measured: bool) -> Form[SidView, Reply]:
    """An answer in prose with its answer line (see the module docstring)."""
    return Form(
        kind=kind,
        description=description,
        render=lambda view: render(template, view),
        parse=_parse,
        fallback=lambda view: Reply(view.own, view.current_answer),
        fields=_fields,
        from_human=_from_human,
        human_raw=lambda reply: reply.text,
        describe=lambda view: f"Write {description} and your reasoning; choose the answer below",
        signals=Signals(token_stats=True) if measured else Signals(),
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template,
    )


def focus_form(layer: int, all_layers: bool = False) -> Form[SidView, None]:
    """The prefill-only attention probe (its scores are on the completion)."""
    return Form(
        kind="focus",
        description="the attention probe of the others' answers",
        render=lambda view: render("focus", view),
        parse=lambda raw, view: (None, None),
        fallback=lambda view: None,
        fields=lambda view: (),
        from_human=lambda values, view: None,
        signals=Signals(attention=attention_query(layer, all_layers)),
        token_cap=lambda config: 1,
        cacheable=False,
        template="focus",
    )


def summarize_form(cap: int) -> Form[SidView, str]:
    """The request for a summary of the others' answers (the ``summary`` variant): its text is the summary."""

    def parse(raw: str, view: SidView) -> tuple[str, str | None]:
        if not any(ch.isalnum() for ch in raw):
            raise FormInvalid("an empty summary")
        return raw.strip(), None

    return Form(
        kind="summarize",
        description="a summary of the others' answers",
        render=lambda view: (Message("user", template("summarize").substitute(fields(view))),),
        parse=parse,
        fallback=lambda view: "",
        fields=lambda view: (),
        from_human=lambda values, view: "",
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template="summarize",
    )


@dataclass(frozen=True)
class SidForms:
    answer: Form[SidView, Reply]
    revise: Form[SidView, Reply]
    revise_kept: Form[SidView, Reply]
    revise_summary: Form[SidView, Reply]
    summarize: Form[SidView, str]
    focus: Form[SidView, None]

    def by_kind(self) -> dict[str, Form[SidView, Any]]:
        kinds = (self.answer, self.revise, self.revise_kept, self.revise_summary, self.summarize, self.focus)
        return {f.kind: f for f in kinds}


def sid_forms(cap: int, layer: int, *, measured: bool, all_layers: bool = False) -> SidForms:
    return SidForms(
        answer=reply_form("answer", "your answer", "answer", cap, measured=measured),
        revise=reply_form("revise", "your updated answer", "revise", cap, measured=measured),
        revise_kept=reply_form("revise_kept", "your updated answer", "revise_kept", cap, measured=measured),
        revise_summary=reply_form("revise_summary", "your updated answer", "revise_summary", cap, measured=measured),
        summarize=summarize_form(cap),
        focus=focus_form(layer, all_layers),
    )
