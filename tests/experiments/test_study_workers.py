"""One Kimura study run by two worker processes on a SQLite file, one of them killed with SIGKILL.

The same claim and lease rules as on PostgreSQL (``tests/postgres/test_study_workers.py``), here
through SQLite's single writer: the victim is frozen while it holds a cell whose debate it has
begun recording (and no write lock), the other worker joins, the victim is killed, and the
other takes the cell over once its 2 s lease has run out. Both workers build the pool; the first
one stored is the one both use.
"""

from __future__ import annotations

import json
from pathlib import Path

from experiments.cli import main
from storage import Store
from tests.experiments.study_workers import Worker, cells, finished_now, freeze_holding_a_debate, wait_for

EXPERIMENT = "pair"
CELLS = 3 * 2 * 3  # questions x settings x conditions


def mmlu(path: Path) -> Path:
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(8):
            row = {"question": f"Q{i}?", "correct_answer": "ABCD"[i % 4], "topic": "toy"}
            row.update({f"answer_{x}": f"option {x}" for x in "abcd"})
            handle.write(json.dumps(row) + "\n")
    return path


def test_two_workers_one_killed_finish_every_cell_once(tmp_path: Path) -> None:
    db = str(tmp_path / "pair.sqlite3")
    study = ["run", "--experiment", EXPERIMENT, "--db", db, "--backend", "scripted", "--no-progress"]
    study += ["--data", str(mmlu(tmp_path / "mmlu.jsonl")), "--questions", "3", "--budget", "200"]
    study += ["--concurrency", "1", "--lease-s", "2", "--heartbeat-s", "0.25"]
    victim = Worker(study, tmp_path / "victim.log")
    other: Worker | None = None
    try:
        taken = freeze_holding_a_debate(victim, db, EXPERIMENT)
        other = Worker(study, tmp_path / "other.log")
        joined = other
        wait_for(lambda: any(c["worker"] == joined.id for c in cells(db, EXPERIMENT)), "the other to claim", [other])
        victim.kill()
        output = other.finish()
    finally:
        victim.kill()
        if other is not None:
            other.kill()

    rows = {c["debate_id"]: c for c in cells(db, EXPERIMENT)}
    assert len(rows) == CELLS and {c["state"] for c in rows.values()} == {"finished"}
    assert rows[taken]["attempt"] >= 2 and rows[taken]["worker"] == other.id
    assert sum(c["worker"] == victim.id for c in rows.values()) + finished_now(output) == CELLS
    store = Store(db)
    try:
        debates = store.list_debates(experiment_id=EXPERIMENT, limit=100)
        assert sorted(d.id for d in debates) == sorted(rows) and {d.status for d in debates} == {"finished"}
        assert all(len(store.events(d.id)) == d.event_count for d in debates)
    finally:
        store.close()
    assert main(study) == 0  # a rerun: nothing left to do


def test_a_heartbeat_as_long_as_the_lease_is_refused(tmp_path: Path, capsys) -> None:
    study = ["run", "--experiment", "x", "--db", str(tmp_path / "x.sqlite3"), "--backend", "scripted"]
    assert main([*study, "--no-progress", "--lease-s", "5", "--heartbeat-s", "5"]) == 2
    assert "the heartbeat must be positive and shorter than the lease" in " ".join(capsys.readouterr().out.split())
