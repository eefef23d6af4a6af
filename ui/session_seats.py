"""The seats of a live debate that people sit in: each one's channel, badge and live controls.

What it does: ``PersonSeat`` is one seat a person may sit in (the one-person
debate's, held by its starter throughout, or a seat people come and go from,
a ``HandOverSeat``) with the live state of the person in it: their channel,
where their intent stands (``seat_state.follow``) and the urgency they last
chose. ``SeatsMixin`` gives ``LiveSession`` its seat methods: the one-person
API (``channel``, ``controls``, ``seat_state``, ``stance_urgency``: the
starter's seat), ``seat_person`` and ``free_seat`` (a person sits down, or
a model or nobody acts from the next request on), and every live control
(``press``, ``interrupt``, ``raise_hand``, ``lower_hand``, ``point``,
``choose_answer``) addressed to a seat by ``agent`` (None: the starter's).

What it does not do: check who may act (``page_access``, the classroom's
room), run the debate (``session``) or draw anything.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from debate_core import HumanChannel
from debate_core.events import Event
from debate_core.kernel import Acting, HandOverSeat
from ui.seat_state import follow
from ui.web_plugins import Press

MAX_URGENCY = 9
MAX_POINT_CHARS = 1_000  # the decision form's limit on a point


def _urgency(value: Any) -> int:
    """An urgency from the page, kept within 0-9 (the maximum when it is not a number)."""
    try:
        return min(MAX_URGENCY, max(0, int(value)))
    except (TypeError, ValueError):
        return MAX_URGENCY


def _point_words(text: object) -> tuple[str, str]:
    """A point's words, on one line, and why they are refused ("" when they are not)."""
    words = " ".join(str(text or "").split())
    if not any(ch.isalnum() for ch in words):
        return words, "Say your point in a sentence first."
    if len(words) > MAX_POINT_CHARS:
        return words, f"Your point is {len(words):,} characters long; the limit is {MAX_POINT_CHARS:,}."
    return words, ""


@dataclass
class PersonSeat:
    """One seat a person may sit in, and the live state of the person in it (if any).

    ``shared``: the seat people come and go from (a classroom's, ``HandOverSeat``); None for the one-person
    debate's seat, which its person holds throughout. ``channel``: the channel of the person who sits there now
    (None: nobody; a model acts or the turns pass).
    """

    agent: str
    controls: str
    shared: HandOverSeat | None
    channel: HumanChannel | None
    state: str = "listening"
    urgency: int = MAX_URGENCY

    @property
    def acting(self) -> Acting:
        if self.shared is not None:
            return self.shared.acting
        return Acting.PERSON


class SeatsMixin:
    """The seat methods of ``LiveSession`` (see the module docstring); they use the session's lock and push."""

    people: dict[str, PersonSeat]
    human: str | None
    lock: threading.RLock

    @property
    def done(self) -> bool:
        raise NotImplementedError

    def _bump(self) -> None:
        raise NotImplementedError

    # -- the one-person API: the seat of the person who started the debate --------------------------
    def _mine(self) -> PersonSeat | None:
        return self.people.get(self.human) if self.human else None

    @property
    def channel(self) -> HumanChannel | None:
        """The channel of the person who started the debate, while they sit in their seat."""
        return self.channel_of(self.human)

    @property
    def controls(self) -> str:
        mine = self._mine()
        return mine.controls if mine is not None else "none"

    @property
    def seat_state(self) -> str:
        mine = self._mine()
        return mine.state if mine is not None else "listening"

    @property
    def stance_urgency(self) -> int:
        mine = self._mine()
        return mine.urgency if mine is not None else MAX_URGENCY

    # -- seats people come and go from ------------------------------------------------------------
    def channel_of(self, agent: str | None) -> HumanChannel | None:
        """The channel of the person in ``agent``'s seat now (None: nobody sits there, or no such seat)."""
        held = self.people.get(agent) if agent else None
        return held.channel if held is not None else None

    def seat_person(self, agent: str) -> HumanChannel:
        """A person sits in ``agent``'s shared seat from its next request on: their fresh channel (a person
        who sat there before is gone: their pending request was withdrawn)."""
        held = self._shared(agent)
        channel = HumanChannel()
        with self.lock:
            if self.done:
                channel.close()
            held.channel, held.state, held.urgency = channel, "listening", MAX_URGENCY
        assert held.shared is not None
        held.shared.to_person(channel)
        self._bump()
        return channel

    def free_seat(self, agent: str, fallback: str = "model") -> None:
        """Nobody sits in ``agent``'s shared seat from now on: ``model`` (its model acts) or ``pass`` (its turns
        pass); a request its person was asked falls back at once."""
        held = self._shared(agent)
        if fallback not in ("model", "pass"):
            raise ValueError(f"a freed seat falls back to 'model' or 'pass', not {fallback!r}")
        with self.lock:
            channel, held.channel, held.state = held.channel, None, "listening"
        assert held.shared is not None
        held.shared.to_model() if fallback == "model" else held.shared.to_pass()
        if channel is not None:
            channel.close()
        self._bump()

    def _shared(self, agent: str) -> PersonSeat:
        held = self.people.get(agent)
        if held is None or held.shared is None:
            raise KeyError(f"{agent!r} is not a seat people may come and go from in this debate")
        return held

    # -- a seated person's live controls (``agent``: whose seat; None: the starter's) -----------------------
    def _stance(self, state: str, agent: str | None = None, **values: Any) -> None:
        held = self.people.get(agent or self.human or "")
        if held is None or held.channel is None or self.done:
            return
        held.channel.set_stance(**values)
        with self.lock:
            held.state = state
        self._bump()

    def _urgency_of(self, agent: str | None, urgency: object) -> int:
        value = _urgency(urgency)
        held = self.people.get(agent or self.human or "")
        if held is not None:
            held.urgency = value
        return value

    def interrupt(self, urgency: int = MAX_URGENCY, *, agent: str | None = None) -> None:
        """Ask for the floor at the next boundary, cutting off whoever speaks."""
        self._stance("armed", agent, intent="interrupt", urgency=self._urgency_of(agent, urgency))

    def raise_hand(self, urgency: int = MAX_URGENCY, *, agent: str | None = None) -> None:
        """Ask to speak as soon as the floor is free."""
        self._stance("hand raised", agent, intent="raise", urgency=self._urgency_of(agent, urgency))

    def lower_hand(self, *, agent: str | None = None) -> None:
        self._stance("listening", agent, intent="listen", point=None)

    def point(self, text: str, *, agent: str | None = None) -> str:
        """Raise a point of information (or a question) with ``text``, at the next chunk boundary.

        Returns what the page should say: empty when armed, else why not.
        """
        words, refused = _point_words(text)
        if refused:
            return refused
        self._stance("point armed", agent, intent="interrupt", point=words)
        return ""

    def press(
        self, press: Press, urgency: object = MAX_URGENCY, text: object = None, *, agent: str | None = None
    ) -> str:
        """A live-control button (``web_plugins.Press``) of ``agent``'s seat (None: the starter's): set what it
        sets on the stance, show its seat state.

        ``urgency`` (bounded) for a button that takes it; ``text`` the point of a button that takes words.
        Returns what the page should say: empty when done, else why not (a point without words, too long).
        """
        values = dict(press.stance)
        if press.text:
            words, refused = _point_words(text)
            if refused:
                return refused
            values["point"] = words
        if press.urgency:
            values["urgency"] = self._urgency_of(agent, urgency)
        self._stance(press.state, agent, **values)
        return ""

    def choose_answer(self, answer: str | None, *, agent: str | None = None) -> None:
        channel = self.channel_of(agent or self.human)
        if channel is not None and answer:
            channel.set_stance(answer=answer)
            self._bump()

    def _track(self, event: Event) -> None:
        """Follow each seated person's intent through the debate's events (``seat_state.follow``)."""
        for held in self.people.values():
            if held.channel is None:
                continue
            held.state, spent = follow(held.state, held.agent, held.controls, event)
            if spent is not None:
                held.channel.set_stance(**spent)
            held.urgency = MAX_URGENCY
