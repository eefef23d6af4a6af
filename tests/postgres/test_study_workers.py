"""One comparison study run by three worker processes on PostgreSQL, one of them killed with SIGKILL.

The victim is frozen (SIGSTOP) at a moment it holds a cell whose debate it has begun recording,
the two others join the study, and then the victim is killed. Its lease (2 s here) runs out, one
of the others takes the cell over, removes the partial debate and runs it again. Every cell
finishes exactly once, no cell is left running, every debate's events are complete, and the report
equals the one of a single worker running the same specification into another database.
"""

from __future__ import annotations

from pathlib import Path

from debate_core.events import DebateEnded, DebateStarted
from experiments.cli import main
from storage import Store
from tests.experiments.study_workers import (
    FIXTURES,
    Worker,
    cells,
    comparable_report,
    finished_now,
    freeze_holding_a_debate,
    wait_for,
)
from tests.postgres.server import PostgresServer

EXPERIMENT = "multi"
SYSTEMS = "kimura/interruptible,parliament/british,ace/ace,sid/sid,handraiser/threshold"
QUESTIONS = 4
CELLS = QUESTIONS * len(SYSTEMS.split(","))


def study(db: str, *extra: str) -> list[str]:
    return [
        "compare",
        "--experiment",
        EXPERIMENT,
        "--db",
        db,
        "--backend",
        "scripted",
        "--no-progress",
        "--mmlu",
        "0",
        "--strategyqa",
        str(QUESTIONS),
        "--strategyqa-data",
        str(FIXTURES / "strategyqa_sample.json"),
        "--systems",
        SYSTEMS,
        "--concurrency",
        "1",
        *extra,
    ]


def test_three_workers_one_killed_finish_every_cell_once_and_report_as_one(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = postgres_server.create_database("multi_workers")
    lease = ("--lease-s", "2", "--heartbeat-s", "0.25")
    victim = Worker(study(url, *lease), tmp_path / "victim.log")
    survivors: list[Worker] = []
    try:
        taken = freeze_holding_a_debate(victim, url, EXPERIMENT)
        survivors = [Worker(study(url, *lease), tmp_path / f"worker{i}.log") for i in (1, 2)]
        wait_for(
            lambda: {c["worker"] for c in cells(url, EXPERIMENT)} >= {s.id for s in survivors},
            "both other workers to claim a cell",
            survivors,
        )
        victim.kill()  # SIGKILL, while it holds `taken` with its debate half recorded
        outputs = [worker.finish() for worker in survivors]
    finally:
        victim.kill()
        for worker in survivors:
            worker.kill()

    rows = {c["debate_id"]: c for c in cells(url, EXPERIMENT)}
    assert len(rows) == CELLS
    assert {c["state"] for c in rows.values()} == {"finished"}  # none left running
    assert rows[taken]["attempt"] >= 2 and rows[taken]["worker"] in {s.id for s in survivors}  # taken over
    by_victim = sum(c["worker"] == victim.id for c in rows.values())
    assert by_victim + sum(finished_now(out) for out in outputs) == CELLS  # each cell finished by one worker
    said = " ".join(" ".join(outputs).split())  # the taking worker says so on its console
    assert f"cell {taken}: the lease of {victim.id} expired" in said

    store = Store(url)
    try:
        debates = store.list_debates(experiment_id=EXPERIMENT, limit=1000)
        assert sorted(d.id for d in debates) == sorted(rows) and {d.status for d in debates} == {"finished"}
        assert sorted(r.debate_id for r in store.experiments.runs(EXPERIMENT)) == sorted(rows)
        for debate in debates:
            events = store.events(debate.id)
            assert [e.seq for e in events] == list(range(len(events))) == list(range(debate.event_count))
            assert isinstance(events[0], DebateStarted) and isinstance(events[-1], DebateEnded)
    finally:
        store.close()

    alone = postgres_server.create_database("one_worker")
    assert main(study(alone)) == 0
    for db, out in ((url, "shared"), (alone, "alone")):
        assert main(["report", EXPERIMENT, "--db", db, "--out", str(tmp_path / out), "--no-png"]) == 0
    assert comparable_report(tmp_path / "shared") == comparable_report(tmp_path / "alone")
