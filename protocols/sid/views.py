"""What a SID agent is shown when it answers, revises, or is probed for attention.

What it does: ``SidView`` bundles one request's view: the question, the
agent's own previous answer, the other agents' previous answers (by name),
or, once compressed, the text kept of them (``kept``), the limits the
prompt states and the answer format its prompts and reader follow
(``formats``: the question's data set's, or the single rule). The prompts and a person's form read the same object.

What it does not do: hold anything not yet said: every answer in a view
was published in an earlier round.
"""

from __future__ import annotations

from dataclasses import dataclass

from debate_core.config import Question
from protocols.sid.formats import ONE, AnswerFormat


@dataclass(frozen=True, slots=True)
class Reply:
    """An agent's answer: its text (reasoning and answer line) and the answer it names."""

    text: str
    answer: str | None


@dataclass(frozen=True, slots=True)
class SidView:
    agent: str
    question: Question
    persona: str = ""
    brief: str = ""
    round: int = 1
    max_rounds: int = 2
    own: str = ""
    others: tuple[tuple[str, str], ...] = ()
    kept: str | None = None
    current_answer: str | None = None
    answer_format: AnswerFormat = ONE
