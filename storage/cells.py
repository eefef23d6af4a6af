"""The cells of a study shared by several workers: claims under a lease, each cell finished once.

What it does: ``Cells(engine, experiment_id)`` keeps the ``experiment_cells``
rows of one study, one per cell (a cell is one debate, named by its
deterministic debate id), and hands them out to workers, processes on any
machines that share the database:

* ``prepare(debate_ids)`` (every worker, once, before it claims): adds the
  cells not there yet, in order (``finished`` at once when their debate
  already is, as in a store from before migration 0004); reopens a
  ``finished`` cell whose debate is not finished any more, and every
  ``failed`` one (a worker that starts retries failures, as a rerun always
  did); ends the lease of cells held by a process of this host that is gone
  (no need to wait for it); returns how many cells are finished.
* ``claim(worker, lease)``: one transaction takes the first cell, in order,
  that is ``pending`` or whose lease has expired: on PostgreSQL the row is
  locked with ``SELECT ... FOR UPDATE SKIP LOCKED`` (workers neither wait for
  each other nor ever get the same cell), on SQLite the transaction is
  ``BEGIN IMMEDIATE``, the database's single writer. The cell becomes
  ``running`` under ``worker`` (host:pid), its ``attempt`` goes up by one, its
  lease ends ``lease.seconds`` from now by the database's clock
  (``database_now``), and an earlier attempt's debate is deleted in the same
  transaction. A cell whose debate is already finished is marked so and
  never handed out.
* ``Claim.hold(session, status)``: run first in each of the recorder's
  transactions, renews the lease if, and only if, the cell is still
  ``running`` under this very attempt, and otherwise raises ``LeaseLost``, so
  that the transaction (events, the debate's status) is rolled back. With the
  debate's final status it closes the cell in that same transaction:
  ``finished``, ``failed``, or ``pending`` again when the debate was aborted.
  That is the exactly-once rule: a debate is marked finished together with its
  cell, by the attempt that holds the cell, and an attempt whose lease was
  taken over can commit nothing more.
* ``Claim.renew()`` (the heartbeat) and ``Claim.release()`` (a claim given up
  before its debate could close it);
* ``waiting_for(worker)``: whether another worker still holds (or is
  claiming) a cell that could come back, and how long until its lease could
  expire; ``count(state)``; ``live_conflicts()``: cells that no worker
  holds although their debate is being recorded (an older runner, or a process
  outside this protocol).

What it does not do: run or record debates, or decide what a cell is
(``experiments.workers`` does).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Engine, Result, Table, and_, delete, exists, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from storage.db import database_now, writer
from storage.models import DebateRow, ExperimentCellRow

CELLS = cast(Table, ExperimentCellRow.__table__)
PENDING, RUNNING, FINISHED, FAILED = "pending", "running", "finished", "failed"
STATES = (PENDING, RUNNING, FINISHED, FAILED)


class LeaseLost(RuntimeError):
    """Another worker holds the cell now: this attempt may write nothing more."""


@dataclass(frozen=True)
class Lease:
    """How long a claim lasts without a heartbeat, and how often a worker renews it."""

    seconds: float = 60.0
    heartbeat_s: float = 10.0

    def __post_init__(self) -> None:
        if self.seconds <= 0 or not 0 < self.heartbeat_s < self.seconds:
            raise ValueError(
                f"a lease of {self.seconds} s renewed every {self.heartbeat_s} s: the heartbeat must be "
                "positive and shorter than the lease"
            )

    @classmethod
    def of(cls, seconds: float, heartbeat_s: float | None = None) -> Lease:
        """A lease of ``seconds``, renewed every ``heartbeat_s`` (default: a sixth of the lease)."""
        return cls(seconds, heartbeat_s if heartbeat_s is not None else seconds / 6)


def worker_id() -> str:
    """This process, as the cells table names it: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def process_alive(pid: int) -> bool:
    """Whether a process of this host with this id exists."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _rowcount(result: Result[Any]) -> int:
    """Rows an UPDATE changed (a ``CursorResult``'s count, under the ORM session's ``Result`` type)."""
    return int(getattr(result, "rowcount", 0))


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass(frozen=True)
class Claim:
    """One worker's hold on one cell: valid while the cell is ``running`` under ``attempt``."""

    engine: Engine
    experiment_id: str
    debate_id: str
    attempt: int
    worker: str
    lease: Lease
    took_over: str | None = None  # the worker whose expired lease this claim replaced

    def _mine(self) -> Any:
        return and_(
            CELLS.c.experiment_id == self.experiment_id,
            CELLS.c.debate_id == self.debate_id,
            CELLS.c.attempt == self.attempt,
            CELLS.c.state == RUNNING,
        )

    def hold(self, session: Session, status: str | None = None) -> None:
        """Inside the caller's transaction: renew the lease (with ``status``: close the cell) or raise ``LeaseLost``."""
        now = database_now(session)
        values: dict[str, Any] = {"heartbeat_at": now, "lease_until": now + timedelta(seconds=self.lease.seconds)}
        if status is not None:
            state = status if status in (FINISHED, FAILED) else PENDING
            values.update(state=state, lease_until=None, finished_at=now if state == FINISHED else None)
        with session.no_autoflush:  # the recorder's pending rows are written after this check
            result = session.execute(update(CELLS).where(self._mine()).values(**values))
        if _rowcount(result) != 1:
            raise LeaseLost(
                f"cell {self.debate_id} of {self.experiment_id!r}: the lease of attempt {self.attempt} "
                f"({self.worker}) expired and another worker took the cell over"
            )

    def renew(self) -> bool:
        """The heartbeat: extend the lease; False once another attempt holds the cell (True once this one closed it)."""
        try:
            with Session(writer(self.engine)) as session, session.begin():
                self.hold(session)
        except LeaseLost:
            with Session(self.engine) as session:
                attempt = session.scalar(
                    select(CELLS.c.attempt).where(
                        CELLS.c.experiment_id == self.experiment_id, CELLS.c.debate_id == self.debate_id
                    )
                )
            return attempt == self.attempt
        return True

    def release(self) -> None:
        """Give the cell back (``pending``) if this attempt still holds it; a no-op once the debate closed it."""
        with Session(writer(self.engine)) as session, session.begin():
            session.execute(update(CELLS).where(self._mine()).values(state=PENDING, lease_until=None))


class Cells:
    """The cells of one study in one database (see the module docstring). Thread-safe."""

    def __init__(self, engine: Engine, experiment_id: str) -> None:
        self.engine = engine
        self.experiment_id = experiment_id

    def _ours(self) -> Any:
        return CELLS.c.experiment_id == self.experiment_id

    @staticmethod
    def _debate_finished() -> Any:
        return exists().where(DebateRow.id == CELLS.c.debate_id, DebateRow.status == FINISHED)

    def prepare(self, debate_ids: Sequence[str]) -> int:
        """Add, reopen and free cells as the module docstring says; the number of finished cells."""
        with Session(writer(self.engine)) as session, session.begin():
            known = set(session.scalars(select(CELLS.c.debate_id).where(self._ours())))
            rows = [
                {"experiment_id": self.experiment_id, "debate_id": d, "position": i, "state": PENDING, "attempt": 0}
                for i, d in enumerate(debate_ids)
                if d not in known
            ]
            if rows:  # another worker may be adding the same cells: the first one in wins
                dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
                session.execute(dialect.insert(CELLS).on_conflict_do_nothing(), rows)
            finished = self._debate_finished()
            session.execute(
                update(CELLS).where(self._ours(), CELLS.c.state == PENDING, finished).values(state=FINISHED)
            )
            session.execute(
                update(CELLS).where(self._ours(), CELLS.c.state == FINISHED, ~finished).values(state=PENDING)
            )
            session.execute(update(CELLS).where(self._ours(), CELLS.c.state == FAILED).values(state=PENDING))
            self._free_dead_holders(session)
        return self.count(FINISHED)

    def _free_dead_holders(self, session: Session) -> None:
        """End the lease of cells held by processes of this host that no longer exist."""
        host = socket.gethostname()
        held = session.execute(
            select(CELLS.c.debate_id, CELLS.c.attempt, CELLS.c.worker).where(
                self._ours(), CELLS.c.state == RUNNING, CELLS.c.worker.startswith(host + ":", autoescape=True)
            )
        ).all()
        now = database_now(session)
        for debate_id, attempt, worker in held:
            pid = worker.rpartition(":")[2]
            if worker.rpartition(":")[0] == host and pid.isdigit() and not process_alive(int(pid)):
                session.execute(
                    update(CELLS)
                    .where(self._ours(), CELLS.c.debate_id == debate_id, CELLS.c.attempt == attempt)
                    .values(lease_until=now - timedelta(seconds=1))
                )

    def claim(self, worker: str, lease: Lease) -> Claim | None:
        """The next free cell, now held by ``worker``; None when no cell is free now."""
        while True:
            with Session(writer(self.engine)) as session, session.begin():
                now = database_now(session)
                free = or_(CELLS.c.state == PENDING, and_(CELLS.c.state == RUNNING, CELLS.c.lease_until < now))
                row = session.execute(
                    select(CELLS.c.debate_id, CELLS.c.attempt, CELLS.c.state, CELLS.c.worker)
                    .where(self._ours(), free)
                    .order_by(CELLS.c.position)
                    .limit(1)
                    .with_for_update(skip_locked=True)  # PostgreSQL; SQLite's IMMEDIATE transaction is the lock
                ).first()
                if row is None:
                    return None
                debate_id, attempt, state, holder = row
                cell = and_(self._ours(), CELLS.c.debate_id == debate_id, CELLS.c.attempt == attempt)
                status = session.scalar(select(DebateRow.status).where(DebateRow.id == debate_id))
                if status == FINISHED:  # finished outside any claim (an older runner): never run again
                    session.execute(update(CELLS).where(cell).values(state=FINISHED, lease_until=None))
                    continue
                claimed = session.execute(
                    update(CELLS)
                    .where(cell, CELLS.c.state == state)
                    .values(
                        state=RUNNING,
                        attempt=attempt + 1,
                        worker=worker,
                        claimed_at=now,
                        heartbeat_at=now,
                        lease_until=now + timedelta(seconds=lease.seconds),
                        finished_at=None,
                    )
                )
                if _rowcount(claimed) != 1:  # cannot happen under the lock; try the next cell
                    continue
                if status is not None:  # an earlier attempt's debate (failed, aborted, or cut off): run it again
                    session.execute(delete(DebateRow).where(DebateRow.id == debate_id))
                return Claim(
                    self.engine,
                    self.experiment_id,
                    debate_id,
                    attempt + 1,
                    worker,
                    lease,
                    took_over=holder if state == RUNNING else None,
                )

    def waiting_for(self, worker: str) -> float | None:
        """Seconds until a cell held by another worker could be taken over (0.1 while one is being claimed);
        None when every cell is finished, failed, or held by ``worker`` itself."""
        with Session(self.engine) as session:
            now = database_now(session)
            pending = session.scalar(select(func.count()).where(self._ours(), CELLS.c.state == PENDING))
            if pending:
                return 0.1
            earliest = session.scalar(
                select(func.min(CELLS.c.lease_until)).where(
                    self._ours(), CELLS.c.state == RUNNING, CELLS.c.worker != worker
                )
            )
        if earliest is None:
            return None
        return max(0.0, (_utc(earliest) - now).total_seconds())

    def count(self, state: str) -> int:
        with Session(self.engine) as session:
            return int(session.scalar(select(func.count()).where(self._ours(), CELLS.c.state == state)) or 0)

    def live_conflicts(self) -> list[str]:
        """Debates still ``running`` although no worker holds their cell."""
        with Session(self.engine) as session:
            return list(
                session.scalars(
                    select(CELLS.c.debate_id)
                    .join(DebateRow, DebateRow.id == CELLS.c.debate_id)
                    .where(self._ours(), CELLS.c.state != RUNNING, DebateRow.status == RUNNING)
                    .order_by(CELLS.c.position)
                )
            )
