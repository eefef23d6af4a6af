"""One live debate's classroom: the host, the seats people hold, the audience, their polls and hands.

What it does: ``Room.create`` opens a room for a debate (its agents and their
protocol roles) and gives back the host's token, which only the host's
browser holds. Every request a page makes brings the token its browser holds
(or none) and the room decides from that alone (``authorize``, and every
method that takes a token): the audience watches, and once joined under a
display name (``join``) may vote in the open poll and raise a hand; a seated
person may use only their own seat's controls and form; only the host's token
paces the debate, opens, assigns and frees seats and closes polls. A forged
request, without a token or with a wrong one, raises ``Forbidden``; nothing
from the page is trusted. Tokens are kept as digests and never logged.

Seats: a model sits in each until the host opens it (``open_seat``); a person
takes an open seat (``take_seat``: one person per seat, one seat per person) or
the host gives it (``assign``: to anyone who joined, by public id; ``grant``: a
raised hand the seat it asks for); the host frees it
(``free_seat``: a model takes it, or it stays open and its turns pass). A
browser that reloads re-attaches with its token (``attach``, ``heartbeat``); a
person whose page went away (``disconnect``) or stopped sending heartbeats for
``away_after_s`` keeps the seat for ``grace_s``, then the seat falls back to
its ``fallback``. Time comes from an injected ``clock`` (monotonic) and
``wall`` (for records), so tests need no sleep; lapsed grace periods are
applied at every call (call ``tick`` about once a second to apply them
without one). Each change of who acts for a seat is passed to ``on_change``
(outside the lock) as a ``SeatChange``, and every change bumps ``version``
(``wait_for_change``). What happened is kept as records (``record``).

What it does not do: run or pace the debate, or know any front end: the
wiring checks ``authorize`` before it calls ``LiveSession``, and tells the
room of the debate's turns (``advance``), its polls (``open_poll``) and its end
(``close``). Thread-safe: one lock per room.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping

from ui.classroom.core import DEFAULT_AWAY_AFTER_S, DEFAULT_GRACE_S, RoomCore
from ui.classroom.names import clean_name
from ui.classroom.people import Acting, MemberView, SeatChange, SeatState, SeatView
from ui.classroom.records import ClassroomRecord, Fallback, HoldingEnd, PollResult
from ui.classroom.roles import WATCHER, Action, Conflict, Forbidden, Identity, Invalid, Role
from ui.classroom.rooms import ROOMS, Rooms
from ui.classroom.tokens import new_token

__all__ = ["DEFAULT_AWAY_AFTER_S", "DEFAULT_GRACE_S", "Room"]


class Room(RoomCore):
    """One debate's classroom; build it with ``Room.create``. Every method is thread-safe."""

    @classmethod
    def create(
        cls,
        debate_id: str,
        seats: Mapping[str, str | None],
        *,
        host_name: str = "Host",
        host_seat: str | None = None,
        open_seats: Iterable[str] = (),
        rooms: Rooms | None = None,
        fallback: Fallback | str = Fallback.MODEL,
        grace_s: float = DEFAULT_GRACE_S,
        away_after_s: float = DEFAULT_AWAY_AFTER_S,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        on_change: Callable[[SeatChange], object] | None = None,
    ) -> tuple[Room, str]:
        """A new room for ``debate_id`` and the host's token (for the host's browser only, never shown).

        ``seats``: each agent's protocol role (None for a protocol without roles). ``host_seat``: the seat
        the host sits in from the start; ``open_seats``: seats open to people from the start; ``rooms``: the
        registry that keeps join codes unique (default: the server's ``ROOMS``). The rest: see ``RoomCore``.
        """
        registry = ROOMS if rooms is None else rooms
        token = new_token()

        def build(code: str) -> Room:
            room = cls(
                debate_id, code, seats, fallback=Fallback(fallback), grace_s=grace_s, away_after_s=away_after_s,
                clock=clock, wall=wall, rooms=registry, on_change=on_change,
            )  # fmt: skip
            host = room._new_person(token, host_name, host=True)
            for agent in open_seats:
                room._seat(agent).state = SeatState.OPEN
            if host_seat is not None:
                room._sit(room._seat(host_seat), host)
            room._changes.clear()
            return room

        return registry.add(debate_id, build), token

    # -- who is asking ---------------------------------------------------------------------------
    def authorize(self, token: object, action: Action, agent: str | None = None) -> Role:
        """The role ``token`` acts in for ``action`` (on ``agent``'s seat, for a seat's action), or ``Forbidden``."""
        try:
            asked = Action(action)
        except ValueError:
            raise Invalid("There is no such action.") from None
        with self._guarded():
            return self._check(token, asked, agent)[0]

    def identify(self, token: object) -> Identity:
        """Who ``token`` makes a page (a watcher for no token, a wrong one, or one of a closed room)."""
        with self._guarded():
            return self._identity(self._person(token))

    def attach(self, token: object) -> Identity:
        """A page (re)opened or is still there: mark it connected; who it is, with any notice (said once)."""
        with self._guarded():
            person = self._person(token)
            if person is None:
                return WATCHER
            if person.left_at is not None or person.away_since(self._clock(), self.away_after_s) is not None:
                self._dirty = True  # back: the host's roster shows it connected again
            person.seen, person.left_at = self._clock(), None
            identity = self._identity(person)
            person.notice = ""
            return identity

    heartbeat = attach

    def disconnect(self, token: object) -> None:
        """The page of ``token`` went away (unload, closed stream): its seat's grace period starts now."""
        with self._guarded():
            person = self._person(token)
            if person is not None and person.left_at is None:
                person.left_at = self._clock()
                self._dirty = True

    # -- joining and seats ---------------------------------------------------------------------------
    def join(self, display_name: object) -> str:
        """Join the audience under ``display_name``: a token to vote and raise a hand with."""
        with self._guarded(mutating=True):
            token = new_token()
            self._new_person(token, display_name)
            return token

    def take_seat(self, agent: str, display_name: object = None, token: object = None) -> str:
        """Take ``agent``'s seat, which the host opened: the token that now holds it.

        With ``token`` (an audience member's or the host's) that person sits and keeps the token; without
        one a new person joins under ``display_name`` and gets a fresh token.
        """
        with self._guarded(mutating=True):
            seat = self._seat(agent)
            person = None
            if token is not None:
                person = self._person(token)
                if person is None:
                    raise Forbidden("This page's key is not valid in this debate; join it again.")
                if person.seat is not None:
                    raise Conflict(f"You already hold {person.seat}'s seat; leave it first.")
            if seat.state is SeatState.MODEL:
                raise Forbidden(f"The host has not opened {agent}'s seat to people.")
            if seat.holder is not None:
                raise Conflict(f"{agent}'s seat is taken.")
            if person is None:
                name = clean_name(display_name)  # before any token is made
                token = new_token()
                person = self._new_person(token, name)
            self._sit(seat, person)
            return str(token)

    def leave_seat(self, token: object) -> None:
        """The seated person gives their seat up: it stays open, and its fallback acts for it."""
        with self._guarded(mutating=True):
            _, person = self._check(token, Action.LEAVE_SEAT, None)
            assert person is not None and person.seat is not None
            self._unsit(self._seats[person.seat], HoldingEnd.LEFT, SeatState.OPEN)

    def open_seat(self, host_token: object, agent: str, fallback: Fallback | str | None = None) -> None:
        """Open ``agent``'s seat to people (host only); ``fallback``: what acts for it while nobody holds it."""
        with self._guarded(mutating=True):
            self._check(host_token, Action.OPEN_SEAT, None)
            seat = self._seat(agent)
            before = seat.acting
            if fallback is not None:
                seat.fallback = Fallback(fallback)
            if seat.state is SeatState.MODEL:
                seat.state = SeatState.OPEN
            self._dirty = True
            if seat.acting is not before:
                self._change(seat, "the host opened the seat")

    def assign(
        self,
        host_token: object,
        agent: str,
        *,
        person: str | None = None,
        display_name: object = None,
        fallback: Fallback | str | None = None,
    ) -> str | None:
        """Seat someone in ``agent``'s seat (host only; the seat must be free).

        ``person``: a joined person's public id (a raised hand): their own token now holds the seat, and
        None is returned. Else a new person named ``display_name`` sits, and their fresh token is returned
        for the host to hand over.
        """
        with self._guarded(mutating=True):
            self._check(host_token, Action.ASSIGN, None)
            seat = self._seat(agent)
            if person is not None:
                self._give(seat, self._joined(person), fallback)
                return None
            self._free_for(seat)
            name = clean_name(display_name)
            token = new_token()
            self._give(seat, self._new_person(token, name), fallback)
            return token

    def grant(self, host_token: object, person: str, agent: str | None = None) -> str:
        """The host turns a raised hand into a seat: the seat the hand asks for, else ``agent``; the seat given.

        The person's own token (in their browser only) now holds it, as with ``assign(person=...)``.
        """
        with self._guarded(mutating=True):
            self._check(host_token, Action.ASSIGN, None)
            chosen = self._joined(person)
            if chosen.hand_at is None:
                raise Conflict(f"{chosen.name}'s hand is not up.")
            wanted = chosen.hand_seat or agent
            if wanted is None:
                raise Invalid(f"{chosen.name} asks for any seat: pick the seat to give.")
            seat = self._seat(wanted)
            self._give(seat, chosen, None)
            return seat.agent

    def free_seat(self, host_token: object, agent: str, fallback: Fallback | str = Fallback.MODEL) -> None:
        """Take ``agent``'s seat from whoever holds it (host only): ``model`` hands it back to a model (closed
        to people until reopened); ``pass`` keeps it open, its turns let pass until someone takes it."""
        with self._guarded(mutating=True):
            self._check(host_token, Action.FREE_SEAT, None)
            seat = self._seat(agent)
            before = seat.acting
            seat.fallback = Fallback(fallback)
            after = SeatState.MODEL if seat.fallback is Fallback.MODEL else SeatState.OPEN
            if seat.holder is not None:
                seat.holder.notice = f"The host freed {agent}'s seat; you are in the audience now."
                self._unsit(seat, HoldingEnd.FREED, after)
                return
            seat.state, self._dirty = after, True
            if seat.acting is not before:
                self._change(seat, "the host freed the seat")

    def acting(self, agent: str) -> Acting:
        """Who acts for ``agent``'s seat now: its person (also while away within the grace), a model, or nobody."""
        with self._guarded():
            return self._seat(agent).acting

    def tick(self) -> None:
        """Apply lapsed grace periods now (every call does; this is for when nothing else calls)."""
        with self._guarded():
            pass

    # -- the audience ----------------------------------------------------------------------------
    def raise_hand(self, token: object, seat: str | None = None) -> None:
        """An audience member asks for a seat (``seat``: the one they would like, if any)."""
        with self._guarded(mutating=True):
            _, person = self._check(token, Action.RAISE_HAND, None)
            assert person is not None
            if seat is not None:
                self._seat(seat)
            if person.hand_at is None:
                person.hand_at = self._clock()
            person.hand_seat = seat
            self._dirty = True

    def lower_hand(self, token: object) -> None:
        with self._guarded(mutating=True):
            _, person = self._check(token, Action.LOWER_HAND, None)
            assert person is not None
            person.hand_at, person.hand_seat = None, None
            self._dirty = True

    def open_poll(self, key: str, choices: Iterable[str], label: str = "") -> PollResult:
        """Open the poll of a round or phase (the debate's progress does, not a page); closes the one before."""
        with self._guarded(mutating=True):
            self._dirty = True
            return self._polls.open(key, list(choices), label=label, turn=self.turn, at=self._wall())

    def close_poll(self, key: str | None = None) -> PollResult | None:
        """Close a poll (None: the open one); votes for it are refused from now on."""
        with self._guarded():
            self._dirty = True
            return self._polls.close(key, turn=self.turn, at=self._wall())

    def end_poll(self, host_token: object, key: str | None = None) -> PollResult | None:
        """The host closes a poll early."""
        with self._guarded(mutating=True):
            self._check(host_token, Action.CLOSE_POLL, None)
            self._dirty = True
            return self._polls.close(key, turn=self.turn, at=self._wall())

    def vote(self, token: object, key: str, choice: object) -> PollResult:
        """An audience member's vote in the open poll ``key`` (a second vote replaces the first)."""
        with self._guarded(mutating=True):
            _, person = self._check(token, Action.VOTE, None)
            assert person is not None
            self._dirty = True
            return self._polls.vote(person.id, key, choice)

    def my_vote(self, token: object, key: str) -> str | None:
        with self._guarded():
            person = self._person(token)
            return None if person is None else self._polls.vote_of(person.id, key)

    def tally(self, key: str | None = None) -> PollResult | None:
        """A poll's result so far (None: the open one; None when no poll is open)."""
        with self._guarded():
            key = self._polls.current if key is None else key
            return None if key is None else self._polls.result(key)

    # -- what the host sees -----------------------------------------------------------------------
    def roster(self) -> tuple[SeatView, ...]:
        """Every seat: who acts for it, who holds it, whether they are connected, how much grace is left."""
        with self._guarded():
            now = self._clock()
            views = []
            for seat in self._seats.values():
                holder = seat.holder
                away = None if holder is None else holder.away_since(now, self.away_after_s)
                views.append(
                    SeatView(
                        seat.agent, seat.role, seat.state, seat.acting, seat.fallback,
                        holder=holder.name if holder else None, holder_id=holder.id if holder else None,
                        connected=None if holder is None else away is None,
                        grace_left_s=None if away is None else max(0.0, self.grace_s - (now - away)),
                    )
                )  # fmt: skip
            return tuple(views)

    def members(self) -> tuple[MemberView, ...]:
        """Everyone who joined, in the order they joined."""
        with self._guarded():
            return tuple(self._member(p) for p in self._people.values())

    def hands(self) -> tuple[MemberView, ...]:
        """The raised hands, first raised first."""
        with self._guarded():
            up = sorted((p for p in self._people.values() if p.hand_at is not None), key=lambda p: p.hand_at or 0)
            return tuple(self._member(p) for p in up)

    # -- the debate's progress -------------------------------------------------------------------
    def advance(self, turn: int) -> None:
        """The debate reached ``turn`` (records say from which turn to which a seat was held, a poll open)."""
        with self._guarded():
            self.turn = max(self.turn, int(turn))

    def close(self) -> ClassroomRecord:
        """The debate ended: holdings end, the open poll closes, the join code expires; the final record."""
        with self._guarded():
            if not self.closed:
                for seat in self._seats.values():
                    if seat.holder is not None:
                        self._end_holding(seat, HoldingEnd.ENDED, None)
                self._polls.close(None, turn=self.turn, at=self._wall())
                self.closed, self._dirty = True, True
                if self._rooms is not None:
                    self._rooms.release(self)
            return self._record()

    def record(self) -> ClassroomRecord:
        """Who held which seat and every poll's result so far (display names only)."""
        with self._guarded():
            return self._record()

    def join_path(self) -> str:
        return f"?join={self.join_code}"

    def join_link(self, base_url: str) -> str:
        """The link to put on the projector: the server's address and the join code."""
        return f"{base_url.rstrip('/')}/{self.join_path()}"

    def __repr__(self) -> str:
        return f"Room({self.debate_id!r}, seats={list(self._seats)}, people={len(self._people)})"
