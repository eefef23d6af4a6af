"""The events a debate emits: the contract between engine, storage, UI and analysis.

What it does: defines one frozen pydantic model per event type, the tagged
union ``Event`` over all of them, and lossless conversion to and from plain
dicts / JSON lines (``event_to_dict``, ``event_from_dict``, ``read_jsonl``).

Every event carries ``seq`` (0, 1, 2, ... within a debate), ``turn`` (0 is the
set-up before the first disclosure), ``public_tokens`` (the cumulative public
token count *after* the event), and ``at`` (wall-clock seconds since the
epoch). A turn's events come in this order::

    SentenceDisclosed | SilentTurn        what everyone hears this turn
    UtteranceCompleted                    if that was the speaker's last unit
    PlansMade                             every planner's action plan
    DebateEnded                           if the budget (or a guard) ends it here
    SpeakerSelected [Interrupted]         who takes the floor next turn
    UtteranceGenerated                    what the new speaker will say

Events never hold undisclosed text where agents could see it: the engine keeps
the queue; ``UtteranceGenerated`` and ``Interrupted`` record the full and the
discarded text *for researchers*, and views given to agents are built from
``SentenceDisclosed`` only.

What it does not do: decide anything, or write files other than JSON lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from debate_core.config import DebateConfig
from debate_core.plans import Action, ActionPlan

EVENT_SCHEMA_VERSION = 1


class Source(StrEnum):
    """Where a plan, answer or utterance came from."""

    MODEL = "model"
    HUMAN = "human"
    SUPPLIED = "supplied"


class EndReason(StrEnum):
    """Why a debate ended."""

    BUDGET = "budget"
    SILENCE = "silence"
    MAX_TURNS = "max_turns"
    STOPPED = "stopped"
    ERROR = "error"


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PromptMessage(_Record):
    """A chat message as recorded when ``record_prompts`` is on."""

    role: str
    content: str


class GenerationInfo(_Record):
    """Cost of one model call: token counts and seconds (0 for humans)."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    prompt: tuple[PromptMessage, ...] | None = None


class InitialAnswer(_Record):
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


class PlanRecord(_Record):
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


class AgentAnswer(_Record):
    """An agent and the answer it currently supports (None if it has none)."""

    agent: str
    answer: str | None
    carried: bool = False


class Candidate(_Record):
    """An agent that asked for the floor this turn."""

    agent: str
    action: Action
    urgency: int


class Vote(_Record):
    answer: str
    count: int


class DebateStats(_Record):
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


class _Event(_Record):
    seq: int
    turn: int
    public_tokens: int
    at: float


class DebateStarted(_Event):
    """The debate's full set-up; everything a replay needs to draw the table."""

    type: Literal["debate_started"] = "debate_started"
    debate_id: str
    config: DebateConfig
    protocol: str
    model_id: str
    segmenter: str
    engine_version: str
    schema_version: int = EVENT_SCHEMA_VERSION


class InitialAnswersGiven(_Event):
    type: Literal["initial_answers"] = "initial_answers"
    answers: tuple[InitialAnswer, ...]


class PlansMade(_Event):
    """All plans of a turn, plus every agent's current answer.

    ``answers`` lists every agent: planners with their plan's answer, and the
    speaker that did not plan (its queue was not empty) with its last answer,
    marked ``carried``. It is the intermediate answer the evaluation tracks.
    """

    type: Literal["plans_made"] = "plans_made"
    plans: tuple[PlanRecord, ...]
    answers: tuple[AgentAnswer, ...]
    floor_holder: str | None
    batch_latency_s: float

    def answer_of(self, agent: str) -> str | None:
        for item in self.answers:
            if item.agent == agent:
                return item.answer
        raise KeyError(agent)


class SpeakerSelected(_Event):
    """Who takes the floor next turn, and why.

    ``rule`` is ``urgency`` (highest urgency among candidates) or ``fixed_order``.
    ``tie`` lists the agents that shared the highest urgency when the seeded
    random choice decided; ``interrupts`` names the speaker being cut off.
    """

    type: Literal["speaker_selected"] = "speaker_selected"
    speaker: str
    rule: str
    urgency: int | None
    candidates: tuple[Candidate, ...]
    tie: tuple[str, ...] = ()
    interrupts: str | None = None


class Interrupted(_Event):
    """A speaker lost the floor with sentences still queued; those are discarded."""

    type: Literal["interrupted"] = "interrupted"
    interrupter: str
    interrupted: str
    utterance_id: int
    disclosed_count: int
    discarded: tuple[str, ...]


class UtteranceGenerated(_Event):
    """The new speaker's whole utterance, split into the units to disclose.

    For researchers and replay only: agents see units as they are disclosed.
    An utterance with no units (empty text) gives the floor back; ``error``
    says why.
    """

    type: Literal["utterance_generated"] = "utterance_generated"
    speaker: str
    utterance_id: int
    text: str
    units: tuple[str, ...]
    interrupting: str | None = None
    source: Source
    error: str | None = None
    raw: str | None = None
    generation: GenerationInfo = GenerationInfo()


class SentenceDisclosed(_Event):
    """One unit made public: a sentence, or a whole message in fixed/dynamic."""

    type: Literal["sentence_disclosed"] = "sentence_disclosed"
    speaker: str
    utterance_id: int
    index: int
    total: int
    text: str
    tokens: int
    interrupting: str | None = None

    @property
    def is_last(self) -> bool:
        return self.index == self.total - 1


class UtteranceCompleted(_Event):
    """The speaker disclosed its whole utterance without being interrupted."""

    type: Literal["utterance_completed"] = "utterance_completed"
    speaker: str
    utterance_id: int
    units: int


class SilentTurn(_Event):
    """Nobody held the floor this turn; everyone re-plans."""

    type: Literal["silent_turn"] = "silent_turn"
    consecutive: int


class DebateEnded(_Event):
    """The end: why, the majority answer, the votes, and the debate's statistics.

    ``final_answer`` is the majority of the plan answers at the last turn;
    ``tie`` lists the answers that shared the most votes when the seeded random
    choice decided. ``undisclosed`` holds a speaker's queue cut off by the end.
    """

    type: Literal["debate_ended"] = "debate_ended"
    reason: EndReason
    final_answer: str | None
    votes: tuple[Vote, ...]
    answers: tuple[AgentAnswer, ...]
    tie: tuple[str, ...] = ()
    correct: bool | None = None
    undisclosed: tuple[str, ...] = ()
    error: str | None = None
    stats: DebateStats = DebateStats()


Event = Annotated[
    DebateStarted
    | InitialAnswersGiven
    | PlansMade
    | SpeakerSelected
    | Interrupted
    | UtteranceGenerated
    | SentenceDisclosed
    | UtteranceCompleted
    | SilentTurn
    | DebateEnded,
    Field(discriminator="type"),
]

EVENT_TYPES: dict[str, type[BaseModel]] = {
    cls.model_fields["type"].default: cls
    for cls in (
        DebateStarted,
        InitialAnswersGiven,
        PlansMade,
        SpeakerSelected,
        Interrupted,
        UtteranceGenerated,
        SentenceDisclosed,
        UtteranceCompleted,
        SilentTurn,
        DebateEnded,
    )
}

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict; ``event_from_dict`` gives back an equal event."""
    return event.model_dump(mode="json")


def event_from_dict(data: Any) -> Event:
    """Validate a dict (e.g. from JSON) into the matching event class.

    Raises ``pydantic.ValidationError`` with the offending field for anything
    that is not a well-formed event.
    """
    return _ADAPTER.validate_python(data)


def event_to_json(event: Event) -> str:
    return event.model_dump_json()


def write_jsonl(events: Iterable[Event], path: str | Path) -> int:
    """Write events one JSON object per line; returns how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as handle:
        for event in events:
            handle.write(event_to_json(event) + "\n")
            count += 1
    return count


def read_jsonl(path: str | Path) -> Iterator[Event]:
    """Read events written by ``write_jsonl`` (or the CLI's ``--events-jsonl``)."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield _ADAPTER.validate_python(json.loads(line))
            except (json.JSONDecodeError, ValueError) as error:
                raise ValueError(f"{path}:{number}: not a debate event: {error}") from error
