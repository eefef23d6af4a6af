"""A debate run through the store, maybe stopped from another thread: what it yielded, raised and stored.

``run_recorded(debate, db, stop_after_s=...)`` records every event the debate
yields into the SQLite file ``db``, catches the ``BackendError`` a broken backend
raises, optionally calls ``debate.stop()`` from a thread after ``stop_after_s``
seconds, and checks the two promises every such test relies on: the debate ends
with ``debate_ended``, and the store holds exactly what was yielded. Closes the
store and the backend it is given.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

from debate_core import Debate
from debate_core.errors import BackendError
from debate_core.events import DebateEnded, Event
from storage import Store


@dataclass(frozen=True)
class RecordedRun:
    events: list[Event]
    error: BackendError | None
    elapsed: float  # seconds from the first event asked for to the last stored
    after_stop: float | None  # seconds from stop() to the end, when it was stopped

    @property
    def ended(self) -> DebateEnded:
        last = self.events[-1]
        assert isinstance(last, DebateEnded)
        return last


def run_recorded(debate: Debate, db: Path, *, backend: object, stop_after_s: float | None = None) -> RecordedRun:
    stopped_at: list[float] = []
    if stop_after_s is not None:

        def stop() -> None:
            time.sleep(stop_after_s)
            stopped_at.append(time.monotonic())
            debate.stop()

        threading.Thread(target=stop, daemon=True).start()
    store = Store(db)
    yielded: list[Event] = []
    error: BackendError | None = None
    started = time.monotonic()
    try:
        for item in store.record(debate.events()):
            yielded.append(item)
    except BackendError as caught:
        error = caught
    finally:
        ended = time.monotonic()
        stored = store.events(debate.debate_id)
        store.close()
        getattr(backend, "close", lambda: None)()
    assert yielded and isinstance(yielded[-1], DebateEnded), "the debate did not end with debate_ended"
    assert stored == yielded, "the store does not hold what the debate yielded"
    return RecordedRun(yielded, error, ended - started, ended - stopped_at[0] if stopped_at else None)
