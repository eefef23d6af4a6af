"""The store: open a database, record debates, list them, read them back.

What it does: ``Store(url_or_path)`` connects (SQLite file by default, any
SQLAlchemy URL accepted), applies migrations, and marks debates whose
recording process has died as ``incomplete``. Then:

* ``record(events)`` / ``recorder()``: persist a running debate (``recorder``);
* ``list_debates(...)``: summaries filtered by date, question text, protocol,
  variant, condition, status, outcome (correct or not), experiment;
* ``debate(id)``: one summary; ``events(id)``: the debate's events as the very
  objects the engine emitted (``reading``), so live view and replay share one
  code path; ``debate_params(experiment_id)``: the protocol parameters each
  finished debate of an experiment ran with, in one query;
* ``export_json`` / ``import_json`` / ``import_transcript`` / ``export_csv``: see ``transfer``;
* ``experiments``: the experiment harness's tables (see ``experiments``);
* ``cells(experiment_id)``: a study's cells as workers claim them (``cells``);
* ``save_classroom`` / ``classroom``: what a classroom added to a debate (who
  held which seat, the audience's polls), a side table kept as the web page
  gives it (JSON data) and deleted with its debate.

What it does not do: render anything, or run debates.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from debate_core.events import Event
from debate_core.status import DebateStatus
from storage import transfer
from storage.cells import Cells, Claim
from storage.cells import process_alive as _alive
from storage.db import database_url, migrate, open_engine, writer
from storage.experiments import ExperimentTables
from storage.models import ClassroomRow, DebateRow
from storage.reading import read_events
from storage.recorder import Recorder

STATUSES = tuple(status.value for status in DebateStatus)
STALE_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class DebateSummary:
    """One row of the debates table, for lists and headers."""

    id: str
    created_at: datetime
    finished_at: datetime | None
    status: str
    end_reason: str | None
    protocol: str
    variant: str | None
    condition: str | None
    model_id: str
    seed: int
    question: str
    options: tuple[str, ...]
    correct_answer: str | None
    final_answer: str | None
    correct: bool | None
    public_tokens: int
    token_budget: int
    turns: int
    event_count: int
    experiment_id: str | None
    error: str | None

    @classmethod
    def of(cls, row: DebateRow) -> DebateSummary:
        return cls(
            id=row.id,
            created_at=_utc(row.created_at),
            finished_at=_aware(row.finished_at),
            status=row.status,
            end_reason=row.end_reason,
            protocol=row.protocol,
            variant=row.variant,
            condition=row.condition,
            model_id=row.model_id,
            seed=row.seed,
            question=row.question,
            options=tuple(row.options),
            correct_answer=row.correct_answer,
            final_answer=row.final_answer,
            correct=row.correct,
            public_tokens=row.public_tokens,
            token_budget=row.token_budget,
            turns=row.turns,
            event_count=row.event_count,
            experiment_id=row.experiment_id,
            error=row.error,
        )


def _utc(value: datetime) -> datetime:
    """SQLite returns naive datetimes; everything stored is UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _aware(value: datetime | None) -> datetime | None:
    return None if value is None else _utc(value)


class Store:
    """A database of debates. Thread-safe; one per process is plenty."""

    def __init__(self, target: str | Path | None = None, *, recover: bool = True) -> None:
        self.url = database_url(target)
        self.engine = open_engine(self.url)
        migrate(self.engine)
        if recover:
            self.recover()

    @property
    def experiments(self) -> ExperimentTables:
        """The experiment harness's tables (specifications, cells, answer pool)."""
        return ExperimentTables(self.engine)

    def cells(self, experiment_id: str) -> Cells:
        """A study's cells, claimed by the workers that run it (``storage.cells``)."""
        return Cells(self.engine, experiment_id)

    def close(self) -> None:
        self.engine.dispose()

    # -- writing ---------------------------------------------------------------
    def recorder(self, *, experiment_id: str | None = None, claim: Claim | None = None) -> Recorder:
        return Recorder(self.engine, experiment_id=experiment_id, claim=claim)

    def record(
        self, events: Iterable[Event], *, experiment_id: str | None = None, claim: Claim | None = None
    ) -> Iterator[Event]:
        """Pass a debate's events through while recording them (under a study cell's ``claim``, if given)."""
        return self.recorder(experiment_id=experiment_id, claim=claim).record(events)

    def recover(self) -> int:
        """Mark running debates whose process is gone as ``incomplete``; returns how many.

        A debate is orphaned when it was recorded on this host by a process
        that no longer exists, or on another host and its heartbeat is older
        than ten minutes.
        """
        host = socket.gethostname()
        now = datetime.now(UTC)
        orphans = []
        with Session(self.engine) as session:
            for row in session.scalars(select(DebateRow).where(DebateRow.status == DebateStatus.RUNNING.value)):
                if row.owner_host == host and row.owner_pid is not None:
                    dead = not _alive(row.owner_pid)
                else:
                    beat = _aware(row.heartbeat_at) or _aware(row.created_at)
                    dead = beat is None or now - beat > STALE_AFTER
                if dead:
                    orphans.append(row.id)
        if orphans:
            with Session(writer(self.engine)) as session, session.begin():
                session.execute(
                    update(DebateRow)
                    .where(DebateRow.id.in_(orphans), DebateRow.status == DebateStatus.RUNNING.value)
                    .values(
                        status=DebateStatus.INCOMPLETE.value, error="the recording process ended before the debate did"
                    )
                )
        return len(orphans)

    def delete(self, debate_id: str) -> bool:
        with Session(writer(self.engine)) as session, session.begin():
            result = session.execute(delete(DebateRow).where(DebateRow.id == debate_id))
            return bool(getattr(result, "rowcount", 0))

    def save_classroom(self, debate_id: str, record: dict[str, Any]) -> None:
        """Keep (or replace) what a classroom added to debate ``debate_id`` (the front end's record, as JSON
        data); ``KeyError`` when the store has no such debate."""
        with Session(writer(self.engine)) as session, session.begin():
            if session.get(DebateRow, debate_id) is None:
                raise KeyError(f"no debate {debate_id!r} in the store")
            row = session.get(ClassroomRow, debate_id)
            if row is None:
                session.add(ClassroomRow(debate_id=debate_id, saved_at=datetime.now(UTC), record=record))
            else:
                row.saved_at, row.record = datetime.now(UTC), record

    def classroom(self, debate_id: str) -> dict[str, Any] | None:
        """What a classroom added to debate ``debate_id`` (None: no class joined it)."""
        with Session(self.engine) as session:
            row = session.get(ClassroomRow, debate_id)
            return None if row is None else dict(row.record)

    # -- reading ---------------------------------------------------------------
    def debate(self, debate_id: str) -> DebateSummary:
        with Session(self.engine) as session:
            row = session.get(DebateRow, debate_id)
            if row is None:
                raise KeyError(f"no debate {debate_id!r} in the store")
            return DebateSummary.of(row)

    def debate_params(self, experiment_id: str) -> dict[str, dict[str, Any]]:
        """The resolved protocol parameters (``DebateStarted.config.params``, defaults filled) of each finished
        debate of an experiment, by debate id."""
        query = select(DebateRow.id, DebateRow.params).where(
            DebateRow.experiment_id == experiment_id, DebateRow.status == DebateStatus.FINISHED.value
        )
        with Session(self.engine) as session:
            return {debate_id: dict(params or {}) for debate_id, params in session.execute(query)}

    def find(self, prefix: str) -> str:
        """The full id of the one debate whose id starts with ``prefix`` (case matters)."""
        with Session(self.engine) as session:
            # SQLite's LIKE ignores case, so compare the id's first characters exactly as well.
            ids = session.scalars(
                select(DebateRow.id)
                .where(DebateRow.id.startswith(prefix, autoescape=True))
                .where(func.substr(DebateRow.id, 1, len(prefix)) == prefix)
                .limit(2)
            ).all()
        if len(ids) != 1:
            raise KeyError(f"{'no' if not ids else 'more than one'} debate id starts with {prefix!r}")
        return ids[0]

    def list_debates(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        text: str | None = None,
        protocol: str | None = None,
        variant: str | None = None,
        condition: str | None = None,
        status: str | None = None,
        correct: bool | None = None,
        experiment_id: str | None = None,
        limit: int = 200,
        offset: int = 0,
    ) -> list[DebateSummary]:
        """Newest first, filtered; ``text`` matches the question, case-insensitively."""
        query = select(DebateRow)
        # Stored times are UTC; compare instants whatever time zone the caller uses.
        if since is not None:
            query = query.where(DebateRow.created_at >= _utc(since))
        if until is not None:
            query = query.where(DebateRow.created_at < _utc(until))
        if text:
            query = query.where(func.lower(DebateRow.question).contains(text.lower(), autoescape=True))
        if protocol:
            query = query.where(DebateRow.protocol == protocol)
        if variant:
            query = query.where(DebateRow.variant == variant)
        if condition:
            query = query.where(DebateRow.condition == condition)
        if status:
            query = query.where(DebateRow.status == status)
        if correct is not None:
            query = query.where(DebateRow.correct == correct)
        if experiment_id:
            query = query.where(DebateRow.experiment_id == experiment_id)
        query = query.order_by(DebateRow.created_at.desc(), DebateRow.id).limit(limit).offset(offset)
        with Session(self.engine) as session:
            return [DebateSummary.of(row) for row in session.scalars(query)]

    def events(self, debate_id: str) -> list[Event]:
        """Every stored event of a debate, as the engine's event objects, in order."""
        return read_events(self.engine, debate_id)

    # -- files -----------------------------------------------------------------
    def export_json(self, debate_id: str, path: str | Path) -> Path:
        return transfer.export_json(self.engine, debate_id, Path(path))

    def import_json(self, path: str | Path) -> str:
        return transfer.import_json(self.engine, Path(path))

    def import_transcript(self, path: str | Path) -> transfer.Imported:
        """``import_json``, saying also whether the debate's classroom record came with it (or why not)."""
        return transfer.import_transcript(self.engine, Path(path))

    def export_csv(self, debate_ids: Iterable[str], folder: str | Path) -> list[Path]:
        return transfer.export_csv(self.engine, list(debate_ids), Path(folder))
