"""What a classroom debate leaves for its transcript: who held which seat, and each poll's result.

What it does: the schema of the classroom record the store keeps beside a
debate (the ``classrooms`` table), exports in its JSON transcript and checks
on import: frozen pydantic records (``Record``: no field beyond those
declared) that the web app's room (``ui.classroom``) builds as the debate
goes and a replay can draw:
``SeatHolding`` (a person's display name in a seat from one turn to
another, how the holding ended and who took the seat after), ``PollResult``
(a poll's choices and counts, open or closed, with the turns it spanned;
voters are never named) and ``ClassroomRecord``, all of one debate, with a
JSON round trip (``to_json``, ``from_json``) that validates what it reads.
No record holds a token, a token's digest or a person's public id: only
display names, as the people gave them (cleaned).

What it does not do: write anything (``Store.save_classroom``, ``transfer``),
check a record against its debate (``transcript.check_classroom``) or draw
anything; it knows no front end (the room and its page live in ``ui``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, model_validator

from debate_core.events.records import Count, Record, Timestamp
from debate_core.events.types import DebateId

MAX_NAME_CHARS = 40  # a display name, as the room cleans it (``ui.classroom.names``)
MAX_CHOICES = 12
MAX_CHOICE_CHARS = 200
MAX_KEY_CHARS = 128  # a poll's key: the phase and round it belongs to ("round 2", "opening")
Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]
Agent = Annotated[str, Field(min_length=1, max_length=64)]


class Fallback(StrEnum):
    """What acts for a seat nobody holds: a model takes it, or its turns are let pass."""

    MODEL = "model"
    PASS = "pass"


class HoldingEnd(StrEnum):
    """How a person's holding of a seat ended."""

    FREED = "freed"  # the host freed the seat
    LEFT = "left"  # the person left it
    AWAY = "away"  # the person was away past the grace period
    ENDED = "ended"  # the debate ended with the person seated


class SeatHolding(Record):
    """One person in one seat: from ``from_turn`` (and ``since``, wall-clock) to ``to_turn`` (None: still)."""

    agent: Agent
    role: str | None = None
    name: Name
    from_turn: Count
    since: Timestamp
    to_turn: Count | None = None
    until: Timestamp | None = None
    ended: HoldingEnd | None = None
    then: Fallback | None = None  # what acted for the seat after the person (None: still held, or ended)


class PollResult(Record):
    """A poll's tally: ``counts[i]`` votes for ``choices[i]``; ``closed_at`` None while it is open."""

    key: Annotated[str, Field(min_length=1, max_length=MAX_KEY_CHARS)]
    label: Annotated[str, Field(max_length=MAX_KEY_CHARS)] = ""
    choices: tuple[Annotated[str, Field(min_length=1, max_length=MAX_CHOICE_CHARS)], ...]
    counts: tuple[Count, ...]
    from_turn: Count
    opened_at: Timestamp
    to_turn: Count | None = None
    closed_at: Timestamp | None = None

    @model_validator(mode="after")
    def _one_count_per_choice(self) -> PollResult:
        if not 1 <= len(self.choices) <= MAX_CHOICES:
            raise ValueError(f"a poll offers 1 to {MAX_CHOICES} choices, not {len(self.choices)}")
        if len(set(self.choices)) != len(self.choices):
            raise ValueError("a poll's choices repeat")
        if len(self.counts) != len(self.choices):
            raise ValueError("a poll needs one count per choice")
        return self

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def open(self) -> bool:
        return self.closed_at is None

    def count_of(self, choice: str) -> int:
        return self.counts[self.choices.index(choice)]


class ClassroomRecord(Record):
    """Everything a classroom added to one debate, in the order it happened."""

    schema_version: Literal[1] = 1
    debate_id: DebateId
    seats: tuple[SeatHolding, ...] = ()
    polls: tuple[PollResult, ...] = ()

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> ClassroomRecord:
        """The record ``to_json`` wrote (pydantic's ``ValidationError`` for anything else)."""
        return cls.model_validate_json(text)

    def holders_at(self, turn: int) -> dict[str, str]:
        """Who held each seat at ``turn`` (agent -> display name), for a replay that stands at that turn."""
        return {h.agent: h.name for h in self.seats if h.from_turn <= turn and (h.to_turn is None or turn < h.to_turn)}

    def polls_until(self, turn: int) -> tuple[PollResult, ...]:
        """The polls opened by ``turn``: a replay shows their tallies as recorded when they closed."""
        return tuple(p for p in self.polls if p.from_turn <= turn)
