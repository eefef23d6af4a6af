"""Running a study's debates several at a time, their model calls merged into shared batches.

What it does: ``run_pool(jobs, run_one, backend, ...)`` runs ``run_one(job,
backend)`` for every job (a list, or a function handing out the next one) in
``concurrency`` threads that share one ``CoalescingBackend`` (so the
concurrent debates' model calls go out as one batch per step), calls
``done(outcome)`` after each, stops taking jobs once ``stop`` is set, and
returns the batch sizes the backend saw. Ctrl-C sets ``stop`` and waits for
the running jobs; a programming error in a worker stops the others and is
raised.

``StudyDebates`` is what the study runners share about their debates. Any
number of worker processes, on any machines sharing the database, may run one
study: ``prepare`` adds this worker's cells to the study's cells table
(``storage.cells``) and counts the finished ones, refusing when a debate is
recorded by a live process outside any claim (a study already running with
an older version); ``run`` claims cells one at a time in each thread and runs
their jobs, waits while another worker holds a cell whose lease may still
expire (its machine may be gone), renews the leases of the cells it runs every
``lease.heartbeat_s`` (a cell another worker has taken over is stopped at its
next turn), and reports every cell finished by any worker to ``advance``, so a
progress bar shows the whole study. ``record`` records one debate under its
cell's claim into the store under the experiment and maps its cell
(``RunRecord``); ``stop`` stops every running debate at its next turn
boundary (each goes back to ``pending`` for the other workers). ``finished``
(for a single worker that needs no claims) says whether a debate is already
finished, deleting an earlier attempt that did not finish.
``finished_debates(store, runs, wanted)`` reads back the finished debates of
some systems with their events, for the reports.

What it does not do: know what a job is, or build a debate (the study runners
do).
"""

from __future__ import annotations

import argparse
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
from storage.cells import FINISHED, Claim, Lease, LeaseLost, worker_id
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
        try:
            tables.create(experiment_id, model_id=model_id, pool_key=pool_key, spec=spec)
            return
        except KeyError:  # another worker registered it a moment before: join it
            record = tables.get(experiment_id)
            assert record is not None
    changed = changes(record.spec)
    if changed:
        raise ExperimentError(
            f"experiment {experiment_id!r} was created with a different specification; "
            "rerun it with the same options or choose a new id. Changed: " + "; ".join(changed)
        )
    if record.model_id != model_id:
        raise ExperimentError(f"experiment {experiment_id!r} ran on {record.model_id!r}, not {model_id!r}")


class StudyDebates:
    """The debates of one study being recorded by this worker (see the module docstring)."""

    def __init__(self, store: Store, experiment_id: str, *, lease: Lease | None = None) -> None:
        self.store, self.experiment_id = store, experiment_id
        self.lease = lease or Lease()
        self.cells = store.cells(experiment_id)
        self.worker = worker_id()
        self.stopped = threading.Event()
        self._running: dict[str, Debate] = {}
        self._claims: dict[str, Claim] = {}
        self._lock = threading.Lock()
        self._shown = 0  # finished cells the progress sink has been told of
        self._advance: Callable[[], None] | None = None

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

    # -- several workers -------------------------------------------------------------------------
    def prepare(self, debate_ids: Sequence[str]) -> int:
        """Join the study's cells (``debate_ids``, in order); how many are finished, by any worker."""
        finished = self.cells.prepare(debate_ids)
        busy = self.cells.live_conflicts()  # Store() already marked the dead ones incomplete
        if busy:
            raise ExperimentError(
                f"debate {busy[0]} of experiment {self.experiment_id!r} is being recorded by another "
                "process: is this experiment already running?"
            )
        self._shown = finished
        return finished

    def run(
        self,
        jobs: Sequence[J],
        key: Callable[[J], str],
        run_one: Callable[[J, Backend], str],
        backend: Backend,
        *,
        concurrency: int,
        done: Callable[[str], None],
        advance: Callable[[], None],
        window_s: float = 0.05,
    ) -> list[int]:
        """Run the jobs of the cells this worker claims (``key``: a job's debate id) until none is left."""
        by_key = {key(job): job for job in jobs}
        self._advance = advance

        def next_job() -> J | None:
            claim = self._next_claim()
            if claim is None:
                return None
            job = by_key.get(claim.debate_id)
            if job is None:
                claim.release()
                raise ExperimentError(
                    f"cell {claim.debate_id} of experiment {self.experiment_id!r} is not one of this worker's: "
                    "do the workers read the same questions?"
                )
            return job

        def run_claimed(job: J, shared: Backend) -> str:
            try:
                return run_one(job, shared)
            finally:
                with self._lock:
                    claim = self._claims.pop(key(job), None)
                if claim is not None:
                    claim.release()  # a no-op once the debate closed its cell
                self.refresh()

        beating = threading.Event()
        heart = threading.Thread(target=self._heartbeat, args=(beating,), name="study-heartbeat", daemon=True)
        heart.start()
        try:
            return run_pool(
                next_job,
                run_claimed,
                backend,
                concurrency=concurrency,
                stop=self.stopped,
                on_stop=self.stop,
                done=done,
                window_s=window_s,
            )
        finally:
            beating.set()
            heart.join()
            self.refresh()

    def _next_claim(self) -> Claim | None:
        """A cell for this worker; waits while another worker holds one that may come back; None when done."""
        while not self.stopped.is_set():
            claim = self.cells.claim(self.worker, self.lease)
            if claim is not None:
                if claim.took_over:
                    logger.warning(
                        "cell %s: the lease of %s expired; %s takes it over (attempt %d)",
                        claim.debate_id,
                        claim.took_over,
                        self.worker,
                        claim.attempt,
                    )
                with self._lock:
                    self._claims[claim.debate_id] = claim
                return claim
            wait = self.cells.waiting_for(self.worker)
            if wait is None:
                return None
            self.refresh()
            self.stopped.wait(min(self.lease.heartbeat_s, max(0.1, wait)))
        return None

    def _heartbeat(self, beating: threading.Event) -> None:
        """Every ``heartbeat_s``: renew the leases of this worker's cells, stop a debate whose cell was taken over."""
        while not beating.wait(self.lease.heartbeat_s):
            with self._lock:
                claims = list(self._claims.values())
            for claim in claims:
                try:
                    kept = claim.renew()
                except Exception as error:  # the database is unreachable: the lease may lapse; the recorder will know
                    logger.warning("cell %s: the lease could not be renewed: %s", claim.debate_id, error)
                    continue
                if not kept:
                    logger.warning("cell %s: another worker took it over; stopping this attempt", claim.debate_id)
                    with self._lock:
                        debate = self._running.get(claim.debate_id)
                    if debate is not None:
                        debate.stop()
            try:
                self.refresh()
            except Exception as error:
                logger.warning("progress: %s", error)

    def refresh(self) -> None:
        """Tell the progress sink of every cell finished since it last heard, by any worker."""
        if self._advance is None:
            return
        finished = self.cells.count(FINISHED)
        with self._lock:
            ahead, self._shown = finished - self._shown, max(self._shown, finished)
        for _ in range(ahead):
            self._advance()

    # -- one debate ------------------------------------------------------------------------------
    def record(self, debate: Debate, run: RunRecord) -> str:
        """Run and record ``debate`` as ``run``'s cell (under its claim, if this worker claimed it);
        its outcome: finished, failed or aborted (stopped, or its cell taken over by another worker)."""
        self.store.experiments.add_run(run)
        with self._lock:
            self._running[debate.debate_id] = debate
            claim = self._claims.get(debate.debate_id)
        try:
            for _ in self.store.record(debate.events(), experiment_id=self.experiment_id, claim=claim):
                pass
        except BackendError as error:
            logger.warning("debate %s failed: %s", debate.debate_id, error)
            return DebateStatus.FAILED.value
        except LeaseLost as error:
            logger.warning("debate %s: %s", debate.debate_id, error)
            return DebateStatus.ABORTED.value
        finally:
            with self._lock:
                self._running.pop(debate.debate_id, None)
        status = DebateStatus(self.store.debate(debate.debate_id).status)
        return status.value if status in (DebateStatus.FINISHED, DebateStatus.FAILED) else DebateStatus.ABORTED.value


def run_pool(
    jobs: Sequence[J] | Callable[[], J | None],
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
    lock = threading.Lock()
    if callable(jobs):
        take, workers = jobs, concurrency
    else:
        if not jobs:
            return []
        queue = list(reversed(jobs))

        def take() -> J | None:
            with lock:
                return queue.pop() if queue else None

        workers = min(concurrency, len(jobs))
    shared: Backend = backend
    coalescing: CoalescingBackend | None = None
    if workers > 1:
        coalescing = CoalescingBackend(backend, parties=workers, window_s=window_s)
        shared = coalescing
    failures: list[BaseException] = []

    def worker() -> None:
        try:
            while not stop.is_set():
                job = take()
                if job is None:
                    return
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


def add_lease_options(parser: Any) -> None:
    """``--lease-s`` and ``--heartbeat-s``: how the workers sharing a study hold their cells."""
    group = parser.add_argument_group("several workers, one study (docs/experiments.md)")
    group.add_argument(
        "--lease-s",
        type=float,
        default=Lease().seconds,
        metavar="S",
        help="a cell whose worker has not renewed it for this long is taken over by another (default 60)",
    )
    group.add_argument(
        "--heartbeat-s", type=float, metavar="S", help="how often a worker renews its cells (default: lease / 6)"
    )


def lease_from(args: argparse.Namespace) -> Lease:
    try:
        return Lease.of(args.lease_s, args.heartbeat_s)
    except ValueError as error:
        raise ExperimentError(str(error)) from None
