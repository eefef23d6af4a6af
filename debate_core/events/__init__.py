"""The events a debate emits: the contract between protocols, storage, UI and analysis.

What it does: gathers the event classes (``types``: the frame, answers and
the floor; ``acts``: listening and reflecting), the records they are made of
(``records``) and their conversion to and from plain data
(``codec``) under one import path: ``from debate_core.events import ...``.

What it does not do: decide anything, or write files other than JSON lines.
"""

from debate_core.events.acts import (
    ActionComposed,
    AnalysisMade,
    ContextCompressed,
    Intervention,
    ListenerDecision,
    SignalsMeasured,
)
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
from debate_core.events.types import (
    EVENT_SCHEMA_VERSION,
    AnswersUpdated,
    DebateEnded,
    DebateStarted,
    InitialAnswersGiven,
    Interrupted,
    PhaseStarted,
    PlansMade,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)

__all__ = [
    "EVENT_CLASSES",
    "EVENT_SCHEMA_VERSION",
    "EVENT_TYPES",
    "RENAMED_TYPES",
    "Action",
    "ActionComposed",
    "ActionPlan",
    "AgentAnswer",
    "AnalysisMade",
    "AnswersUpdated",
    "Candidate",
    "ContextCompressed",
    "DebateEnded",
    "DebateStarted",
    "DebateStats",
    "EndReason",
    "Event",
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
    "SignalsMeasured",
    "SilentTurn",
    "Source",
    "SpeakerSelected",
    "TokenStats",
    "UnitDisclosed",
    "UtteranceCompleted",
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
