"""A live debate's classroom, wired: the room decides who acts for each seat, the debate follows; the debate's
progress moves the room.

What it does: ``open_classroom(live, store)`` creates the ``Room`` of a
``LiveSession`` that is about to start (every seat of it one people may come
and go from: ``LiveSession(shared=...)``): the person who started it is the
host (their token becomes the session's owner token, so the page's existing
check of the debate's controls is the host's), sitting in their seat if they
chose one. From then on:

* every change of who acts for a seat (``SeatChange``: a person took it, the
  host freed it, a person's grace period lapsed) moves the debate's seat
  (``LiveSession.seat_person`` / ``free_seat``);
* every event tells the room the debate's turn (``advance``); the start of
  the debate and every round or phase opens a poll of the answer options
  (``poll_key``), which closes the one before;
* when the debate's thread ends the room closes (its join code expires) and
  its record (who held which seat, each poll's tally; display names only) is
  stored with the transcript (``Store.save_classroom``).

``classroom_of(debate_id)`` finds a live debate's classroom (also after it
ended, while the server runs); ``seat_of(live, token)`` is the seat a
request's token holds, from the room alone (never from the page).

What it does not do: draw anything or know Gradio (``classroom_panel``), or
check a request's right to act (the room's methods do, with the token the
request brought).
"""

from __future__ import annotations

import threading
from typing import Any

from debate_core.events import DebateStarted, Event, PhaseStarted
from debate_core.log import logger
from ui.classroom import ClassroomError, ClassroomRecord, Room, SeatChange, poll_key
from ui.classroom.people import Acting
from ui.classroom.room import DEFAULT_GRACE_S
from ui.session import LiveSession

_CLASSROOMS: dict[str, Classroom] = {}
_LOCK = threading.Lock()
MAX_KEPT = 256  # ended classrooms kept for their pages (the newest); the store keeps their records


class Classroom:
    """One live debate and its room."""

    def __init__(self, live: LiveSession, room: Room, store: Any) -> None:
        self.live, self.room, self.store = live, room, store
        self.record: ClassroomRecord | None = None  # the final record, once the debate has ended

    def follow(self, change: SeatChange) -> None:
        """Move the debate's seat as the room says (the room calls this outside its lock)."""
        if change.agent not in self.live.people:
            return
        if change.acting is Acting.PERSON:
            self.live.seat_person(change.agent)
        else:
            self.live.free_seat(change.agent, change.acting.value)

    def on_event(self, event: Event) -> None:
        """The debate moved on: the room learns its turn; a new round or phase opens its poll."""
        self.room.advance(event.turn)
        if isinstance(event, DebateStarted | PhaseStarted):
            labels = self.live.view.labels
            if not labels:
                return  # a free-form question: nothing to vote on
            key = poll_key(event.phase, event.round) if isinstance(event, PhaseStarted) else poll_key(None)
            label = f"Which answer? ({key})"
            try:
                self.room.open_poll(key, labels, label=label)
            except ClassroomError as error:  # a key the protocol used twice: the poll before stays the one
                logger.info("debate %s: poll %r not opened: %s", self.live.debate_id, key, error)

    def finish(self) -> None:
        """The debate ended: close the room and store its record with the transcript."""
        self.record = self.room.close()
        if self.store is None:
            return
        try:
            self.store.save_classroom(self.live.debate_id, self.record.model_dump(mode="json"))
        except KeyError:  # the debate never reached the store (stopped while its model loaded)
            logger.info("debate %s: no transcript to keep its classroom with", self.live.debate_id)


def open_classroom(live: LiveSession, store: Any = None, *, grace_s: float = DEFAULT_GRACE_S) -> tuple[Classroom, str]:
    """The room of ``live`` (not started yet) and the host's token (for the host's browser only)."""
    if live.version or live.status != "starting":
        raise RuntimeError("a classroom opens before its debate starts")
    roles = {agent.name: agent.role for agent in live.debate.config.agents}
    holder: dict[str, Classroom] = {}

    def follow(change: SeatChange) -> None:
        holder["classroom"].follow(change)

    room, token = Room.create(live.debate_id, roles, host_seat=live.human, grace_s=grace_s, on_change=follow)
    classroom = holder["classroom"] = Classroom(live, room, store)
    live.owner_token = token  # the host's token holds the debate's controls
    live.listeners.append(classroom.on_event)
    live.finishers.append(classroom.finish)
    with _LOCK:
        _CLASSROOMS[live.debate_id] = classroom
        while len(_CLASSROOMS) > MAX_KEPT:
            oldest = next(iter(_CLASSROOMS))
            if not _CLASSROOMS[oldest].room.closed:
                break
            del _CLASSROOMS[oldest]
    return classroom, token


def classroom_of(debate_id: str | None) -> Classroom | None:
    with _LOCK:
        return _CLASSROOMS.get(debate_id or "")


def seat_of(live: LiveSession, token: object) -> str | None:
    """The seat ``token`` holds in ``live``'s room (None: none, or no room); without a room, the starter's seat
    for the owner's token (a debate started without a classroom)."""
    classroom = classroom_of(live.debate_id)
    if classroom is None:
        return live.human if live.owned_by(token) else None
    if classroom.room.closed:
        return None
    return classroom.room.identify(token).seat
