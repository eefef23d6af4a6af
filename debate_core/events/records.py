"""The small records events are made of: sources, costs, answers, plans, votes, statistics.

What it does: defines the frozen pydantic models and enums that several events
share (``Source``, ``GenerationInfo``, ``AgentAnswer``, ``Vote``,
``DebateStats``, ``EndReason``, the action plan of Table II of Kimura et al.
with its ``Action``), so that events, protocols and consumers agree on one
shape for each.

What it does not do: validate model output (protocols do, with their request
kinds) or decide anything.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """Base of every event and record: frozen, and no field beyond those declared."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(StrEnum):
    """Where a plan, answer, decision or utterance came from."""

    MODEL = "model"
    HUMAN = "human"
    SUPPLIED = "supplied"
    POLICY = "policy"


class EndReason(StrEnum):
    """Why a debate ended."""

    BUDGET = "budget"
    SILENCE = "silence"
    MAX_TURNS = "max_turns"
    ROUNDS = "rounds"
    PHASES_DONE = "phases_done"
    VERDICT = "verdict"
    OBSERVER_STOP = "observer_stop"
    EARLY_EXIT = "early_exit"
    CONSENSUS = "consensus"
    STOPPED = "stopped"
    ERROR = "error"


class Action(StrEnum):
    """What an agent wants to do next turn (Table II of Kimura et al.)."""

    LISTEN = "listen"
    SPEAK = "speak"
    INTERRUPT = "interrupt"


class ActionPlan(Record):
    """One agent's plan for the next turn, exactly the fields of Table II."""

    thought: str
    action: Action
    urgency: int
    purpose: str
    answer: str | None

    @property
    def wants_floor(self) -> bool:
        return self.action in (Action.SPEAK, Action.INTERRUPT)


class PromptMessage(Record):
    """A chat message as recorded when ``record_prompts`` is on."""

    role: str
    content: str


class GenerationInfo(Record):
    """Cost of one model call: token counts and seconds (0 for humans and policies)."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    prompt: tuple[PromptMessage, ...] | None = None


class InitialAnswer(Record):
    """One agent's answer and reason before the debate begins."""

    agent: str
    answer: str | None
    reason: str
    source: Source
    valid: bool = True
    error: str | None = None
    note: str | None = None
    raw: str | None = None
    generation: GenerationInfo = GenerationInfo()


class PlanRecord(Record):
    """One agent's plan this turn, with what was allowed and what went wrong.

    ``plan`` is what the engine acted on: the agent's own plan when ``valid``,
    otherwise the fallback (listen, urgency 0, previous answer) and ``error``
    says why. ``raw`` is the model's text (or the human's form) as received.
    """

    agent: str
    plan: ActionPlan
    allowed: tuple[Action, ...]
    source: Source
    valid: bool
    error: str | None = None
    note: str | None = None
    raw: str | None = None
    generation: GenerationInfo = GenerationInfo()


class AgentAnswer(Record):
    """An agent and the answer it currently supports (None if it has none)."""

    agent: str
    answer: str | None
    carried: bool = False


class Candidate(Record):
    """An agent that asked for the floor this turn."""

    agent: str
    action: Action
    urgency: int


class Vote(Record):
    answer: str
    count: int


class TokenStats(Record):
    """Confidence statistics of one completion (SID): NLL and entropy aggregated four ways."""

    nll_max: float
    nll_avg: float
    nll_first: float
    nll_penultimate: float
    ent_max: float
    ent_avg: float
    ent_first: float
    ent_penultimate: float


class DebateStats(Record):
    """Counts and costs of a whole debate, for the analysis tables."""

    turns: int = 0
    silent_turns: int = 0
    utterances: int = 0
    interruptions: int = 0
    completions: int = 0
    units_disclosed: int = 0
    invalid_plans: int = 0
    model_calls: int = 0
    batches: int = 0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    generated_tokens: int = 0
    wall_time_s: float = 0.0
    decisions: int = 0
    interventions: int = 0
    resumptions: int = 0
    revisions: int = 0


JsonValue = Any
"""A JSON-safe value (dicts, lists, strings, numbers, booleans, None)."""
