"""A live debate in the background: pacing, pause / resume / step / stop, a human seat, recording.

What it does: ``LiveSession`` runs one ``Debate`` in its own thread, records
every event in the store (when one is given), folds events into a
``DebateView`` the page renders, and paces the debate: after each disclosed
sentence or silent turn it waits ``pace_s`` seconds, and it can be paused,
resumed, advanced one turn at a time, or stopped. A human seat talks to the
page through the session's ``HumanChannel``. A backend failure (model error,
out of memory) ends the session with its message; the recorder marks the
debate failed; other sessions are untouched.

Backends come from ``debate_core.backends.factory``: every session asking
for the same model shares the one loaded copy of it (the model registry keeps
a few, least recently used first out); the scripted demo backend is per
session, since it keeps a script position.

What it does not do: draw anything (``render``, ``charts``) or know Gradio.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from debate_core import Debate, DebateConfig, HumanChannel, HumanSeat
from debate_core.backends.base import Backend
from debate_core.backends.factory import BackendSpec, make_backend
from debate_core.errors import BackendError, DebateError
from debate_core.events import Intervention, SilentTurn, UnitDisclosed
from debate_core.log import logger
from ui.view_model import DebateView

SCRIPTED = "scripted demo (no model)"
EMBEDDED = "embedded SmolLM2-135M (CPU)"
PACED = (UnitDisclosed, SilentTurn, Intervention)


def backend_for(choice: str, config: DebateConfig, model: str = "") -> Backend:
    """The backend a session asked for (``ConfigError`` when it cannot be had)."""
    if choice == SCRIPTED:
        return make_backend(BackendSpec("scripted"), config)
    key = model.strip() if choice != EMBEDDED and model.strip() else None
    return make_backend(BackendSpec("transformers", model=key), config)


class LiveSession:
    """One running debate and its controls; every method is thread-safe."""

    def __init__(
        self,
        config: DebateConfig,
        backend: Backend,
        *,
        store: Any = None,
        human: str | None = None,
        human_timeout_s: float | None = None,
        pace_s: float = 0.0,
    ) -> None:
        self.config = config
        self.backend = backend
        self.store = store
        self.channel = HumanChannel() if human else None
        seats = {human: HumanSeat(human, self.channel, timeout_s=human_timeout_s)} if human and self.channel else {}
        self.debate = Debate(config, backend, seats=seats)
        self.human = human
        self.pace_s = pace_s
        self.lock = threading.RLock()
        self.view = DebateView()
        self.status = "starting"
        self.error: str | None = None
        self._go = threading.Event()
        self._go.set()
        self._step_once = False
        self._stopping = False
        self.held_at: int | None = None  # while paused: how many events had been shown
        self._thread = threading.Thread(target=self._run, name=f"debate-{self.debate.debate_id[:8]}", daemon=True)

    @property
    def debate_id(self) -> str:
        return self.debate.debate_id

    @property
    def done(self) -> bool:
        return not self._thread.is_alive() and self.status not in ("starting",)

    def start(self) -> LiveSession:
        self._thread.start()
        return self

    # -- controls ----------------------------------------------------------------
    def pause(self) -> None:
        with self.lock:
            if not self.done:
                self._go.clear()
                self.status = "paused"

    def resume(self) -> None:
        with self.lock:
            self._step_once = False
            if not self.done:
                self.status = "running"
            self._go.set()

    def step(self) -> None:
        """Run one more turn, then pause."""
        with self.lock:
            self._step_once = True
            if not self.done:
                self.status = "running one turn"
            self._go.set()

    def stop(self) -> None:
        with self.lock:
            self._stopping = True
            self.debate.stop()
            self._go.set()

    def set_pace(self, seconds: float) -> None:
        self.pace_s = max(0.0, float(seconds))

    # -- the thread ----------------------------------------------------------------
    def _run(self) -> None:
        try:
            if hasattr(self.backend, "loaded"):
                self.status = f"loading {self.backend.model_id}…"
                self.backend.loaded  # noqa: B018 - load now, with the status showing
            self.status = "running"
            events = self.debate.events()
            if self.store is not None:
                events = self.store.record(events)
            for event in events:
                with self.lock:
                    self.view.apply(event)
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

    def _pace(self) -> None:
        if self._step_once:
            with self.lock:
                self._step_once = False
                if not self._stopping:
                    self._go.clear()
                    self.status = "paused"
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
