"""Running a study's debates several at a time, their model calls merged into shared batches.

What it does: ``run_pool(jobs, run_one, backend, ...)`` runs ``run_one(job,
backend)`` for every job in ``concurrency`` threads that share one
``CoalescingBackend`` (so the concurrent debates' model calls go out as one
batch per step), calls ``done(outcome)`` after each, stops taking jobs once
``stop`` is set, and returns the batch sizes the backend saw. Ctrl-C sets
``stop`` and waits for the running jobs; a programming error in a worker stops
the others and is raised.

``StudyDebates`` is what both study runners share about their debates: it
says whether a debate is already finished (an earlier attempt that did not
finish is deleted, to be run again; one being recorded by another process
stops the study), records one debate into the store under the experiment
and maps its cell (``RunRecord``), and stops every running debate at its next
turn boundary. ``finished_debates(store, runs, wanted)`` reads back the
finished debates of some systems with their events, for the reports.

What it does not do: know what a job is, or build a debate (the study runners
do).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from debate_core.backends.base import Backend
from debate_core.backends.coalescing import CoalescingBackend
from debate_core.debate import Debate
from debate_core.errors import BackendError
from debate_core.events import DebateEnded, Event
from debate_core.log import logger
from debate_core.status import DebateStatus
from storage import Store
from storage.experiments import RunRecord

J = TypeVar("J")


class ExperimentError(RuntimeError):
    """A study cannot run as asked (a changed specification, no usable question, ...)."""


def register_study(
    store: Store,
    experiment_id: str,
    model_id: str,
    spec: dict[str, Any],
    changes: Callable[[dict[str, Any]], list[str]],
    *,
    pool_key: str = "",
) -> None:
    """Create the experiment, or check that a rerun asks for the same study on the same model.

    ``changes(stored_spec)`` lists what differs from the stored specification (it may raise
    ``ExperimentError`` when the stored study is of another kind).
    """
    tables = store.experiments
    record = tables.get(experiment_id)
    if record is None:
        tables.create(experiment_id, model_id=model_id, pool_key=pool_key, spec=spec)
        return
    changed = changes(record.spec)
    if changed:
        raise ExperimentError(
            f"experiment {experiment_id!r} was created with a different specification; "
            "rerun it with the same options or choose a new id. Changed: " + "; ".join(changed)
        )
    if record.model_id != model_id:
        raise ExperimentError(f"experiment {experiment_id!r} ran on {record.model_id!r}, not {model_id!r}")


class StudyDebates:
    """The debates of one study being recorded (see the module docstring)."""

    def __init__(self, store: Store, experiment_id: str) -> None:
        self.store, self.experiment_id = store, experiment_id
        self.stopped = threading.Event()
        self._running: dict[str, Debate] = {}
        self._lock = threading.Lock()

    def stop(self) -> None:
        """End every running debate at its next turn boundary; start no new one."""
        self.stopped.set()
        with self._lock:
            for debate in self._running.values():
                debate.stop()

    def finished(self, debate_id: str) -> bool:
        try:
            summary = self.store.debate(debate_id)
        except KeyError:
            return False
        if summary.status == DebateStatus.FINISHED:
            return True
        if summary.status == DebateStatus.RUNNING:  # Store() already marked the dead ones incomplete
            raise ExperimentError(
                f"debate {debate_id} of experiment {self.experiment_id!r} is being recorded by another "
                "process: is this experiment already running?"
            )
        self.store.delete(debate_id)  # an earlier attempt that did not finish: run it again
        return False

    def record(self, debate: Debate, run: RunRecord) -> str:
        """Run and record ``debate`` as ``run``'s cell; its outcome: finished, failed or aborted."""
        self.store.experiments.add_run(run)
        with self._lock:
            self._running[debate.debate_id] = debate
        try:
            for _ in self.store.record(debate.events(), experiment_id=self.experiment_id):
                pass
        except BackendError as error:
            logger.warning("debate %s failed: %s", debate.debate_id, error)
            return DebateStatus.FAILED.value
        finally:
            with self._lock:
                self._running.pop(debate.debate_id, None)
        status = DebateStatus(self.store.debate(debate.debate_id).status)
        return status.value if status in (DebateStatus.FINISHED, DebateStatus.FAILED) else DebateStatus.ABORTED.value


def run_pool(
    jobs: Sequence[J],
    run_one: Callable[[J, Backend], str],
    backend: Backend,
    *,
    concurrency: int,
    stop: threading.Event,
    on_stop: Callable[[], None],
    done: Callable[[str], None],
    window_s: float = 0.05,
) -> list[int]:
    """Run every job (see the module docstring); returns the merged batch sizes (empty with one worker)."""
    if not jobs:
        return []
    workers = min(concurrency, len(jobs))
    shared: Backend = backend
    coalescing: CoalescingBackend | None = None
    if workers > 1:
        coalescing = CoalescingBackend(backend, parties=workers, window_s=window_s)
        shared = coalescing
    queue = list(reversed(jobs))
    lock = threading.Lock()
    failures: list[BaseException] = []

    def worker() -> None:
        try:
            while not stop.is_set():
                with lock:
                    if not queue:
                        return
                    job = queue.pop()
                done(run_one(job, shared))
        except BaseException as error:  # a programming error: stop everything and re-raise below
            failures.append(error)
            on_stop()
        finally:
            if coalescing is not None:
                coalescing.leave()

    threads = [threading.Thread(target=worker, name=f"study-{i}", daemon=True) for i in range(workers)]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(timeout=0.5)
    except KeyboardInterrupt:
        on_stop()
        for thread in threads:
            thread.join()
        raise
    if failures:
        raise failures[0]
    return list(coalescing.batch_sizes) if coalescing is not None else []


def finished_debates(
    store: Store, runs: Sequence[RunRecord], wanted: Callable[[str], bool]
) -> Iterator[tuple[RunRecord, list[Event], DebateEnded]]:
    """Each finished debate of the runs whose system ``wanted`` accepts: its run, events and end."""
    for run in runs:
        if not wanted(run.condition):
            continue
        try:
            if store.debate(run.debate_id).status != "finished":
                continue
        except KeyError:
            continue
        events = store.events(run.debate_id)
        end = events[-1]
        assert isinstance(end, DebateEnded)
        yield run, events, end
