"""The store on a real PostgreSQL server: migrations, recording, replay, listing, files, experiment tables."""

from __future__ import annotations

import threading
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from debate_core import Debate, Question
from debate_core.events import DebateEnded
from experiments.cli import main
from protocols.kimura.demo import demo_backend, demo_config
from storage import Recorder, Store
from storage.db import MIGRATIONS, database_url, open_engine
from storage.experiments import PoolAnswer, RunRecord
from storage.models import Base
from tests.conftest import SentenceSplitter, build_script_backend, make_config
from tests.golden.scenarios import normalise
from tests.storage.helpers import TABLES, record_demo, row_counts

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SYSTEMS = "parliament/british,kimura/interruptible,ace/ace,sid/sid,handraiser/threshold"


def same_events(mine: list, theirs: list) -> bool:
    """The same events but for the wall clock (each event's time, measured durations)."""

    def dump(events: list) -> list:
        return [normalise({**e.model_dump(mode="json"), "at": 0}) for e in events]

    return dump(mine) == dump(theirs)


def test_workers_opening_a_fresh_database_together_migrate_it_once_to_the_models(postgres_url: str) -> None:
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            Store(postgres_url).close()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    store = Store(postgres_url)
    try:
        assert set(inspect(store.engine).get_table_names()) == set(TABLES)
        with store.engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == ["0006"]
            assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
            # SQLite's pragmas and BEGIN IMMEDIATE are SQLite's only
            assert connection.execute(text("SHOW transaction_isolation")).scalar() == "read committed"
    finally:
        store.close()


def test_a_postgresql_store_of_the_previous_schema_upgrades_and_keeps_its_debates(postgres_url: str) -> None:
    engine = open_engine(postgres_url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0003")
    config_ = demo_config(seed=4)
    events = list(
        Recorder(engine).record(Debate(config_, demo_backend(config_), segmenter=SentenceSplitter()).events())
    )
    engine.dispose()

    store = Store(postgres_url)
    try:
        assert store.events(events[0].debate_id) == events
        columns = {c["name"]: c["type"] for c in inspect(store.engine).get_columns("debates")}
        assert str(columns["seed"]) == "BIGINT" and str(columns["final_answer"]) == "TEXT"
        assert "experiment_cells" in inspect(store.engine).get_table_names()
    finally:
        store.close()


def test_a_recorded_debate_replays_lists_exports_and_deletes(postgres_url: str, tmp_path: Path) -> None:
    store = Store(postgres_url)
    try:
        events = record_demo(store, seed=1, experiment_id="exp")
        debate_id = events[0].debate_id
        assert store.events(debate_id) == events
        summary = store.debate(debate_id)
        assert summary.status == "finished" and summary.event_count == len(events)
        assert summary.created_at.tzinfo is not None
        assert store.find(debate_id[:6]) == debate_id
        assert [d.id for d in store.list_debates(experiment_id="exp", status="finished", protocol="kimura")] == [
            debate_id
        ]
        assert store.list_debates(text=summary.question[5:25].upper())[0].id == debate_id

        path = store.export_json(debate_id, tmp_path / "d.json")
        store.delete(debate_id)
        assert all(count == 0 for table, count in row_counts(store).items() if table != "alembic_version")
        assert store.import_json(path) == debate_id
        assert store.events(debate_id) == events
        assert [p.name for p in store.export_csv([debate_id], tmp_path / "csv")] == [
            "plans.csv",
            "disclosures.csv",
            "utterances.csv",
            "seats.csv",
            "polls.csv",
        ]
    finally:
        store.close()


def test_what_sqlite_never_checked_fits_long_answers_and_64_bit_seeds(postgres_url: str) -> None:
    store = Store(postgres_url)
    long_answer = "the answer is " + "very " * 100 + "long"
    try:
        config = make_config(
            question=Question(text="Free-form: say it at length.", answer=long_answer),
            seed=2**62 + 1,
            max_silent_turns=2,
        )
        model_path = "/models/" + "a-deep-folder/" * 30 + "model.gguf"  # a local model under a deep folder
        answers = {"Alex": long_answer, "Chris": long_answer, "Jenny": long_answer}
        backend = build_script_backend(initial=answers, model_id=model_path)
        events = list(store.record(Debate(config, backend, segmenter=SentenceSplitter()).events()))
        end = events[-1]
        assert isinstance(end, DebateEnded) and end.final_answer and len(long_answer) > 256
        summary = store.debate(events[0].debate_id)
        assert (summary.seed, summary.final_answer, summary.correct_answer, summary.model_id) == (
            2**62 + 1,
            end.final_answer,
            long_answer,
            model_path,
        )
        assert len(model_path) > 256
        assert store.events(events[0].debate_id) == events

        tables = store.experiments
        tables.create("exp", model_id=model_path, pool_key="k", spec={"kind": "compare"})
        system = "handraiser/threshold:tau=0.35,min_units=2,extra=more-than-thirty-two"
        tables.add_run(RunRecord("exp", "q1", "mmlu", system, events[0].debate_id, "toy"))
        assert tables.runs("exp")[0].condition == system
        stored = tables.add_pool_once("k", "q1", [PoolAnswer(long_answer, "why")])
        assert tables.add_pool_once("k", "q1", [PoolAnswer("B", "other")]) == stored  # the first pool stays
        assert stored[0].answer == long_answer
        tables.update_notes("exp", append={"runs": {"n": 1}})
        tables.update_notes("exp", append={"runs": {"n": 2}}, last={"n": 2})
        record = tables.get("exp")
        assert record is not None and record.notes == {"runs": [{"n": 1}, {"n": 2}], "last": {"n": 2}}
    finally:
        store.close()


def test_a_comparison_study_on_postgresql_equals_the_same_study_on_sqlite(postgres_url: str, tmp_path: Path) -> None:
    common = ["--backend", "scripted", "--no-progress", "--mmlu", "0", "--systems", SYSTEMS]
    data = ["--strategyqa", "2", "--strategyqa-data", str(FIXTURES / "strategyqa_sample.json")]
    lite = str(tmp_path / "s.sqlite3")
    for db in (postgres_url, lite):
        assert main(["compare", "--experiment", "both", "--db", db, *common, *data]) == 0
    stores = Store(postgres_url), Store(lite)
    try:
        runs = [s.experiments.runs("both") for s in stores]
        assert runs[0] == runs[1] and len(runs[0]) == 10
        for run in runs[0]:
            assert same_events(stores[0].events(run.debate_id), stores[1].events(run.debate_id))
    finally:
        for store in stores:
            store.close()


def test_a_plain_postgresql_url_means_psycopg_3() -> None:
    assert database_url("postgresql://lab@db/debates") == "postgresql+psycopg://lab@db/debates"
    assert database_url("postgres://lab@db/debates") == "postgresql+psycopg://lab@db/debates"
