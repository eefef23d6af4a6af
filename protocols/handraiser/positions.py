"""The sides' positions a study prepares once per question: the most confusing wrong answer and explanations.

What it does: the paper had a large model write, for each question, an
explanation of the correct answer, and pick the most confusing wrong answer
with an explanation of it; the sides argue those. ``confusing_form`` asks a
model for the most tempting wrong option (``{"option": ...}``, constrained to
the wrong labels where the backend can; fallback: the first wrong option,
noted) and ``explanation_form`` for a short case for an answer (plain text;
fallback: no explanation, the side then argues from the question alone).
``Positions`` holds the result; ``sides_for`` turns it into a debate's parameters
(the answers each side argues) and the agents' private briefs; who argues
the correct answer is drawn once per question from the study's seed, as the
paper assigns them at random, so every policy debates the same positions.

What it does not do: call a backend or store anything (``protocols.handraiser.study.positions``
does, in the store's pool table, reused across runs).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from debate_core.backends.base import Message
from debate_core.config import Question
from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from debate_core.kernel.replies import load_object
from protocols.handraiser.forms import text_form
from protocols.handraiser.prompting import template
from protocols.handraiser.sides import position


@dataclass(frozen=True, slots=True)
class PositionView:
    question: Question
    answer: str

    def wrong(self) -> tuple[str, ...]:
        return tuple(label for label in self.question.labels if label != self.answer)


@dataclass(frozen=True, slots=True)
class Positions:
    """The answers the sides argue and each one's explanation."""

    correct: str
    wrong: str
    correct_explanation: str = ""
    wrong_explanation: str = ""

    def params(self, pro_correct: bool) -> dict[str, Any]:
        pro, con = (self.correct, self.wrong) if pro_correct else (self.wrong, self.correct)
        return {"pro_answer": pro, "con_answer": con}

    def briefs(self, pro_correct: bool) -> tuple[str, str]:
        """Pro's and Con's private notes: the explanation of the answer each argues."""
        mine = (self.correct_explanation, self.wrong_explanation)
        return mine if pro_correct else (mine[1], mine[0])


def _messages(name: str, view: PositionView) -> tuple[Message, ...]:
    values = {"question": view.question.render(), "position": position(view.question, view.answer)}
    return (Message("user", template(name).substitute(values)),)


def confusing_form() -> Form[PositionView, str]:
    def parse(raw: str, view: PositionView) -> tuple[str, str | None]:
        text = raw.strip()
        value: Any = text
        if text.startswith("{"):
            value = load_object(text)[0].get("option")
        label = str(value or "").strip().strip(".)").upper()[:2]
        if label not in view.wrong():
            raise FormInvalid(f"expected one of the wrong options {', '.join(view.wrong())}, got {str(value)[:20]!r}")
        return label, None

    return Form(
        kind="confusing",
        description="the most tempting wrong option",
        render=lambda view: _messages("confusing", view),
        parse=parse,
        fallback=lambda view: view.wrong()[0],
        fields=lambda view: (FieldSpec("option", "choice", "The most tempting wrong option", choices=view.wrong()),),
        from_human=lambda values, view: str(values["option"]),
        schema=lambda view: {
            "type": "object",
            "properties": {"option": {"type": "string", "enum": list(view.wrong())}},
            "required": ["option"],
            "additionalProperties": False,
        },
        token_cap=lambda config: min(config.max_new_tokens, 16),
        template="confusing",
    )


def explanation_form(cap: int = 160) -> Form[PositionView, str]:
    return text_form(
        "explain",
        "the case for an answer",
        lambda view: _messages("explain", view),
        noun="explanation",
        label="The case for this answer",
        cap=cap,
        max_chars=2_000,
    )


def pro_is_correct(seed: int, question_key: str) -> bool:
    """Whether Pro argues the correct answer in this question's debates (drawn once per question)."""
    return random.Random(f"{seed}/{question_key}/sides").random() < 0.5


def sides_for(positions: Positions, seed: int, question_key: str) -> tuple[dict[str, Any], tuple[str, str]]:
    """The debate's side parameters and Pro's and Con's briefs."""
    pro_correct = pro_is_correct(seed, question_key)
    return positions.params(pro_correct), positions.briefs(pro_correct)
