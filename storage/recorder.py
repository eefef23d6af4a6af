"""Writing a debate's events to the store as they happen.

What it does: ``Recorder.record(events)`` passes a debate's event stream
through unchanged while writing every event (its JSON payload) and the
analysis rows derived from it (``Writer``, which handles every event type or
ignores it explicitly; ``writer``). It commits when the debate starts, whenever a turn,
a phase or a round's answers are complete (``PlansMade``, ``AnswersUpdated``,
``PhaseStarted``; and at the first event of a new turn when the last turn had
no such commit), and at the end,
so a process killed mid-debate loses at most the step in progress. The debate
row carries the recording process's host and pid and a heartbeat;
``Store.recover`` uses them to mark debates whose process died as
``incomplete``.

Status at the end (``debate_core.status``): ``finished`` (the protocol ended
it), ``aborted`` (stopped by the user, or the consumer stopped iterating),
``failed`` (a backend error, or any exception while running).

A debate that is a study's cell is recorded under its ``Claim``
(``storage.cells``): every transaction first checks that the claim still
holds the cell and renews its lease, and the last one closes the cell with
the debate's status. Once another worker has taken the cell over, the check
raises ``LeaseLost`` before anything is written, and the recorder stops with
it (the other worker's debate, under the same id, is left alone).

What it does not do: read debates back (``reading`` does), or change events.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, update
from sqlalchemy.orm import Session

from debate_core.events import DebateEnded, DebateStarted, Event
from debate_core.status import DebateStatus
from storage.cells import Claim, LeaseLost
from storage.db import writer
from storage.models import DebateRow
from storage.writer import Writer, debate_row, participant_rows

# Events after which everything so far is committed (besides a new turn and the end).
COMMIT_AFTER = frozenset({"plans_made", "answers_updated", "phase_started"})


class Recorder:
    """Records one debate at a time; use one recorder per running debate."""

    def __init__(self, engine: Engine, *, experiment_id: str | None = None, claim: Claim | None = None) -> None:
        self.engine = writer(engine)
        self.experiment_id = experiment_id
        self.claim = claim
        self.debate_id: str | None = None

    def record(self, events: Iterable[Event]) -> Iterator[Event]:
        """Yield ``events`` unchanged while persisting them."""
        iterator = iter(events)
        first = next(iterator, None)
        if first is None:
            return
        if not isinstance(first, DebateStarted):
            raise ValueError(f"a debate's first event must be debate_started, got {first.type}")
        self.debate_id = first.debate_id
        ended: DebateEnded | None = None
        session = Session(self.engine, expire_on_commit=False)
        rows = Writer(session, first.debate_id)
        try:
            self._hold(session)  # before the debate's row: a cell taken over is never written to
            session.add(debate_row(first, self.experiment_id, DebateStatus.RUNNING))
            session.flush()
            session.add_all(participant_rows(first))
            rows.add(first)
            self._commit(session, rows, first)
            yield first
            turn = committed = first.turn
            for event in iterator:
                if event.turn != turn:  # a new turn: commit the last one if nothing did
                    if committed != turn:
                        self._commit(session, rows, event)
                    turn = event.turn
                rows.add(event)
                if isinstance(event, DebateEnded):
                    ended = event
                    self._commit(session, rows, event, rows.finish(event))
                elif event.type in COMMIT_AFTER:
                    self._commit(session, rows, event)
                    committed = event.turn
                yield event
        except GeneratorExit:
            if ended is None:
                self._close(session, rows, DebateStatus.ABORTED, "the consumer stopped reading events")
            raise
        except BaseException as error:
            if ended is None:
                self._close(session, rows, DebateStatus.FAILED, f"{type(error).__name__}: {error}")
            raise
        else:
            if ended is None:
                self._close(session, rows, DebateStatus.INCOMPLETE, "the event stream ended without debate_ended")
        finally:
            session.close()

    def _hold(self, session: Session, status: str | None = None) -> None:
        """The claim's check, first in a transaction (see the module docstring); nothing without a claim."""
        if self.claim is not None:
            self.claim.hold(session, status)

    def _commit(self, session: Session, rows: Writer, event: Event, extra: dict[str, Any] | None = None) -> None:
        self._hold(session, (extra or {}).get("status"))
        rows.flush_rows()
        values = {
            "public_tokens": event.public_tokens,
            "turns": event.turn,
            "event_count": rows.count,
            "heartbeat_at": datetime.now(UTC),
            "owner_host": socket.gethostname(),
            "owner_pid": os.getpid(),
            **(extra or {}),
        }
        session.execute(update(DebateRow).where(DebateRow.id == rows.debate_id).values(**values))
        session.commit()

    def _close(self, session: Session, rows: Writer, status: DebateStatus, error: str) -> None:
        """Keep every event written so far and mark how the debate ended (nothing once the claim is lost)."""
        try:
            self._hold(session)
            rows.flush_rows()
            session.commit()
        except LeaseLost:
            session.rollback()
            return
        except Exception:
            session.rollback()
        try:
            self._hold(session, status.value)
        except LeaseLost:
            session.rollback()
            return
        session.execute(
            update(DebateRow)
            .where(DebateRow.id == rows.debate_id)
            .values(status=status.value, error=error, event_count=rows.count, finished_at=datetime.now(UTC))
        )
        session.commit()
