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
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

# Values an event may hold: checked on every event, whether the engine made it or a file brought it.
# Integers are bounded by what the stores hold: a count lands in an INTEGER column (32 bits on PostgreSQL,
# 64 on SQLite), so no value the engine accepts can overflow the recorder or an import.
MAX_COUNT = 2**31 - 1
"""The largest count an event holds: PostgreSQL's INTEGER, the type of every count column."""
MAX_TOTAL = 2**53 - 1
"""The largest statistic of a whole debate (``DebateStats``, kept as JSON): JSON readers keep it exact."""
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Positive = Annotated[int, Field(ge=1, le=MAX_COUNT)]
Total = Annotated[int, Field(ge=0, le=MAX_TOTAL)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Probability = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Urgency = Annotated[int, Field(ge=0, le=9)]
MAX_TIMESTAMP = 253_402_300_799.0  # 9999-12-31T23:59:59Z, the last instant a datetime can hold
Timestamp = Annotated[float, Field(ge=0, le=MAX_TIMESTAMP, allow_inf_nan=False)]


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
    urgency: Urgency
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
    """Cost of one model call: token counts and seconds (0 for humans and policies).

    ``retries``: one sentence per failed try of this call that the backend retried (a server's 503, a
    timeout), in order; empty when the first try answered.
    """

    prompt_tokens: Count = 0
    cached_tokens: Count = 0
    completion_tokens: Count = 0
    latency_s: Seconds = 0.0
    prompt: tuple[PromptMessage, ...] | None = None
    retries: tuple[str, ...] = ()


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
    allowed: Annotated[tuple[Action, ...], Field(max_length=len(Action))]
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
    urgency: Urgency


class Vote(Record):
    answer: str
    count: Positive


class TokenStats(Record):
    """Confidence statistics of one completion (SID): NLL and entropy aggregated four ways."""

    nll_max: Finite
    nll_avg: Finite
    nll_first: Finite
    nll_penultimate: Finite
    ent_max: Finite
    ent_avg: Finite
    ent_first: Finite
    ent_penultimate: Finite
    #: None: entropies of the full next-token distribution; k: estimated from the top k log-probabilities
    entropy_top_k: Positive | None = None


class DebateStats(Record):
    """Counts and costs of a whole debate, for the analysis tables."""

    turns: Total = 0
    silent_turns: Total = 0
    utterances: Total = 0
    interruptions: Total = 0
    completions: Total = 0
    units_disclosed: Total = 0
    invalid_plans: Total = 0
    model_calls: Total = 0
    batches: Total = 0
    prompt_tokens: Total = 0
    cached_prompt_tokens: Total = 0
    generated_tokens: Total = 0
    wall_time_s: Seconds = 0.0
    decisions: Total = 0
    interventions: Total = 0
    resumptions: Total = 0
    revisions: Total = 0


JsonValue = Any
"""A JSON-safe value (dicts, lists, strings, numbers, booleans, None)."""
