"""Parliament's catalogue of request kinds: every form the four variants ask, built from ``forms``.

What it does: ``parliament_forms(params)`` returns a ``ParliamentForms`` with
each request kind of the protocol (see ``forms`` for what each reads and its
fallback), its token caps taken from ``params``; ``by_kind()`` lists them for
``python -m debate_core protocols``.

What it does not do: parse or render anything itself (``forms``,
``prompting``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from debate_core.backends.base import Message
from debate_core.kernel.forms import Form
from debate_core.kernel.policies import Decision, decision_form, decision_schema
from protocols.parliament.forms import (
    Speech,
    SpeechKind,
    continuation_form,
    final_form,
    point_chars,
    short_form,
    speech_form,
    streamed_form,
    template_for,
)
from protocols.parliament.params import ParliamentParams
from protocols.parliament.prompting import render
from protocols.parliament.views import RoleView


def _check_messages(template: str) -> Callable[[RoleView], tuple[Message, ...]]:
    def messages(view: RoleView) -> tuple[Message, ...]:
        shown = "What they have said so far" if view.speech else "The passage just spoken"
        return render(template, view, shown=shown, chunk=view.speech or view.chunk)

    return messages


def _check(kind: str, question: str, cap: int, shown: str, json: bool) -> Form[RoleView, Decision]:
    """The critic's private yes/no with one sentence (a point or a question), template ``prompts/<kind>.txt``
    (``INTERRUPT: ...`` or ``NO``), or with ``json`` ``prompts/<kind>_json.txt`` under its schema."""
    template = template_for(kind, json)
    return decision_form(
        kind,
        question,
        _check_messages(template),
        with_text=True,
        text_tokens=cap,
        template=template,
        schema=decision_schema(True, point_chars(cap)) if json else None,
        describe=lambda view: shown,
    )


@dataclass(frozen=True)
class ParliamentForms:
    opening: Form[RoleView, Speech]
    closing: Form[RoleView, Speech]
    critique: Form[RoleView, Speech]
    prover_rebuttal: Form[RoleView, Speech]
    student_answer: Form[RoleView, Speech]
    student_revision: Form[RoleView, Speech]
    cot: Form[RoleView, Speech]
    poi_reply: Form[RoleView, Speech]
    socratic_question: Form[RoleView, Speech]
    streamed_opening: Form[RoleView, str]
    streamed_answer: Form[RoleView, str]
    resume: Form[RoleView, str]
    revise_rest: Form[RoleView, str]
    final: Form[RoleView, Speech]
    poi_check: Form[RoleView, Decision]
    question_check: Form[RoleView, Decision]

    def by_kind(self) -> dict[str, Form[Any, Any]]:
        return {form.kind: form for form in vars(self).values()}


def parliament_forms(params: ParliamentParams) -> ParliamentForms:
    """Every request kind of the four variants, with the token caps of ``params``."""
    speech, reply = params.speech_tokens, params.reply_tokens
    json = params.reply_format == "json"

    def task(first: str, later: str) -> Callable[[RoleView], Mapping[str, str]]:
        return lambda view: {"task": first if view.round == 1 else later}

    return ParliamentForms(
        opening=speech_form(SpeechKind("opening", "the opening speech", "opening"), speech, json),
        closing=speech_form(
            SpeechKind("closing", "the closing rebuttal", "closing", "Opposition Proposed Answer", same=True),
            speech,
            json,
        ),
        critique=speech_form(
            SpeechKind(
                "critique",
                "a critique of the other side's case",
                "critique",
                "Opposition Proposed Answer",
                same=True,
                verdict=True,
                extra=task("Critique the case as a whole.", "Rebut the latest reply."),
            ),
            speech,
            json,
        ),
        prover_rebuttal=speech_form(
            SpeechKind("prover_rebuttal", "a rebuttal of the critique", "prover_rebuttal"), speech, json
        ),
        student_answer=speech_form(
            SpeechKind(
                "student_answer",
                "an answer with its reasoning",
                "student_answer",
                "Provisional Answer",
                extra=lambda view: {"task": "Answer the question and show your reasoning."},
            ),
            speech,
            json,
        ),
        student_revision=speech_form(
            SpeechKind(
                "student_revision",
                "a revised answer after the question",
                "student_answer",
                "Provisional Answer",
                extra=lambda view: {
                    "task": "Socrates asked you: "
                    + repr(view.point)
                    + ". Revise your answer if the question shows a mistake, or keep it and say why."
                },
            ),
            speech,
            json,
        ),
        cot=speech_form(SpeechKind("cot", "reasoning and an answer", "cot", "Final Answer"), speech, json),
        poi_reply=short_form(
            "poi_reply", "a public reply to a point of information", "poi_reply", "reply", "Your reply", reply, json
        ),
        socratic_question=short_form(
            "socratic_question", "one probing question", "socratic_question", "question", "Your question", reply, json
        ),
        streamed_opening=streamed_form(
            SpeechKind("streamed_opening", "the opening speech, said as it is written", "opening_streamed"), speech
        ),
        streamed_answer=streamed_form(
            SpeechKind(
                "streamed_answer",
                "an answer with its reasoning, said as it is written",
                "student_answer_streamed",
                "Provisional Answer",
                extra=lambda view: {"task": "Answer the question and show your reasoning."},
            ),
            speech,
        ),
        resume=continuation_form(
            "resume", "the rest of the speech, after the point", "resume", "Proposed Answer", speech
        ),
        revise_rest=continuation_form(
            "revise_rest", "the rest of the answer, after the question", "revise_rest", "Provisional Answer", speech
        ),
        final=final_form(json),
        poi_check=_check(
            "poi_check",
            "raise a point of information now?",
            reply,
            "Point of information: press it and say the error in one sentence",
            json,
        ),
        question_check=_check(
            "question_check",
            "ask a question now?",
            reply,
            "Ask the student one short question while they speak",
            json,
        ),
    )
