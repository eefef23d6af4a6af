"""The classroom record, as the room builds it: the schema itself is the store's (``storage.classroom``).

What it does: names, for the classroom's own modules, the records a room
leaves for its transcript (``SeatHolding``, ``PollResult``,
``ClassroomRecord``, ``Fallback``, ``HoldingEnd``) and their bounds. The
store keeps, exports and checks on import the same schema, so it is defined
once, where the store (which knows no front end) can read it.

What it does not do: define or change the schema (``storage.classroom``), store or draw anything.
"""

from __future__ import annotations

from storage.classroom import (
    MAX_CHOICE_CHARS,
    MAX_CHOICES,
    MAX_KEY_CHARS,
    MAX_NAME_CHARS,
    ClassroomRecord,
    Fallback,
    HoldingEnd,
    PollResult,
    SeatHolding,
)

__all__ = [
    "MAX_CHOICES",
    "MAX_CHOICE_CHARS",
    "MAX_KEY_CHARS",
    "MAX_NAME_CHARS",
    "ClassroomRecord",
    "Fallback",
    "HoldingEnd",
    "PollResult",
    "SeatHolding",
]
