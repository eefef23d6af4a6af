"""Opening a store: a blank file is migrated to the newest schema, SQLite is set up safely."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from storage import Store
from storage.models import Base
from tests.storage.helpers import TABLES, record_demo, row_counts

EXPECTED_TABLES = {
    "debates",
    "participants",
    "events",
    "initial_answers",
    "plans",
    "utterances",
    "disclosures",
    "experiments",
    "experiment_runs",
    "pool_answers",
    "decisions",
    "interventions",
    "answers",
    "experiment_cells",
    "classrooms",
    "alembic_version",
}


def _head(path: Path) -> list[str]:
    with sqlite3.connect(path) as connection:
        return [row[0] for row in connection.execute("SELECT version_num FROM alembic_version")]


def test_a_blank_file_gets_every_table_at_the_head_revision(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "folder" / "db.sqlite3"
    store = Store(path)
    try:
        assert path.exists()
        assert set(inspect(store.engine).get_table_names()) == EXPECTED_TABLES
        assert set(TABLES) == EXPECTED_TABLES
        assert _head(path) == ["0006"]
        assert all(count == 0 for table, count in row_counts(store).items() if table != "alembic_version")
        assert store.list_debates() == []
    finally:
        store.close()


def test_the_migrated_schema_matches_the_models(store: Store) -> None:
    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []


def test_opening_an_existing_store_again_is_a_no_op_and_keeps_the_data(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    first = Store(path)
    events = record_demo(first, seed=1)
    counts = row_counts(first)
    summary = first.debate(events[0].debate_id)
    first.close()

    for _ in range(2):
        again = Store(path)
        try:
            assert row_counts(again) == counts
            assert again.debate(events[0].debate_id) == summary
            assert again.events(events[0].debate_id) == events
        finally:
            again.close()
    assert _head(path) == ["0006"]


def test_sqlite_runs_in_wal_mode_with_foreign_keys_on(store: Store) -> None:
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0
    # WAL is a property of the file: a plain connection sees it too
    with sqlite3.connect(store.engine.url.database) as plain:
        assert plain.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_deleting_a_debate_removes_all_its_rows_through_the_foreign_keys(store: Store) -> None:
    kept = record_demo(store, seed=1)
    kept_counts = row_counts(store)
    gone = record_demo(store, seed=2)

    assert store.delete(gone[0].debate_id) is True
    assert row_counts(store) == kept_counts
    assert store.events(kept[0].debate_id) == kept
    assert store.delete(gone[0].debate_id) is False


def test_the_store_refuses_rows_that_reference_no_debate(store: Store) -> None:
    orphan = text(
        "INSERT INTO events (debate_id, seq, turn, type, public_tokens, at, payload) "
        "VALUES ('nope', 0, 0, 'x', 0, 0, '{}')"
    )
    with pytest.raises(IntegrityError, match="FOREIGN KEY"), store.engine.begin() as connection:
        connection.execute(orphan)
    assert row_counts(store)["events"] == 0
