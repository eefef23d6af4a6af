"""The people and seats of one classroom room, as the room keeps them and as it shows them.

What it does: ``Person`` is one joined browser (the host, a seated person or
an audience member): a public id, a display name, the digest of its token
(never the token, never in a ``repr``), its seat, when it was last seen,
whether its page said it left, its raised hand and a notice for its next
visit. ``Seat`` is one protocol role's agent: a model sits in it
(``SeatState.MODEL``), the host opened it to people (``OPEN``: whatever the
seat's ``fallback`` says acts for it until someone takes it) or a person holds
it (``HELD``). ``SeatView`` and ``MemberView`` are what the host's page may
show of them (frozen, no secret): who is where, who is connected, how long
before an absent person's seat falls back, who has a hand up.

What it does not do: decide or lock anything (``room`` does, under its lock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ui.classroom.records import Fallback


class SeatState(StrEnum):
    MODEL = "model"  # a model sits here; nobody can take it until the host opens it
    OPEN = "open"  # open to people; the seat's fallback acts for it meanwhile
    HELD = "held"  # a person holds it


class Acting(StrEnum):
    """Who acts for a seat right now."""

    PERSON = "person"  # its holder (while away within the grace period, their standing stance)
    MODEL = "model"
    PASS = "pass"  # its turns are let pass


@dataclass(eq=False)
class Person:
    """One joined browser. ``kept`` is its token's digest: compared, never shown or logged."""

    id: str
    name: str
    kept: bytes = field(repr=False)
    seen: float
    host: bool = False
    seat: str | None = None
    left_at: float | None = None  # the page said it went away (``Room.disconnect``)
    hand_at: float | None = None  # when its hand went up (None: down)
    hand_seat: str | None = None  # the seat it asked for, if it named one
    notice: str = ""

    def away_since(self, now: float, away_after_s: float) -> float | None:
        """When the person went away (None: connected): the page said so, or no heartbeat for too long."""
        if self.left_at is not None:
            return self.left_at
        return self.seen if now - self.seen > away_after_s else None


@dataclass(eq=False)
class Seat:
    agent: str
    role: str | None
    state: SeatState = SeatState.MODEL
    fallback: Fallback = Fallback.MODEL
    holder: Person | None = None
    holding: int | None = None  # index of the holder's open ``SeatHolding`` in the room's list

    @property
    def acting(self) -> Acting:
        if self.state is SeatState.HELD:
            return Acting.PERSON
        if self.state is SeatState.MODEL:
            return Acting.MODEL
        return Acting(self.fallback.value)


@dataclass(frozen=True)
class SeatView:
    """One seat as the host's page shows it."""

    agent: str
    role: str | None
    state: SeatState
    acting: Acting
    fallback: Fallback
    holder: str | None = None  # display name
    holder_id: str | None = None
    connected: bool | None = None  # None: nobody holds it
    grace_left_s: float | None = None  # while its holder is away: seconds before the fallback acts


@dataclass(frozen=True)
class MemberView:
    """One joined person as the host's page shows them (never their token)."""

    id: str
    name: str
    connected: bool
    host: bool = False
    seat: str | None = None
    hand_up: bool = False
    hand_seat: str | None = None


@dataclass(frozen=True)
class SeatChange:
    """What the debate must now do for a seat: who acts for it (``Room``'s ``on_change`` receives these)."""

    agent: str
    acting: Acting
    holder: str | None = None  # the display name when a person acts
    why: str = ""
