"""The events a debate emits: the contract between protocols, storage, UI and analysis.

What it does: gathers the built-in event classes (``types``: the frame,
answers and the floor; ``acts``: listening and signals), the records they are
made of (``records``), the open registry of event types (``registry``: a
protocol plugin adds its own through the ``register_event_types`` hook) and
their conversion to and from plain data (``codec``) under one import path:
``from debate_core.events import ...``. A protocol's own events are imported
from its package (``protocols.<name>.events``), not from here.

What it does not do: decide anything, or write files other than JSON lines.
"""

from debate_core.events.acts import Intervention, ListenerDecision, SignalsMeasured
from debate_core.events.codec import (
    EVENT_CLASSES,
    EVENT_TYPES,
    RENAMED_TYPES,
    Event,
    event_from_dict,
    event_to_dict,
    event_to_json,
    read_jsonl,
    upgrade,
    write_jsonl,
)
from debate_core.events.records import (
    Action,
    ActionPlan,
    AgentAnswer,
    Candidate,
    DebateStats,
    EndReason,
    GenerationInfo,
    InitialAnswer,
    PlanRecord,
    PromptMessage,
    Source,
    TokenStats,
    Vote,
)
from debate_core.events.registry import BUILT_IN_EVENTS, EventType
from debate_core.events.types import (
    EVENT_SCHEMA_VERSION,
    AnswersUpdated,
    DebateEnded,
    DebateStarted,
    EventBase,
    InitialAnswersGiven,
    Interrupted,
    PhaseStarted,
    PlansMade,
    ReplyBase,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)

__all__ = [
    "BUILT_IN_EVENTS",
    "EVENT_CLASSES",
    "EVENT_SCHEMA_VERSION",
    "EVENT_TYPES",
    "RENAMED_TYPES",
    "Action",
    "ActionPlan",
    "AgentAnswer",
    "AnswersUpdated",
    "Candidate",
    "DebateEnded",
    "DebateStarted",
    "DebateStats",
    "EndReason",
    "Event",
    "EventBase",
    "EventType",
    "GenerationInfo",
    "InitialAnswer",
    "InitialAnswersGiven",
    "Interrupted",
    "Intervention",
    "ListenerDecision",
    "PhaseStarted",
    "PlanRecord",
    "PlansMade",
    "PromptMessage",
    "ReplyBase",
    "SignalsMeasured",
    "SilentTurn",
    "Source",
    "SpeakerSelected",
    "TokenStats",
    "UnitDisclosed",
    "UtteranceCompleted",
    "UtteranceExtended",
    "UtteranceGenerated",
    "UtteranceResumed",
    "UtteranceRevised",
    "Vote",
    "event_from_dict",
    "event_to_dict",
    "event_to_json",
    "read_jsonl",
    "upgrade",
    "write_jsonl",
]
