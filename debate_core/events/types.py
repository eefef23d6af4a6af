"""Every event a debate can emit, one frozen pydantic model each.

What it does: defines the event classes. Every event carries ``seq`` (0, 1, 2,
... within a debate), ``turn`` (0 is the set-up before the first disclosure),
``public_tokens`` (the cumulative public token count *after* the event) and
``at`` (wall-clock seconds since the epoch). Their shapes are general; each
protocol uses the ones it needs (see ``docs/events.md`` for who emits what):

* the debate's frame: ``DebateStarted``, ``PhaseStarted``, ``DebateEnded``;
* answers: ``InitialAnswersGiven``, ``PlansMade``, ``AnswersUpdated``;
* the floor: ``SpeakerSelected``, ``UtteranceGenerated``, ``UtteranceExtended``,
  ``UnitDisclosed``, ``UtteranceCompleted``, ``SilentTurn``, ``Interrupted``,
  ``UtteranceResumed``, ``UtteranceRevised``;
* listening and intervening: ``ListenerDecision``, ``Intervention``;
* reflection: ``SignalsMeasured`` (``acts``).

A protocol's own events live in its package (``events.py``), subclass
``EventBase`` or ``ReplyBase``, and are registered through the
``register_event_types`` hook (``registry``).

Events never hold undisclosed text where agents could see it: the kernel
keeps the queue; ``UtteranceGenerated``, ``UtteranceExtended``,
``Interrupted`` and ``UtteranceRevised`` record the full and the discarded
text *for researchers*, and views given to agents are built from disclosed
units only. An utterance generated as it streams (``streaming``) records
what was generated in its ``UtteranceGenerated`` and ``UtteranceExtended``
texts, what was said in its ``UnitDisclosed`` events, and what was generated
and never said in ``discarded`` and ``unfinished`` (text past the last unit
when the generation was cut).

What it does not do: decide anything, or convert to and from JSON (``codec``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from debate_core.config import DebateConfig
from debate_core.events.records import (
    Action,
    AgentAnswer,
    Candidate,
    Count,
    DebateStats,
    EndReason,
    GenerationInfo,
    InitialAnswer,
    PlanRecord,
    Positive,
    Record,
    Source,
    Timestamp,
    Vote,
)

EVENT_SCHEMA_VERSION = 2
DEBATE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
"""A debate id: letters, digits, ``_``, ``.`` and ``-``, 64 at most, starting with a letter or digit.

Ids become file names (exports) and URL parts, so nothing else is accepted anywhere."""
DebateId = Annotated[str, Field(pattern=DEBATE_ID_PATTERN)]
UnitIndex = Count


class EventBase(Record):
    """The base of every event, built-in or a plugin's: its place in the debate and its time.

    A subclass declares ``type: Literal["its_type"] = "its_type"`` (the tag the
    union and every consumer dispatch on) and its own fields.
    """

    if TYPE_CHECKING:  # each subclass declares its own Literal; no field here (the JSON keeps its order)
        type: str
    seq: Count
    turn: Count
    public_tokens: Count
    at: Timestamp


class ReplyBase(EventBase):
    """Fields of an event that records what a seat (model, person or policy) produced."""

    source: Source = Source.MODEL
    valid: bool = True
    error: str | None = None
    note: str | None = None
    raw: str | None = None
    generation: GenerationInfo = GenerationInfo()


# -- the frame ------------------------------------------------------------------------------


class DebateStarted(EventBase):
    """The debate's full set-up; everything a replay needs to draw the table.

    ``protocol`` names the rule set as its protocol labels it (Kimura's
    conditions keep their names: ``interruptible``, ``dynamic``, ``fixed``);
    ``config`` carries the registered protocol, variant and parameters.
    ``segmenter`` names the disclosure unit (a sentence segmenter, a
    character rule, ``whole-message``, ...).
    """

    type: Literal["debate_started"] = "debate_started"
    debate_id: DebateId
    config: DebateConfig
    protocol: str
    model_id: str
    segmenter: str
    engine_version: str
    schema_version: Annotated[int, Field(ge=1, le=EVENT_SCHEMA_VERSION)] = EVENT_SCHEMA_VERSION


class PhaseStarted(EventBase):
    """A protocol entered a phase (an opening, a rebuttal, analyse / compose / execute, round k)."""

    type: Literal["phase_started"] = "phase_started"
    phase: str
    round: Count | None = None
    detail: str = ""


class DebateEnded(EventBase):
    """The end: why, the final answer and how it was decided, and the debate's statistics.

    ``rule`` says how ``final_answer`` was decided (``majority`` of
    ``answers``, ``single``: one role's answer, ``judge``: a verdict, ...), and
    ``decided_by`` names the agent whose answer or verdict it is, when one did.
    ``tie`` lists the answers that shared the most votes when a majority was
    tied: the seeded random choice broke it, or, where ``decided_by`` names an
    agent, the tie went to that agent's answer, the tied answer given first
    (``ties="first"``, ``kernel.endings.majority``). ``undisclosed`` holds a
    speaker's queue cut off by the end.
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
    rule: str = "majority"
    decided_by: str | None = None


# -- answers ----------------------------------------------------------------------------------


class InitialAnswersGiven(EventBase):
    type: Literal["initial_answers"] = "initial_answers"
    answers: tuple[InitialAnswer, ...]


class PlansMade(EventBase):
    """All plans of a turn, plus every agent's current answer.

    ``answers`` lists every agent: planners with their plan's answer, and the
    speaker that did not plan (its queue was not empty) with its last answer,
    marked ``carried``. It is the intermediate answer the evaluation tracks.
    """

    type: Literal["plans_made"] = "plans_made"
    plans: tuple[PlanRecord, ...]
    answers: tuple[AgentAnswer, ...]
    floor_holder: str | None
    batch_latency_s: Annotated[float, Field(ge=0, allow_inf_nan=False)]

    def answer_of(self, agent: str) -> str | None:
        for item in self.answers:
            if item.agent == agent:
                return item.answer
        raise KeyError(agent)


class AnswersUpdated(EventBase):
    """Every agent's current answer after something changed them (protocols without plans).

    ``cause`` says what: ``round 2``, ``execute``, ``final``, ...
    """

    type: Literal["answers_updated"] = "answers_updated"
    answers: tuple[AgentAnswer, ...]
    cause: Annotated[str, Field(max_length=128)]  # the width of its column

    def answer_of(self, agent: str) -> str | None:
        for item in self.answers:
            if item.agent == agent:
                return item.answer
        raise KeyError(agent)


# -- the floor ----------------------------------------------------------------------------------


class SpeakerSelected(EventBase):
    """Who takes the floor next, and why.

    ``rule`` is how the protocol chose (``urgency``, ``fixed_order``, ``phase``,
    ...). ``tie`` lists the agents that shared the highest urgency when the
    seeded random choice decided; ``interrupts`` names the speaker being cut off.
    """

    type: Literal["speaker_selected"] = "speaker_selected"
    speaker: str
    rule: str
    urgency: Annotated[int, Field(ge=0, le=9)] | None
    candidates: tuple[Candidate, ...]
    tie: tuple[str, ...] = ()
    interrupts: str | None = None


class Interrupted(EventBase):
    """A speaker lost the floor with units still queued.

    Without ``suspended`` the queue is discarded for good (``discarded``);
    with it the utterance waits to be resumed (a point of information) and
    ``discarded`` lists what is held back for now.
    """

    type: Literal["interrupted"] = "interrupted"
    interrupter: str
    interrupted: str
    utterance_id: Count
    disclosed_count: Count
    discarded: tuple[str, ...]
    suspended: bool = False
    unfinished: str = ""
    """Of an utterance generated as it streams: the text generated past its last unit when it was cut off (held
    with the queue when suspended); empty otherwise."""


class UtteranceGenerated(EventBase):
    """A speaker's whole utterance, split into the units to disclose.

    For researchers and replay only: agents see units as they are disclosed.
    An utterance with no units (empty text) gives the floor back; ``error``
    says why. ``kind`` says what it is within its protocol (``speech``,
    ``opening``, ``poi_reply``, ``rebuttal``, ...); ``role`` the speaker's role;
    ``structured`` the parsed content of a structured reply.

    With ``streaming`` the utterance is generated as it is disclosed: ``text``
    is what was generated before its first unit was ready (``units``: the
    units it closed), and ``UtteranceExtended`` events bring the rest.
    """

    type: Literal["utterance_generated"] = "utterance_generated"
    speaker: str
    utterance_id: Count
    text: str
    units: tuple[str, ...]
    interrupting: str | None = None
    source: Source
    error: str | None = None
    raw: str | None = None
    generation: GenerationInfo = GenerationInfo()
    role: str | None = None
    kind: str = "speech"
    structured: dict[str, Any] | None = None
    streaming: bool = False


class UtteranceExtended(ReplyBase):
    """More of an utterance generated as it streams: the units its generation closed join the queue.

    ``text`` is what was generated since the utterance's last record (it may
    begin inside a unit it closes); ``units`` the units closed, appended to
    the undisclosed queue; ``ended``: the generation is over (no more units
    will come) and ``structured`` is what the protocol read of the whole
    utterance then. ``generation`` sums the model calls it covers.
    """

    type: Literal["utterance_extended"] = "utterance_extended"
    speaker: str
    utterance_id: Count
    text: str
    units: tuple[str, ...]
    ended: bool = False
    structured: dict[str, Any] | None = None


class UnitDisclosed(EventBase):
    """One unit made public: a sentence, a character chunk, a token chunk or a whole message."""

    type: Literal["unit_disclosed"] = "unit_disclosed"
    speaker: str
    utterance_id: Count
    index: UnitIndex
    total: Positive
    text: str
    tokens: Count
    interrupting: str | None = None

    @property
    def is_last(self) -> bool:
        return self.index == self.total - 1


class UtteranceCompleted(EventBase):
    """The speaker disclosed its whole utterance without being interrupted."""

    type: Literal["utterance_completed"] = "utterance_completed"
    speaker: str
    utterance_id: Count
    units: Count


class SilentTurn(EventBase):
    """Nobody held the floor this turn; everyone re-plans."""

    type: Literal["silent_turn"] = "silent_turn"
    consecutive: Positive


class UtteranceResumed(EventBase):
    """A suspended utterance goes on: its queue as it was (``continue``) or regenerated."""

    type: Literal["utterance_resumed"] = "utterance_resumed"
    speaker: str
    utterance_id: Count
    mode: Literal["continue", "regenerate"]


class UtteranceRevised(ReplyBase):
    """The undisclosed rest of an utterance was replaced (a rewind, or an incorporated question)."""

    type: Literal["utterance_revised"] = "utterance_revised"
    speaker: str
    utterance_id: Count
    discarded: tuple[str, ...]
    units: tuple[str, ...]
    reason: str
    unfinished: str = ""
    """The generated text past the last unit that the revision discarded (an utterance generated as it streams)."""
    streaming: bool = False
    """The new rest is generated as it is disclosed: ``units`` (those ready now), then ``UtteranceExtended``."""
    continued: Literal["prefill", "prompt"] | None = None
    """How a streamed rest goes on from what was said: ``prefill``, as the speaker's own partial reply continued
    (the backend's ``CONTINUATION``), in steps; ``prompt``, what was said placed in the prompt and the answer
    taken as the rest, whole (a backend that cannot continue a partial reply). None: a person writes the rest,
    or not a streamed rest (a stream written before this field: ``prefill``)."""


__all__ = [
    "EVENT_SCHEMA_VERSION",
    "Action",
    "AnswersUpdated",
    "DebateEnded",
    "DebateStarted",
    "EventBase",
    "InitialAnswersGiven",
    "Interrupted",
    "PhaseStarted",
    "PlansMade",
    "ReplyBase",
    "SilentTurn",
    "SpeakerSelected",
    "UnitDisclosed",
    "UtteranceCompleted",
    "UtteranceExtended",
    "UtteranceGenerated",
    "UtteranceResumed",
    "UtteranceRevised",
]
