"""A store and a transcript written by the release before the protocol kernel still load, replay and export.

``tests/fixtures/store-v1.sqlite3.gz`` was written by that release (event schema 1, migration
0002): six golden debates and a small scripted study. Opening it migrates it to the newest (0004); its
debates read back as today's events (equal to the golden streams, upgraded), replay through
the same renderers, export in today's schema, and its study still reports.
"""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

import pytest
from rich.console import Console

from console.terminal import TerminalRenderer
from debate_core.events import event_from_dict
from protocols.kimura.study.analysis import final_accuracy, load_study
from protocols.kimura.study.pool import Setting
from storage import Store
from tests.golden.scenarios import normalise, read_golden
from ui.view_model import DebateView

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def old_store(tmp_path: Path):
    path = tmp_path / "old.sqlite3"
    with gzip.open(FIXTURES / "store-v1.sqlite3.gz") as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0002"
    store = Store(path)
    yield store
    store.close()


def test_opening_migrates_and_every_debate_reads_back_as_todays_events(old_store):
    debates = old_store.list_debates(limit=100)
    assert len(debates) == 18
    assert {(d.protocol, d.variant == d.condition) for d in debates} == {("kimura", True)}
    for name in ("interruptible", "demo", "human", "backend-failure", "stop", "fixed"):
        stored = old_store.events(f"golden-{name}")
        expected = [normalise(event_from_dict(e).model_dump(mode="json")) for e in read_golden(name)]
        assert [normalise(e.model_dump(mode="json")) for e in stored] == expected
    assert old_store.debate("golden-stop").status == "aborted"
    assert old_store.debate("golden-backend-failure").status == "failed"


def test_an_old_debate_replays_through_the_same_renderers(old_store):
    events = old_store.events("golden-demo")
    view = DebateView.from_events(events)
    assert view.ended is not None and view.ended.final_answer == "B"
    assert any(line.utterance and line.utterance.interrupted_by for line in view.lines)
    renderer = TerminalRenderer(Console(record=True, width=120))
    for event in events:
        renderer.show(event)
    assert "cuts off" in renderer.console.export_text()


def test_an_old_debate_exports_in_todays_schema_and_imports_again(old_store, tmp_path):
    path = old_store.export_json("golden-human", tmp_path / "human.json")
    fresh = Store(tmp_path / "fresh.sqlite3")
    try:
        assert fresh.import_json(path) == "golden-human"
        assert fresh.events("golden-human") == old_store.events("golden-human")
        assert '"schema_version": 2' in path.read_text(encoding="utf-8")
    finally:
        fresh.close()


def test_an_old_transcript_file_imports(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    try:
        assert store.import_json(FIXTURES / "transcript-v1.json") == "golden-human"
        assert store.debate("golden-human").protocol == "kimura"
        assert [e.type for e in store.events("golden-human")][:2] == ["debate_started", "initial_answers"]
    finally:
        store.close()


def test_an_old_study_still_reports(old_store):
    data = load_study(old_store, "v1-scripted")
    assert len(data.debates) == 12
    accuracy = final_accuracy(data, Setting.TWO_INCORRECT, next(iter({d.condition for d in data.debates})))
    assert accuracy.n > 0
