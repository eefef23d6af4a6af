"""What one agent may see at one moment: the debate information of Table I.

What it does: ``AgentView`` bundles exactly what an agent (model or human) is
given when asked for a plan, an utterance or an initial answer: the question,
``token_budget`` and ``tokens_left``, everyone's initial answers, the turn log
up to the previous turn, the agent's own previous thoughts, this turn's event,
and the actions allowed now. The prompt builder renders it for models; a human
seat hands the same object to the UI.

What it does not do: hold anything undisclosed. Views are built from disclosed
units only, so no seat can ever see a queued or discarded sentence.
"""

from __future__ import annotations

from dataclasses import dataclass

from debate_core.config import Question
from debate_core.events.records import Action, ActionPlan
from debate_core.kernel.history import HistoryLine


@dataclass(frozen=True, slots=True)
class InitialAnswerView:
    agent: str
    answer: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class AgentView:
    """The debate as one agent sees it when asked to act."""

    agent: str
    persona: str
    members: tuple[str, ...]
    question: Question
    turn: int
    token_budget: int
    tokens_left: int
    initial_answers: tuple[InitialAnswerView, ...]
    turn_log: tuple[HistoryLine, ...]
    previous_thoughts: tuple[tuple[int, str], ...]
    last_event: HistoryLine
    allowed: tuple[Action, ...]
    floor_holder: str | None
    current_answer: str | None


@dataclass(frozen=True, slots=True)
class UtteranceView:
    """What a speaker is given when it takes the floor.

    ``history`` includes this turn's event; ``plan`` is the speaker's latest
    plan; ``interrupting`` names the agent it just cut off, and
    ``interrupted_text`` what that agent had disclosed of its utterance.
    """

    base: AgentView
    history: tuple[HistoryLine, ...]
    plan: ActionPlan
    interrupting: str | None
    interrupted_text: str
