"""A hand-turned clock for the classroom's tests and benchmarks: grace periods without sleeping.

What it does: ``ManualClock`` is a callable that gives the seconds it was
set to (``advance`` moves it on), usable as both a room's ``clock`` and its
``wall``; ``classroom(...)`` makes a room in a registry of its own on such a
clock, so tests need neither sleep nor the server's ``ROOMS``.

What it does not do: anything at run time of the app.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ui.classroom.room import Room
from ui.classroom.rooms import Rooms


class ManualClock:
    """Seconds that move only when told to (starts at ``start``, a plausible epoch time for records)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


def classroom(
    seats: Mapping[str, str | None] | None = None, *, debate_id: str = "d1", **options: Any
) -> tuple[Room, str, ManualClock]:
    """A room (its own ``Rooms``, a ``ManualClock`` for both clocks), its host token and the clock."""
    clock = options.pop("clock", None)
    clock = ManualClock() if clock is None else clock
    rooms = options.pop("rooms", None)
    rooms = Rooms() if rooms is None else rooms  # not ``or``: an empty registry is falsy
    seats = seats if seats is not None else {"Ann": "debater", "Ben": "debater", "Cal": "moderator"}
    room, host = Room.create(debate_id, seats, rooms=rooms, clock=clock, wall=clock, **options)
    return room, host, clock
