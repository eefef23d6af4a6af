"""What the solver (or a debater) is shown when it is asked to act.

What it does: ``SolverView`` bundles what one request gives a seat: the question (and its
context), its persona and private brief, the sentence limit the prompt states, and the pieces of
the method the request is about: which sample it is (Self-Consistency), the step-back principles
(Step-Back), the perspective it solves from, the solutions it contrasts and the checklist it
reconciles them by (Self-Contrast); in a debate, the round, the agent's own last answer and the
others' (parallel debate), the debate's record, its rounds and each side's answer (TAR), the
debater's way of reasoning (DMAD). Unused pieces stay empty. The prompt templates and a
person's form read the same object (the judge's form labels each side with its answer:
``affirmative_position``, ``negative_position``).

What it does not do: hold anything the solver has not written or been given.
"""

from __future__ import annotations

from dataclasses import dataclass

from debate_core.config import Question


@dataclass(frozen=True, slots=True)
class SolverView:
    """The solver's view of its own work at one request (see the module docstring)."""

    agent: str
    question: Question
    persona: str = ""
    brief: str = ""
    context: str = ""
    sentences: int = 8
    sample: int = 1
    samples: int = 1
    principles: str = ""
    perspective: str = ""
    count: int = 0
    solutions: tuple[str, ...] = ()
    checklist: str = ""
    round: int = 1
    own: str = ""
    others: tuple[str, ...] = ()
    record: tuple[str, ...] = ()
    rounds: int = 1
    sides: tuple[str | None, str | None] = (None, None)
    method: str = "cot"
    current_answer: str | None = None

    @property
    def affirmative_position(self) -> str:
        """TAR's affirmative side's answer as the judge sees it ("" before it names one): the seat form's label."""
        return self.sides[0] or ""

    @property
    def negative_position(self) -> str:
        """TAR's negative side's answer as the judge sees it ("" before it names one)."""
        return self.sides[1] or ""
