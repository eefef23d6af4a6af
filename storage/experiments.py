"""The experiment harness's tables: specifications, cell-to-debate map, answer pool.

What it does: ``ExperimentTables(engine)`` (reached as ``Store.experiments``)
reads and writes three tables next to the debates:

* ``experiments``: an experiment's id, model, pool key and full specification
  (as JSON), plus free-form ``notes`` the runner updates (pool statistics);
* ``experiment_runs``: which debate realises each (question, setting,
  condition) cell, so a rerun knows what is finished and the report knows each
  debate's setting;
* ``pool_answers``: the generated initial answers (answer + reason), keyed by
  how they were generated, so the pool is made once and reused.

Several workers may share one study (``storage.cells``): creating an
experiment twice at once leaves one (the other caller gets ``KeyError``),
notes are updated under a row lock (``append`` adds to a list without losing
another worker's entry), and ``add_pool_once`` keeps the first pool stored
for a question, so every worker builds its debates from the same answers.

What it does not do: interpret any of it. The specification is an opaque dict
here; the study that made it gives it meaning (a paper study's
``protocols.kimura.study.spec``, a comparison's ``experiments.compare``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from storage.db import writer
from storage.models import ExperimentRow, ExperimentRunRow, PoolAnswerRow


@dataclass(frozen=True)
class ExperimentRecord:
    id: str
    created_at: datetime
    updated_at: datetime
    model_id: str
    pool_key: str
    spec: dict[str, Any]
    notes: dict[str, Any]


@dataclass(frozen=True)
class RunRecord:
    experiment_id: str
    question_key: str
    setting: str
    condition: str
    debate_id: str
    subject: str


@dataclass(frozen=True)
class PoolAnswer:
    """One stored initial answer; ``answer`` is None when the output was unusable."""

    answer: str | None
    reason: str
    valid: bool = True
    error: str | None = None
    raw: str | None = None
    completion_tokens: int = 0


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class ExperimentTables:
    """Thread-safe access to the experiment tables of one database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- experiments -----------------------------------------------------------
    def get(self, experiment_id: str) -> ExperimentRecord | None:
        with Session(self.engine) as session:
            row = session.get(ExperimentRow, experiment_id)
            return None if row is None else self._record(row)

    def all(self) -> list[ExperimentRecord]:
        """Every experiment, newest first."""
        with Session(self.engine) as session:
            rows = session.scalars(select(ExperimentRow).order_by(ExperimentRow.created_at.desc())).all()
            return [self._record(row) for row in rows]

    def create(self, experiment_id: str, *, model_id: str, pool_key: str, spec: dict[str, Any]) -> ExperimentRecord:
        """Register a new experiment; ``KeyError`` if the id is taken."""
        now = datetime.now(UTC)
        try:
            with Session(writer(self.engine)) as session, session.begin():
                if session.get(ExperimentRow, experiment_id) is not None:
                    raise KeyError(f"experiment {experiment_id!r} already exists")
                session.add(
                    ExperimentRow(
                        id=experiment_id,
                        created_at=now,
                        updated_at=now,
                        model_id=model_id,
                        pool_key=pool_key,
                        spec=spec,
                        notes={},
                    )
                )
        except IntegrityError:  # another worker created it a moment before
            raise KeyError(f"experiment {experiment_id!r} already exists") from None
        record = self.get(experiment_id)
        assert record is not None
        return record

    def update_notes(self, experiment_id: str, *, append: dict[str, Any] | None = None, **notes: Any) -> None:
        """Set ``notes``, and add each of ``append``'s values to the list under its key."""
        with Session(writer(self.engine)) as session, session.begin():
            row = session.get(ExperimentRow, experiment_id, with_for_update=True)  # one worker at a time
            if row is None:
                raise KeyError(f"no experiment {experiment_id!r} in the store")
            merged = {**(row.notes or {}), **notes}
            for key, value in (append or {}).items():
                merged[key] = [*merged.get(key, []), value]
            row.notes = merged
            row.updated_at = datetime.now(UTC)

    # -- cells -----------------------------------------------------------------
    def runs(self, experiment_id: str) -> list[RunRecord]:
        with Session(self.engine) as session:
            rows = session.scalars(
                select(ExperimentRunRow)
                .where(ExperimentRunRow.experiment_id == experiment_id)
                .order_by(ExperimentRunRow.question_key, ExperimentRunRow.setting, ExperimentRunRow.condition)
            ).all()
            return [
                RunRecord(r.experiment_id, r.question_key, r.setting, r.condition, r.debate_id, r.subject) for r in rows
            ]

    def add_run(self, run: RunRecord) -> None:
        """Map a cell to its debate (replacing an earlier attempt's mapping)."""
        with Session(writer(self.engine)) as session, session.begin():
            session.merge(
                ExperimentRunRow(
                    experiment_id=run.experiment_id,
                    question_key=run.question_key,
                    setting=run.setting,
                    condition=run.condition,
                    debate_id=run.debate_id,
                    subject=run.subject,
                )
            )

    # -- the pool --------------------------------------------------------------
    def pool(self, pool_key: str, question_keys: Iterable[str] | None = None) -> dict[str, list[PoolAnswer]]:
        """Stored answers per question, in sample order."""
        query = select(PoolAnswerRow).where(PoolAnswerRow.pool_key == pool_key)
        if question_keys is not None:
            query = query.where(PoolAnswerRow.question_key.in_(list(question_keys)))
        found: dict[str, list[PoolAnswer]] = {}
        with Session(self.engine) as session:
            for row in session.scalars(query.order_by(PoolAnswerRow.question_key, PoolAnswerRow.sample)):
                found.setdefault(row.question_key, []).append(
                    PoolAnswer(row.answer, row.reason, row.valid, row.error, row.raw, row.completion_tokens)
                )
        return found

    def add_pool(self, pool_key: str, question_key: str, answers: Sequence[PoolAnswer]) -> None:
        """Store one question's samples (all at once: a question is either pooled or not)."""
        with Session(writer(self.engine)) as session, session.begin():
            session.execute(
                delete(PoolAnswerRow).where(
                    PoolAnswerRow.pool_key == pool_key, PoolAnswerRow.question_key == question_key
                )
            )
            session.add_all(self._pool_rows(pool_key, question_key, answers))

    def add_pool_once(self, pool_key: str, question_key: str, answers: Sequence[PoolAnswer]) -> list[PoolAnswer]:
        """Store one question's samples unless a pool is stored for it already; the stored samples."""
        try:
            with Session(writer(self.engine)) as session, session.begin():
                stored = session.scalar(
                    select(PoolAnswerRow.sample)
                    .where(PoolAnswerRow.pool_key == pool_key, PoolAnswerRow.question_key == question_key)
                    .limit(1)
                )
                if stored is None:
                    session.add_all(self._pool_rows(pool_key, question_key, answers))
        except IntegrityError:  # another worker stored this question's pool a moment before
            pass
        return self.pool(pool_key, [question_key]).get(question_key, [])

    @staticmethod
    def _pool_rows(pool_key: str, question_key: str, answers: Sequence[PoolAnswer]) -> list[PoolAnswerRow]:
        now = datetime.now(UTC)
        return [
            PoolAnswerRow(
                pool_key=pool_key,
                question_key=question_key,
                sample=index,
                answer=answer.answer,
                reason=answer.reason,
                valid=answer.valid,
                error=answer.error,
                raw=answer.raw,
                completion_tokens=answer.completion_tokens,
                created_at=now,
            )
            for index, answer in enumerate(answers)
        ]

    @staticmethod
    def _record(row: ExperimentRow) -> ExperimentRecord:
        return ExperimentRecord(
            id=row.id,
            created_at=_utc(row.created_at),
            updated_at=_utc(row.updated_at),
            model_id=row.model_id,
            pool_key=row.pool_key,
            spec=dict(row.spec),
            notes=dict(row.notes or {}),
        )
