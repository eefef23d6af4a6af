"""HandRaiser's request kinds: a side's statement, the moderator's check, vote and verdict.

What it does: builds the ``Form`` kinds the debate asks:

* ``statement`` (Pro or Con): plain prose, capped at ``statement_tokens``;
  fallback for an empty or unusable reply: nothing said (the floor passes);
* ``listen`` (the moderator, after each chunk but the last): one token,
  ``Yes`` or ``No`` (``kernel.policies.decision_form``, asking for the choice
  probabilities so that the ``threshold`` policy can read P("Yes") at the
  first generated position); fallback: no interruption. A live person's
  "Interrupt" button answers it at the next chunk (``from_stance``);
* ``vote`` (the moderator at the end of a round): ``{"vote": "pro" | "con" |
  "wait"}``, constrained by a JSON schema where the backend supports it; a
  reply that is not JSON is read by its first word, or by naming exactly one
  side's answer; fallback: wait;
* ``verdict`` (after cutting Con off, and only then): the same without
  ``wait``; fallback: no pick (the debate ends without a vote, which scores as
  a failure, as the paper's reward does).

What it does not do: decide when each is asked (``loop``) or word prompts
(``prompts/``).
"""

from __future__ import annotations

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


def _statement(cap: int) -> Form[HandView, str]:
    return text_form(
        "statement",
        "a side's statement to the moderator",
        lambda view: render("statement", view),
        noun="statement",
        label="Your statement",
        cap=cap,
        describe=lambda view: f"Your statement for {view.position}",
    )


def parse_vote(raw: str, view: HandView, options: tuple[str, ...]) -> str:
    """``pro``, ``con`` or ``wait`` from a JSON object, a first word, or the one side's answer named."""
    text = raw.strip()
    if text.startswith("{"):
        data, _ = load_object(text)
        value = data.get("vote")
        if isinstance(value, str) and value.strip().casefold() in options:
            return value.strip().casefold()
        raise FormInvalid(f"the vote must be one of {', '.join(options)}, got {str(value)[:40]!r}")
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


def _names(text: str, position: str) -> bool:
    label = position.split(")", 1)[0].strip()
    return bool(label) and re.search(rf"(?<![A-Za-z]){re.escape(label)}(?![A-Za-z])", text) is not None


def _vote(kind: str, template: str, options: tuple[str, ...], fallback: str, cap: int) -> Form[HandView, str]:
    def schema(view: HandView) -> Mapping[str, Any]:
        return {
            "type": "object",
            "properties": {"vote": {"type": "string", "enum": list(options)}},
            "required": ["vote"],
            "additionalProperties": False,
        }

    return Form(
        kind=kind,
        description="the moderator's vote" + (", or wait" if "wait" in options else ""),
        render=lambda view: render(template, view),
        parse=lambda raw, view: (parse_vote(raw, view, options), None),
        fallback=lambda view: fallback,
        fields=lambda view: (FieldSpec("vote", "choice", "Your vote", choices=options, noun="vote"),),
        from_human=lambda values, view: str(values["vote"]),
        human_raw=str,
        describe=lambda view: f"Pro: {view.pro_position}; Con: {view.con_position}",
        schema=schema,
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template=template,
    )


@dataclass(frozen=True)
class HandRaiserForms:
    statement: Form[HandView, str]
    listen: Form[HandView, Decision]
    vote: Form[HandView, str]
    verdict: Form[HandView, str]

    def by_kind(self) -> dict[str, Form[Any, Any]]:
        return {form.kind: form for form in vars(self).values()}


def handraiser_forms(params: HandRaiserParams) -> HandRaiserForms:
    """Every request kind of the debate, with the token caps of ``params``."""
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
        vote=_vote("vote", "vote", ("pro", "con", "wait"), "wait", params.vote_tokens),
        verdict=_vote("verdict", "verdict", SIDES, "", params.vote_tokens),
    )
