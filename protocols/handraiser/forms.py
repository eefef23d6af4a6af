"""HandRaiser's request kinds: a side's statement, the moderator's check, vote and verdict.

What it does: builds the ``Form`` kinds the debate asks:

* ``statement`` (Pro or Con): plain prose, capped at ``statement_tokens``;
  fallback for an empty or unusable reply: nothing said (the floor passes);
* ``listen`` (the moderator, after each chunk but the last): one token,
  ``Yes`` or ``No`` (``kernel.policies.decision_form``, asking for the choice
  probabilities so that the ``threshold`` policy can read P("Yes") at the
  first generated position); fallback: no interruption. A live person's
  "Interrupt" button answers it at the next chunk (``from_stance``);
* ``vote`` (the moderator at the end of a round): a ``Ballot``. With
  ``questions`` (the paper's default) and another round to come it is
  ``{"vote": "pro" | "con" | "wait", "question": "..."}``: waiting, the
  moderator asks both sides a clarifying question (``vote_question``
  template; a person gets a question box beside the vote); a wait without a
  readable question is a mistake, recorded, and the fallback is a wait with
  no question. Otherwise (``questions=false``, or the last round, after which
  no statement could answer) it is ``{"vote": "pro" | "con" | "wait"}``.
  Constrained by a JSON schema where the backend supports it; a reply that
  is not JSON is read by its first word, or by naming exactly one side's
  answer, its question being its sentences that end in "?" (a question with
  no vote readable is a wait); fallback: wait, with no question;
* ``verdict`` (after cutting Con off, and only then): the same without
  ``wait`` or a question; fallback: no pick (the debate ends without a vote,
  which scores as a failure, as the paper's reward does).

What it does not do: decide when each is asked (``loop``) or word prompts
(``prompts/``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from debate_core.backends.base import Message
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from debate_core.kernel.policies import Decision, decision_form
from debate_core.kernel.replies import load_object
from protocols.handraiser.params import HandRaiserParams
from protocols.handraiser.prompting import render
from protocols.handraiser.views import HandView

V = TypeVar("V")
SIDES = ("pro", "con")
MAX_STATEMENT_CHARS = 4_000
MAX_QUESTION_CHARS = 600


def text_form(
    kind: str,
    description: str,
    render: Callable[[V], tuple[Message, ...]],
    *,
    noun: str,
    label: str,
    cap: int,
    max_chars: int = MAX_STATEMENT_CHARS,
    describe: Callable[[V], str] = lambda view: "",
) -> Form[V, str]:
    """Plain prose, whitespace collapsed, capped at ``cap`` tokens; fallback: nothing (empty text)."""

    def parse(raw: str, view: V) -> tuple[str, str | None]:
        text = " ".join(raw.split())
        if not any(ch.isalnum() for ch in text):
            raise FormInvalid(f"an empty {noun}")
        return text, None

    return Form(
        kind=kind,
        description=description,
        render=render,
        parse=parse,
        fallback=lambda view: "",
        fields=lambda view: (FieldSpec("text", "text", label, max_chars=max_chars, words=True, noun=noun),),
        from_human=lambda values, view: str(values["text"]),
        human_raw=str,
        describe=describe,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=kind,
    )


def _statement_description(view: HandView) -> str:
    asked = f'. The moderator asked you both: "{view.asked}" Answer it first.' if view.asked else ""
    return f"Your statement for {view.position}{asked}"


def _statement(cap: int) -> Form[HandView, str]:
    return text_form(
        "statement",
        "a side's statement to the moderator",
        lambda view: render("statement", view),
        noun="statement",
        label="Your statement",
        cap=cap,
        describe=_statement_description,
    )


def parse_vote(raw: str, view: HandView, options: tuple[str, ...]) -> str:
    """``pro``, ``con`` or ``wait`` from a JSON object, a first word, or the one side's answer named."""
    text = raw.strip()
    if text.startswith("{"):
        data, _ = load_object(text)
        return _vote_value(data.get("vote"), options)
    words = re.findall(r"[A-Za-z]+", text)
    if words and words[0].casefold() in options:
        return words[0].casefold()
    named = [
        side
        for side, position in zip(SIDES, (view.pro_position, view.con_position), strict=True)
        if _names(text, position)
    ]
    if len(named) == 1:
        return named[0]
    raise FormInvalid(f"expected a vote ({', '.join(options)}), got {text[:40]!r}")


def _vote_value(value: Any, options: tuple[str, ...]) -> str:
    if isinstance(value, str) and value.strip().casefold() in options:
        return value.strip().casefold()
    raise FormInvalid(f"the vote must be one of {', '.join(options)}, got {str(value)[:40]!r}")


def _names(text: str, position: str) -> bool:
    label = position.split(")", 1)[0].strip()
    return bool(label) and re.search(rf"(?<![A-Za-z]){re.escape(label)}(?![A-Za-z])", text) is not None


@dataclass(frozen=True)
class Ballot:
    """The moderator's end-of-round choice (``pro``, ``con``, ``wait``; ``""``: no pick) and its question."""

    vote: str
    question: str = ""

    def raw(self) -> str:
        """A person's ballot as the record keeps its raw reply: the vote, or the reply's JSON with a question."""
        return json.dumps({"vote": self.vote, "question": self.question}) if self.question else self.vote


def _question_of(text: str) -> tuple[str, str]:
    """The text without its question, and the question: from the sentence of its first "?" to its last."""
    first = text.find("?")
    if first < 0:
        return text, ""
    start = max(text.rfind(mark, 0, first) for mark in ".!\n") + 1
    end = text.rfind("?") + 1
    return f"{text[:start]} {text[end:]}".strip(), _clean_question(text[start:end])


def _clean_question(text: str) -> str:
    said = " ".join(text.split())[:MAX_QUESTION_CHARS]
    return said if any(ch.isalnum() for ch in said) else ""


def parse_ballot(raw: str, view: HandView, options: tuple[str, ...]) -> Ballot:
    """A vote and, waiting, the question asked; ``FormInvalid`` for no vote, or a wait with no question."""
    text = raw.strip()
    if text.startswith("{"):
        data, _ = load_object(text)
        asked = data.get("question")
        question = _clean_question(asked) if isinstance(asked, str) else ""
        vote = _vote_value(data.get("vote"), options)
    else:
        rest, question = _question_of(text)
        try:
            vote = parse_vote(rest, view, options)
        except FormInvalid:
            if not question:
                raise
            vote = "wait"  # a question with no vote: the moderator wants to hear more
    if vote != "wait":
        return Ballot(vote)  # a vote ends the debate: nobody would answer a question
    if not question:
        raise FormInvalid("waited without asking the debaters a question")
    return Ballot(vote, question)


def _ballot(
    kind: str, template: str, options: tuple[str, ...], fallback: str, cap: int, *, questions: bool = False
) -> Form[HandView, Ballot]:
    def asks(view: HandView) -> bool:
        """Whether the moderator asks a question if it waits: with questions on, when another round follows."""
        return questions and "wait" in options and view.round < view.max_rounds

    def schema(view: HandView) -> Mapping[str, Any]:
        properties: dict[str, Any] = {"vote": {"type": "string", "enum": list(options)}}
        if asks(view):
            properties["question"] = {"type": "string", "maxLength": MAX_QUESTION_CHARS}
        return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}

    def parse(raw: str, view: HandView) -> tuple[Ballot, str | None]:
        return (parse_ballot(raw, view, options) if asks(view) else Ballot(parse_vote(raw, view, options))), None

    def fields(view: HandView) -> tuple[FieldSpec, ...]:
        vote = FieldSpec("vote", "choice", "Your vote", choices=options, noun="vote")
        if not asks(view):
            return (vote,)
        label = "Your question to both sides, if you wait (they answer it next round)"
        return vote, FieldSpec("question", "text", label, max_chars=MAX_QUESTION_CHARS, required=False, noun="question")

    def from_human(values: Mapping[str, Any], view: HandView) -> Ballot:
        vote = str(values["vote"])
        asked = values.get("question")
        return Ballot(vote, _clean_question(asked) if vote == "wait" and isinstance(asked, str) else "")

    def describe(view: HandView) -> str:
        sides = f"Pro: {view.pro_position}; Con: {view.con_position}"
        return sides + (". If you wait, you may ask both sides a clarifying question." if asks(view) else "")

    waiting = ", or wait" + (" and ask a question" if questions else "") if "wait" in options else ""
    return Form(
        kind=kind,
        description="the moderator's vote" + waiting,
        render=lambda view: render("vote_question" if asks(view) else template, view),
        parse=parse,
        fallback=lambda view: Ballot(fallback),
        fields=fields,
        from_human=from_human,
        human_raw=Ballot.raw,
        describe=describe,
        schema=schema,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template,
    )


@dataclass(frozen=True)
class HandRaiserForms:
    statement: Form[HandView, str]
    listen: Form[HandView, Decision]
    vote: Form[HandView, Ballot]
    verdict: Form[HandView, Ballot]

    def by_kind(self) -> dict[str, Form[Any, Any]]:
        return {form.kind: form for form in vars(self).values()}


def handraiser_forms(params: HandRaiserParams) -> HandRaiserForms:
    """Every request kind of the debate, with the token caps of ``params``."""
    asking = params.question_tokens if params.questions else 0
    return HandRaiserForms(
        statement=_statement(params.statement_tokens),
        listen=decision_form(
            "listen",
            "cut the speaker off now?",
            lambda view: render("listen", view),
            probabilities=True,
            template="listen",
            describe=lambda view: f"Interrupt {view.speaker} now",
        ),
        vote=_ballot(
            "vote", "vote", ("pro", "con", "wait"), "wait", params.vote_tokens + asking, questions=params.questions
        ),
        verdict=_ballot("verdict", "verdict", SIDES, "", params.vote_tokens),
    )
