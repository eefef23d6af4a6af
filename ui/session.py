"""A live debate in the background: pacing, controls, a seated person's live controls, push updates.

What it does: ``LiveSession`` runs one ``Debate`` in its own thread, records
every event in the store (when one is given), folds events into a
``DebateView`` the page renders, and paces the debate (after each disclosed
unit, silent turn or intervention it waits ``pace_s`` seconds); it can be
paused, resumed, advanced one turn at a time, or stopped (at once: a
generation in flight is cancelled). Every change bumps ``version`` and wakes
whoever waits in ``wait_for_change``: the page streams updates as they
happen instead of polling.

A seated person sits in a *live* seat: the debate never waits for their
plan, it takes their standing stance (``press``: a button of their live
controls, as its ``web_plugins.Press`` declares; ``interrupt``,
``raise_hand``, ``lower_hand``, ``point``, ``choose_answer``), and waits
only for their words (their initial answer, their utterance when they hold
the floor, a vote), for at most ``human_timeout_s`` when given.
``controls`` names the live-control set their role stands by with (as the
protocol's ``controls_for`` names it, or ``none``); ``seat_state`` says
where their intent stands,
followed through the events by ``seat_state.follow``: listening, armed
(interrupt pressed), hand raised, queued, won the floor, lost it to a more
urgent agent, speaking, cut off, point armed or raised, or interrupted
someone (a moderator's Interrupt that fired, after which they listen
again).

Who may act: a session is created with a secret, unguessable ``owner_token``
(``secrets.token_urlsafe``); ``owned_by(token)`` compares a request's token
with it in constant time. The page's handlers check it before every control
(``ui.page_access``); the methods here are the in-process interface and
trust their caller.

The backend is built from the set-up's choices by ``backend_choice``
(``backend_for``, re-exported here). Every model the seats use is loaded
before the debate starts (the status says which), a llama.cpp server any of
them started stops with the debate, and the view is told which model sits
in each seat when they differ (``seat_models``, for the question card).

Sessions are kept by debate id (``find``) so a reloaded page can re-attach.
Pages ``attach`` and ``detach`` by a key of their own, saying whether they
hold the controls; when the last controlling page is gone, a session nobody
re-attaches to with the token within ``grace_s`` is stopped, so no debate
runs on with nobody able to pause or stop it. Watching pages neither keep a
debate alive nor stop it.

What it does not do: draw anything (``render``, ``charts``) or know Gradio.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from debate_core import Debate, DebateConfig, HumanChannel, HumanSeat
from debate_core.backends.base import Backend
from debate_core.backends.router import BackendRouter
from debate_core.errors import BackendError, DebateError
from debate_core.events import Event, Intervention, SilentTurn, UnitDisclosed
from debate_core.kernel import Acting, HandOverSeat
from debate_core.kernel.seats import Seat, model_seat
from debate_core.log import logger
from ui.backend_choice import EMBEDDED, EMBEDDED_LLAMACPP, SCRIPTED, SERVER, backend_for
from ui.seat_state import follow
from ui.view_model import DebateView
from ui.web_plugins import Press

PACED = (UnitDisclosed, SilentTurn, Intervention)
DEFAULT_GRACE_S = 60.0
MAX_URGENCY = 9
MAX_POINT_CHARS = 1_000  # the decision form's limit on a point
__all__ = ["EMBEDDED", "EMBEDDED_LLAMACPP", "SCRIPTED", "SERVER", "LiveSession", "backend_for", "find"]

_SESSIONS: dict[str, LiveSession] = {}
_SESSIONS_LOCK = threading.Lock()


def find(debate_id: str) -> LiveSession | None:
    """The running (or just finished) session of a debate, for a page that re-attaches."""
    with _SESSIONS_LOCK:
        return _SESSIONS.get(debate_id)


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


def seat_models(debate: Debate) -> dict[str, str]:
    """Which model sits in each model's seat (by agent), when the seats are served by more than one."""
    found = {
        agent.name: debate.router.backend_for(agent.name, agent.role).model_id
        for agent in debate.config.agents
        if agent.seat.value != "human"
    }
    return found if len(set(found.values())) > 1 else {}


def _loads_lazily(backend: Backend) -> bool:
    """Whether the backend has a model still to load (checked on the class: touching ``loaded`` loads it)."""
    return isinstance(getattr(type(backend), "loaded", None), property)


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


class LiveSession:
    """One running debate and its controls; every method is thread-safe."""

    def __init__(
        self,
        config: DebateConfig,
        backend: Backend | BackendRouter,
        *,
        store: Any = None,
        human: str | None = None,
        human_timeout_s: float | None = None,
        pace_s: float = 0.0,
        grace_s: float = DEFAULT_GRACE_S,
        shared: Iterable[str] = (),
    ) -> None:
        """``human``: the seat the person who starts the debate sits in (None: they only watch and steer);
        ``shared``: the seats people may come and go from (a classroom: ``seat_person``, ``free_seat``); a model
        acts in each until a person sits (``human`` sits in its own from the start, when it is one of them)."""
        self.config = config
        self.backend = backend.default if isinstance(backend, BackendRouter) else backend
        self.backends = backend.backends if isinstance(backend, BackendRouter) else (backend,)  # loaded up front
        self.store = store
        self.human = human
        shared_agents = tuple(dict.fromkeys(shared))
        debate_id = uuid.uuid4().hex
        seats: dict[str, Seat] = {}
        channels: dict[str, HumanChannel | None] = {}
        for agent in shared_agents:
            spec = config.agent(agent)
            channel = HumanChannel() if agent == human else None
            seats[agent] = HandOverSeat(
                agent, model_seat(config, agent, debate_id), kind=spec.seat, timeout_s=human_timeout_s,
                acting=Acting.PERSON if channel is not None else Acting.MODEL, channel=channel,
            )  # fmt: skip
            channels[agent] = channel
        if human and human not in seats:
            mine = channels[human] = HumanChannel()
            seats[human] = HumanSeat(human, mine, timeout_s=human_timeout_s, live=True)
        self.debate = Debate(config, backend, seats=seats, debate_id=debate_id)
        # which live controls each person stands by with: floor (plans), point (a point or a question),
        # interrupt (a yes/no after each chunk: a moderator's cut), none
        self.people: dict[str, PersonSeat] = {
            agent: PersonSeat(
                agent,
                self.debate.protocol.controls_for(self.debate.config.agent(agent).role),
                seat if isinstance(seat, HandOverSeat) else None,
                channels.get(agent),
            )
            for agent, seat in seats.items()
        }
        self.pace_s = pace_s
        self.grace_s = grace_s
        # told of every event after the view has it, from the debate's thread (a classroom's room: turns, polls)
        self.listeners: list[Callable[[Event], object]] = []
        self.finishers: list[Callable[[], object]] = []  # called once the debate's thread ends, however it ends
        self.lock = threading.RLock()
        self.view = DebateView(seat_models=seat_models(self.debate))
        self.status = "starting"
        self.error: str | None = None
        self.owner_token = secrets.token_urlsafe(32)  # held by the page that started the debate, never shown
        self.version = 0
        self.started_at = time.time()
        self._changed = threading.Condition(self.lock)
        self._go = threading.Event()
        self._go.set()
        self._step_once = False
        self._stopping = False
        self._orphan_timer: threading.Timer | None = None
        self._controlling: set[object] = set()  # the attached pages that hold the controls (by identity)
        self.held_at: int | None = None  # while paused: how many events had been shown
        self._loading_since: float | None = None
        self._tokens_at_event = 0
        self._thread = threading.Thread(target=self._run, name=f"debate-{self.debate.debate_id[:8]}", daemon=True)

    @property
    def debate_id(self) -> str:
        return self.debate.debate_id

    @property
    def done(self) -> bool:
        """The debate has ended (or was stopped while its model was still loading: it never starts)."""
        if self._stopping and self._loading_since is not None:
            return True
        return not self._thread.is_alive() and self.status not in ("starting",)

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

    def activity(self) -> str:
        """What the debate is busy with right now, for the status line: loading (how long), generating (tokens)."""
        if self.done:
            return ""
        if self._loading_since is not None:
            return f"{time.monotonic() - self._loading_since:.0f} s"
        generated = self.debate.table.cancel.tokens - self._tokens_at_event
        return f"generating, {generated} tokens so far" if generated > 0 else ""

    def start(self) -> LiveSession:
        with _SESSIONS_LOCK:
            _SESSIONS[self.debate_id] = self
        self._thread.start()
        return self

    # -- push -----------------------------------------------------------------------
    def _bump(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def wait_for_change(self, seen: int, timeout: float) -> int:
        """Block until ``version`` differs from ``seen`` (or ``timeout`` passes); returns it."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != seen, timeout=timeout)
            return self.version

    # -- controls ----------------------------------------------------------------
    def pause(self) -> None:
        with self.lock:
            if not self.done:
                self._go.clear()
                self.status = "paused"
        self._bump()

    def resume(self) -> None:
        with self.lock:
            self._step_once = False
            if not self.done:
                self.status = "running"
            self._go.set()
        self._bump()

    def step(self) -> None:
        """Run one more turn, then pause."""
        with self.lock:
            self._step_once = True
            if not self.done:
                self.status = "running one turn"
            self._go.set()
        self._bump()

    def stop(self) -> None:
        """End the debate now: a generation in flight is cancelled, a person's wait is ended."""
        with self.lock:
            self._stopping = True
            if self._loading_since is not None:
                self.status = "stopped before the model had loaded"
            elif not self.done:
                self.status = "stopping"
            self.debate.stop()
            self._go.set()
        self._bump()

    def set_pace(self, seconds: float) -> None:
        self.pace_s = max(0.0, float(seconds))

    def nudge(self) -> None:
        """Wake every page's stream without a change to the debate (a page changed its own display)."""
        self._bump()

    def owned_by(self, token: object) -> bool:
        """Whether ``token`` is this debate's owner token (a constant-time comparison; anything else is False)."""
        if not isinstance(token, str) or not token:
            return False
        return hmac.compare_digest(token.encode("utf-8"), self.owner_token.encode("utf-8"))

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

    # -- pages come and go --------------------------------------------------------------
    def attach(self, page: object, *, controls: bool) -> None:
        """A page shows this session; one that holds the controls cancels any pending orphan stop."""
        if not controls:
            return
        with self.lock:
            self._controlling.add(page)
            if self._orphan_timer is not None:
                self._orphan_timer.cancel()
                self._orphan_timer = None

    def detach(self, page: object) -> None:
        """A page went away (again harmless): when no controlling page is left, stop the debate unless one
        re-attaches within ``grace_s``."""
        with self.lock:
            if page not in self._controlling:
                return
            self._controlling.discard(page)
            if self._controlling or self.done or self._orphan_timer is not None:
                return
            self._orphan_timer = threading.Timer(self.grace_s, self._orphaned)
            self._orphan_timer.daemon = True
            self._orphan_timer.start()

    def _orphaned(self) -> None:
        logger.info("debate %s has no page with its controls: stopping it", self.debate_id)
        self.stop()

    # -- the thread ----------------------------------------------------------------
    def _run(self) -> None:
        try:
            for backend in filter(_loads_lazily, self.backends):  # every seat's model, each in turn
                with self.lock:
                    self.status = f"loading {backend.model_id} (the first use converts it, about 20 s)"
                    self._loading_since = time.monotonic()
                self._bump()
                try:
                    backend.loaded  # type: ignore[attr-defined]  # noqa: B018 - load now, with the status showing
                finally:
                    self._loading_since = None
                if self._stopping:
                    break
            if self._stopping:
                with self.lock:
                    self.status = "stopped before the model had loaded"
                return
            with self.lock:
                if self.status.startswith(("starting", "loading")):
                    self.status = "running"
            self._bump()
            events = self.debate.events()
            if self.store is not None:
                events = self.store.record(events)
            for event in events:
                with self.lock:
                    self.view.apply(event)
                    self._track(event)
                    self._tokens_at_event = self.debate.table.cancel.tokens
                for listener in self.listeners:
                    listener(event)
                self._bump()
                if isinstance(event, PACED):
                    self._pace()
            with self.lock:
                ended = self.view.ended
                self.status = f"ended ({ended.reason.value})" if ended else "ended"
        except (BackendError, DebateError) as error:
            logger.warning("debate %s failed: %s", self.debate_id, error)
            with self.lock:
                self.error = str(error)
                self.status = "failed"
        except Exception as error:  # shown in the page; the recorder marked the debate failed
            logger.exception("debate %s crashed", self.debate_id)
            with self.lock:
                self.error = f"{type(error).__name__}: {error}"
                self.status = "failed"
        finally:
            for held in self.people.values():
                if held.channel is not None:
                    held.channel.close()
            for backend in self.backends:
                if getattr(backend, "owns_server", False):
                    backend.close()  # a llama.cpp server started for this debate stops with it
            for finish in self.finishers:
                try:
                    finish()
                except Exception:  # the debate has ended either way; a finisher's failure is its own
                    logger.exception("debate %s: a finisher failed", self.debate_id)
            self._bump()

    def _pace(self) -> None:
        if self._step_once:
            with self.lock:
                self._step_once = False
                if not self._stopping:
                    self._go.clear()
                    self.status = "paused"
            self._bump()
        deadline = time.monotonic() + self.pace_s
        while not self._stopping:
            if not self._go.is_set():  # paused: wait, and do not count the pause as pacing
                self.held_at = self.view.events
                self._go.wait(0.2)
                deadline = max(deadline, time.monotonic())
                continue
            self.held_at = None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            time.sleep(min(remaining, 0.1))
