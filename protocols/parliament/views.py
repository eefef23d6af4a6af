"""What a Parliament role is shown when it is asked to act.

What it does: ``RoleView`` bundles what one request gives one role: the
question (and its context, for the prover, or for the critic when the
parameters say so), the role's and the other role's titles, the persona and
private brief, the limits the prompt states, and the pieces of the debate the
request is about: the speech so far or the chunk under check, the point or
question put to the speaker and the reply, the rebuttal, the public
transcript so far. Unused pieces stay empty. The prompt templates and a
person's form read the same object.

What it does not do: hold anything undisclosed. A view is built from what
has been said in public (plus the prover's own prepared speech when it is
asked to continue it).
"""

from __future__ import annotations

from dataclasses import dataclass

from debate_core.config import Question


@dataclass(frozen=True, slots=True)
class RoleView:
    """One role's view of the debate at one request (see the module docstring)."""

    agent: str
    role: str
    title: str
    other: str
    question: Question
    persona: str = ""
    brief: str = ""
    context: str = ""
    sentences: tuple[int, int] = (4, 7)
    speech: str = ""
    chunk: str = ""
    point: str = ""
    reply: str = ""
    rebuttal: str = ""
    transcript: tuple[str, ...] = ()
    round: int = 1
    last_round: bool = True
    current_answer: str | None = None
    token_cap: int = 1024  # the debate's cap on new tokens: a constrained speech must close its JSON within it
