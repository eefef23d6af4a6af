"""The state of one classroom room and what its public methods do with it, under its lock.

What it does: ``RoomCore`` holds a room's seats, people (by public id and by
token digest), seat holdings, polls, pending seat changes and ``version``,
and the steps ``Room``'s public methods are made of: ``_guarded`` (hold the
lock, apply lapsed grace periods, refuse changes to a closed room, then bump
``version`` and pass seat changes to ``on_change`` outside the lock),
``_check`` (the permission rule: which role may ask for which action, and the
words of each refusal), finding a person by token (a digest looked up, then
compared in constant time), seating and unseating people with their records.
It logs refusals by action only, never a token or a digest.

What it does not do: offer the room's interface (``room.Room`` does) or be
used on its own: every method here expects the room's lock held.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from debate_core.events.types import DEBATE_ID_PATTERN
from debate_core.log import logger
from ui.classroom.names import clean_name, distinct
from ui.classroom.people import Acting, MemberView, Person, Seat, SeatChange, SeatState
from ui.classroom.polls import Polls
from ui.classroom.records import ClassroomRecord, Fallback, HoldingEnd, SeatHolding
from ui.classroom.roles import (
    ANYONE,
    AUDIENCE_ACTIONS,
    HOST_ACTIONS,
    SEAT_ACTIONS,
    WATCHER,
    WORDS,
    Action,
    Conflict,
    Forbidden,
    Identity,
    Invalid,
    Role,
)
from ui.classroom.rooms import Rooms
from ui.classroom.tokens import digest, matches

DEFAULT_GRACE_S = 60.0
DEFAULT_AWAY_AFTER_S = 20.0  # a page sends a heartbeat every few seconds; this long without one is away
MAX_PEOPLE = 500
ENDED = "This debate has ended."


class RoomCore:
    """A room's state and the steps of its methods; ``Room`` is the class to use.

    ``fallback``: what acts for a seat nobody holds, until the host says otherwise; ``grace_s``: how long an
    absent person keeps their seat; ``away_after_s``: how long without a heartbeat makes a page absent;
    ``clock`` (monotonic seconds) and ``wall`` (epoch seconds, for records) are injectable; ``rooms``: the
    registry the room leaves when it closes; ``on_change``: told of every change of who acts for a seat.
    """

    def __init__(
        self,
        debate_id: str,
        join_code: str,
        seats: Mapping[str, str | None],
        *,
        fallback: Fallback = Fallback.MODEL,
        grace_s: float = DEFAULT_GRACE_S,
        away_after_s: float = DEFAULT_AWAY_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        rooms: Rooms | None = None,
        on_change: Callable[[SeatChange], object] | None = None,
    ) -> None:
        if not seats:
            raise Invalid("A room needs at least one seat.")
        if not isinstance(debate_id, str) or not re.fullmatch(DEBATE_ID_PATTERN, debate_id):
            raise Invalid("A room needs its debate's id.")
        self.debate_id = debate_id
        self.join_code = join_code
        self.grace_s = max(0.0, float(grace_s))
        self.away_after_s = max(0.0, float(away_after_s))
        self.version = 0
        self.turn = 0
        self.closed = False
        self._clock, self._wall, self._rooms, self._on_change = clock, wall, rooms, on_change
        self._seats = {agent: Seat(agent, role, fallback=Fallback(fallback)) for agent, role in seats.items()}
        self._people: dict[str, Person] = {}  # by public id
        self._by_digest: dict[bytes, Person] = {}
        self._holdings: list[SeatHolding] = []
        self._polls = Polls()
        self._changes: list[SeatChange] = []
        self._dirty = False
        self._changed = threading.Condition(threading.RLock())

    def wait_for_change(self, seen: int, timeout: float) -> int:
        """Block until ``version`` differs from ``seen`` (or ``timeout`` passes); returns it."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen, timeout=timeout)
            return self.version

    # -- inside the lock ---------------------------------------------------------------------------
    @contextmanager
    def _guarded(self, *, mutating: bool = False) -> Iterator[None]:
        """Hold the lock, apply lapsed grace periods, refuse changes to a closed room; then bump and notify."""
        changes: list[SeatChange] = []
        try:
            with self._changed:
                try:
                    self._expire()
                    if mutating and self.closed:
                        raise Conflict(ENDED)
                    yield
                finally:
                    changes, self._changes = self._changes, []
                    if changes or self._dirty:
                        self.version += 1
                        self._dirty = False
                        self._changed.notify_all()
        finally:
            for change in changes:
                if self._on_change is not None:
                    try:
                        self._on_change(change)
                    except Exception:  # the room's state is already right; the listener's failure is its own
                        logger.exception("debate %s: a seat change listener failed", self.debate_id)

    def _check(self, token: object, action: Action, agent: str | None) -> tuple[Role, Person | None]:
        person = self._person(token)
        if action in ANYONE:
            return self._identity(person).role, person
        words = WORDS[action]
        if person is None:
            logger.info("debate %s: a request to %s without a valid key was refused", self.debate_id, action.value)
            raise Forbidden(f"You are watching, so you cannot {words}.")
        if action in HOST_ACTIONS:
            if not person.host:
                raise Forbidden(f"Only the host can {words}.")
            return Role.HOST, person
        if action in SEAT_ACTIONS:
            if person.seat is None:
                raise Forbidden(f"You hold no seat, so you cannot {words}.")
            if agent is not None and agent != person.seat:
                raise Forbidden(f"That is not your seat: you hold {person.seat}'s, so you cannot {words} there.")
            return Role.SEAT, person
        if action in AUDIENCE_ACTIONS:
            if person.host or person.seat is not None:
                where = "you are the host" if person.host else f"you hold {person.seat}'s seat"
                raise Forbidden(f"Only the audience can {words}, and {where}.")
            return Role.AUDIENCE, person
        raise Invalid(f"Unknown action {action!r}.")  # pragma: no cover - every action is in one set

    def _person(self, token: object) -> Person | None:
        kept = digest(token)
        person = None if kept is None else self._by_digest.get(kept)
        if person is None or not matches(token, person.kept):
            return None
        return person

    def _identity(self, person: Person | None) -> Identity:
        if person is None:
            return WATCHER
        role = Role.HOST if person.host else Role.SEAT if person.seat is not None else Role.AUDIENCE
        return Identity(role, person.id, person.name, person.seat, person.host, person.notice)

    def _member(self, person: Person) -> MemberView:
        away = person.away_since(self._clock(), self.away_after_s)
        up = person.hand_at is not None
        return MemberView(person.id, person.name, away is None, person.host, person.seat, up, person.hand_seat)

    def _seat(self, agent: object) -> Seat:
        seat = self._seats.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise Invalid("This debate has no such seat.")
        return seat

    def _new_person(self, token: str, display_name: object, *, host: bool = False) -> Person:
        if len(self._people) >= MAX_PEOPLE:
            raise Conflict("This debate is full.")
        name = distinct(clean_name(display_name), [p.name for p in self._people.values()])
        kept = digest(token)
        assert kept is not None
        pid = secrets.token_hex(4)
        while pid in self._people:
            pid = secrets.token_hex(4)
        person = Person(pid, name, kept, seen=self._clock(), host=host)
        self._people[pid] = self._by_digest[kept] = person
        self._dirty = True
        return person

    def _joined(self, person: object) -> Person:
        """A joined person by public id (the host's roster and hands name people by it)."""
        chosen = self._people.get(person) if isinstance(person, str) else None
        if chosen is None:
            raise Invalid("There is no such person in this debate.")
        return chosen

    def _free_for(self, seat: Seat) -> None:
        if seat.holder is not None:
            raise Conflict(f"{seat.agent}'s seat is held by {seat.holder.name}; free it first.")

    def _give(self, seat: Seat, person: Person, fallback: Fallback | str | None) -> None:
        """The host seats ``person`` in ``seat``: refused when the seat is held or the person holds one."""
        self._free_for(seat)
        if person.seat is not None:
            raise Conflict(f"{person.name} already holds {person.seat}'s seat.")
        if fallback is not None:
            seat.fallback = Fallback(fallback)
        self._sit(seat, person)

    def _sit(self, seat: Seat, person: Person) -> None:
        seat.state, seat.holder, person.seat = SeatState.HELD, person, seat.agent
        person.hand_at = person.hand_seat = None
        person.seen, person.left_at = self._clock(), None
        seat.holding = len(self._holdings)
        self._holdings.append(
            SeatHolding(agent=seat.agent, role=seat.role, name=person.name, from_turn=self.turn, since=self._wall())
        )
        self._dirty = True
        self._change(seat, f"{person.name} took the seat")

    def _end_holding(self, seat: Seat, ended: HoldingEnd, then: Fallback | None) -> None:
        if seat.holding is not None:
            held = self._holdings[seat.holding]
            update = {"to_turn": self.turn, "until": max(held.since, self._wall()), "ended": ended, "then": then}
            self._holdings[seat.holding] = held.model_copy(update=update)
        seat.holding = None

    def _unsit(self, seat: Seat, ended: HoldingEnd, after: SeatState) -> None:
        holder = seat.holder
        assert holder is not None
        self._end_holding(seat, ended, seat.fallback)
        holder.seat = None
        seat.holder, seat.state = None, after
        self._dirty = True
        self._change(seat, f"{holder.name} {ended.value}")

    def _expire(self) -> None:
        now = self._clock()
        for seat in self._seats.values():
            holder = seat.holder
            away = None if holder is None else holder.away_since(now, self.away_after_s)
            if holder is not None and away is not None and now - away >= self.grace_s and not self.closed:
                then = "a model took it" if seat.fallback is Fallback.MODEL else "its turns pass"
                holder.notice = (
                    f"You were away for more than {self.grace_s:.0f} s: {seat.agent}'s seat is open, {then}."
                )
                self._unsit(seat, HoldingEnd.AWAY, SeatState.OPEN)

    def _change(self, seat: Seat, why: str) -> None:
        holder = seat.holder.name if seat.holder is not None and seat.acting is Acting.PERSON else None
        self._changes.append(SeatChange(seat.agent, seat.acting, holder, why))

    def _record(self) -> ClassroomRecord:
        return ClassroomRecord(debate_id=self.debate_id, seats=tuple(self._holdings), polls=self._polls.results())
