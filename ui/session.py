"""A live debate in the background: pacing, controls, a seated person's live controls, push updates.

What it does: ``LiveSession`` runs one ``Debate`` in its own thread, records
every event in the store (when one is given), folds events into a
``DebateView`` the page renders, and paces the debate (after each disclosed
unit, silent turn or intervention it waits ``pace_s`` seconds); it can be
paused, resumed, advanced one turn at a time, or stopped (at once: a
generation in flight is cancelled). Every change bumps ``version`` and wakes
whoever waits in ``wait_for_change``: the page streams updates as they
happen instead of polling.

A seated person sits in a *live* seat (the seat methods are
``session_seats.SeatsMixin``'s; ``shared`` seats are ones people come and go
from, ``seat_person`` and ``free_seat`` move them): the debate never waits for their
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
before the debate starts (the status says which, or what starts:
llama.cpp's server), a llama.cpp server any of them started stops with the
debate, and the view is told which model sits in each seat when they differ (``seat_models``, for the question card).

Sessions are kept by debate id (``find``) so a reloaded page can re-attach.
Pages ``attach`` and ``detach`` by a key of their own, saying whether they
hold the controls; when the last controlling page is gone, a session nobody
re-attaches to with the token within ``grace_s`` is stopped, so no debate
runs on with nobody able to pause or stop it. Watching pages neither keep a
debate alive nor stop it.

``activity`` says what the debate is busy with (``ui.activity``): loading,
waiting for the seated person (for whom, for what), the model reading its
prompt, generating.

What it does not do: draw anything (``render``, ``charts``) or know Gradio.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from debate_core import Debate, DebateConfig, HumanChannel, HumanSeat
from debate_core.backends.base import Backend
from debate_core.backends.router import BackendRouter
from debate_core.errors import BackendError, DebateError
from debate_core.events import Event, Intervention, SilentTurn, UnitDisclosed
from debate_core.kernel import Acting, HandOverSeat
from debate_core.kernel.seats import Seat, model_seat
from debate_core.log import logger
from ui.activity import Activity, asked, loading_words
from ui.backend_choice import EMBEDDED, EMBEDDED_LLAMACPP, SCRIPTED, SERVER, backend_for
from ui.session_seats import MAX_POINT_CHARS, MAX_URGENCY, PersonSeat, SeatsMixin
from ui.view_model import DebateView

PACED = (UnitDisclosed, SilentTurn, Intervention)
DEFAULT_GRACE_S = 60.0
__all__ = [
    "EMBEDDED",
    "EMBEDDED_LLAMACPP",
    "MAX_POINT_CHARS",
    "MAX_URGENCY",
    "SCRIPTED",
    "SERVER",
    "LiveSession",
    "PersonSeat",
    "backend_for",
    "find",
]

_SESSIONS: dict[str, LiveSession] = {}
_SESSIONS_LOCK = threading.Lock()


def find(debate_id: str) -> LiveSession | None:
    """The running (or just finished) session of a debate, for a page that re-attaches."""
    with _SESSIONS_LOCK:
        return _SESSIONS.get(debate_id)


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


class LiveSession(SeatsMixin):
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
        self.wakers: set[Callable[[], None]] = set()  # called at every change, under the lock (a page's stream)
        self._go = threading.Event()
        self._go.set()
        self._step_once = False
        self._stopping = False
        self._orphan_timer: threading.Timer | None = None
        self._controlling: set[object] = set()  # the attached pages that hold the controls (by identity)
        self.held_at: int | None = None  # while paused: how many events had been shown
        self._loading_since: float | None = None
        self._tokens_at_event = 0
        self.clock = Activity()  # since when the debate works, since when no token came
        self._thread = threading.Thread(target=self._run, name=f"debate-{self.debate.debate_id[:8]}", daemon=True)

    @property
    def debate_id(self) -> str:
        return self.debate.debate_id

    @property
    def done(self) -> bool:
        """The debate has ended (or was stopped while its model was still loading: it never starts)."""
        if self._stopping and self._loading_since is not None:
            return True
        return self._thread.ident is not None and not self._thread.is_alive()  # started, and its thread is over

    def activity(self) -> str:
        """What the debate is busy with right now, for the status line: loading (how long), else ``ui.activity``."""
        now = time.monotonic()
        with self.lock:
            if self.done:
                return ""
            if self._loading_since is not None:
                return f"{now - self._loading_since:.0f} s"
            tokens = self.debate.table.cancel.tokens
            person = asked(((agent, held.channel) for agent, held in self.people.items()), now)
            return self.clock.words(now, tokens, tokens - self._tokens_at_event, person)

    def start(self) -> LiveSession:
        """Run the debate in its thread; the status says at once what it does first (a model to load)."""
        first = next(filter(_loads_lazily, self.backends), None)
        if first is not None:
            with self.lock:
                self.status = loading_words(first)
                self._loading_since = time.monotonic()
        with _SESSIONS_LOCK:
            _SESSIONS[self.debate_id] = self
        self._thread.start()
        logger.info("debate %s started (%s)", self.debate_id, self.status)
        return self

    # -- push -----------------------------------------------------------------------
    def _bump(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()
            for wake in tuple(self.wakers):
                wake()

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
                    self.status = loading_words(backend)
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
            self.clock.working()
            for event in events:
                with self.lock:
                    self.view.apply(event)
                    self._track(event)
                    self._tokens_at_event = self.debate.table.cancel.tokens
                    self.clock.working()
                for listener in self.listeners:
                    listener(event)
                self._bump()
                if isinstance(event, PACED):
                    self.clock.idle()
                    self._pace()
                    self.clock.working()
            self.clock.idle()
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
