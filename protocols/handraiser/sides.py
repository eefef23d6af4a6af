"""Which answer each side argues: given, or assigned as the paper does.

What it does: ``assign_sides(config, params)`` returns ``Sides``: the answers
Pro and Con argue and which of them is correct. Given answers
(``pro_answer``/``con_answer``, what a study takes from its stored positions)
are used as they are. Otherwise the correct answer and one wrong option are
assigned to the sides: the wrong option is drawn from the others with the
debate's seed, and so is the side that gets the correct answer unless
``correct_side`` fixes it. ``position`` writes an answer as the prompts show it
("B) Nitrogen"); ``answer_of`` turns a vote into the answer it picks.

What it does not do: write explanations (a study's positions pool does, with
the model) or decide anything during the debate.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from debate_core.config import DebateConfig, Question
from debate_core.errors import ConfigError
from protocols.handraiser.params import HandRaiserParams


@dataclass(frozen=True, slots=True)
class Sides:
    """The answers Pro and Con argue, and the correct one when known."""

    pro: str
    con: str
    correct: str | None

    def answer_of(self, vote: str) -> str | None:
        return {"pro": self.pro, "con": self.con}.get(vote)

    def of(self, side: str) -> str:
        return self.pro if side == "pro" else self.con


def position(question: Question, answer: str) -> str:
    """An answer as the prompts show it: the option label with its text, or the free-form answer."""
    if answer in question.labels:
        return f"{answer}) {question.options[question.labels.index(answer)].rstrip('.')}"
    return answer


def assign_sides(config: DebateConfig, params: HandRaiserParams) -> Sides:
    """The sides' answers (see the module docstring); raises ``ConfigError`` when none can be assigned."""
    question = config.question
    if params.pro_answer is not None and params.con_answer is not None:
        return Sides(_label(question, params.pro_answer), _label(question, params.con_answer), question.answer)
    labels = question.labels
    if question.answer is None or len(labels) < 2:
        raise ConfigError(
            "HandRaiser assigns the correct answer and a wrong option to Pro and Con; this question has "
            "no known answer or fewer than two options: give pro_answer and con_answer"
        )
    rng = random.Random(f"{config.seed}/handraiser/sides")
    wrong = rng.choice([label for label in labels if label != question.answer])
    pro_correct = rng.random() < 0.5 if params.correct_side == "random" else params.correct_side == "pro"
    return Sides(question.answer if pro_correct else wrong, wrong if pro_correct else question.answer, question.answer)


def _label(question: Question, answer: str) -> str:
    text = answer.strip()
    upper = text.upper()
    return upper if upper in question.labels else text
