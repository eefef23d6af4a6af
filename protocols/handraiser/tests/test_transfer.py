"""HandRaiser's cross-task transfer (the paper's Table 2) by one command, and Table 6's shape, on the scripted backend.

The listeners are names: on the scripted backend a learned listener's seat is the task's
demo script under the listener's name (``model_for``'s ``scripted:NAME``), so the
grid's plumbing (which listener sat where, which row is which) is what is tested.
"""

from __future__ import annotations

import json
from pathlib import Path

from debate_core.events import DebateStarted
from experiments.cli import main as experiments_main
from protocols.handraiser.study.tables import policy_of
from storage import Store

LISTENERS = "debate=listeners/debate,pictionary=listeners/tp,scheduling=listeners/ms"


def transfer(db: str, *extra: str) -> int:
    argv = ["handraiser-transfer", "--experiment", "tr", "--backend", "scripted", "--cases", "2", "--db", db]
    return experiments_main([*argv, "--no-progress", *extra])


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def test_the_transfer_runs_each_listener_on_each_task_and_reports_table_2_and_table_6(tmp_path):
    db = str(tmp_path / "tr.sqlite3")
    assert transfer(db, "--listeners", LISTENERS, "--baselines", "generic,prompted") == 0
    assert experiments_main(["report", "tr", "--db", db, "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    grid = report[report.index("Table 2") : report.index("Table 6")]
    rows = {cells(line)[0]: cells(line) for line in grid.splitlines() if line.startswith("| ")}
    assert list(rows)[1:] == ["generic", "debate", "pictionary", "scheduling"]  # trained on; the header first
    assert rows["trained on"][1::2] == ["TP success", "MS success", "MMLU-D success"]  # evaluated on, paper's order
    for name in ("generic", "debate", "pictionary", "scheduling"):
        assert len(rows[name]) == 7 and all("(n=2" in cell for cell in rows[name][1::2])
    generic_cost, learned_cost = float(rows["generic"][2]), float(rows["pictionary"][2])
    assert learned_cost < generic_cost  # the scripted guesser cuts the describer's filler
    six = report[report.index("Table 6") :]
    policies = {cells(line)[0]: cells(line) for line in six.splitlines() if line.startswith("| ")}
    assert {"generic", "prompted", "learned"} <= set(policies)  # each task's own listener only, as the paper
    assert all(len(row) == 7 for row in policies.values())
    store = Store(db)
    try:
        record = store.experiments.get("tr")
        assert record is not None and record.spec["studies"]["pictionary"] == "tr-pictionary"
        runs = store.experiments.runs("tr-scheduling")
        run = next(r for r in runs if r.condition == "scheduling/learned:listener=listeners/tp")
        started = store.events(run.debate_id)[0]
        assert isinstance(started, DebateStarted) and "listeners/tp" in started.model_id  # the listener's seat
    finally:
        store.close()
    assert transfer(db, "--listeners", "debate=listeners/other") != 0  # a rerun with other listeners is refused


def test_per_role_models_reach_every_studys_speakers(tmp_path):
    db = str(tmp_path / "tr.sqlite3")
    argv = ["--listeners", "pictionary=listeners/tp", "--tasks", "pictionary", "--model-for", "describer=scripted:big"]
    assert transfer(db, *argv) == 0
    store = Store(db)
    try:
        study = store.experiments.get("tr-pictionary")
        assert study is not None and study.spec["model_for"] == {"describer": "scripted:big"}
        run = store.experiments.runs("tr-pictionary")[0]
        started = store.events(run.debate_id)[0]
        assert isinstance(started, DebateStarted) and "big" in started.model_id
    finally:
        store.close()


def test_a_policy_is_its_system_without_its_task_or_listener_path():
    assert policy_of("pictionary/threshold:tau=0.3") == "threshold:tau=0.3"
    assert policy_of("scheduling/learned:listener=listeners/ms") == "learned"
    assert policy_of("handraiser/generic") == "generic"


def test_the_debate_task_runs_on_the_data_set_named_for_it(tmp_path):
    """``--debate-data mmlu_pro`` (the paper's) puts the debate column on MMLU-Pro; other tasks keep their own."""
    db = str(tmp_path / "tr.sqlite3")
    fixture = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "mmlu_pro_rows.json"
    argv = ["--tasks", "handraiser,pictionary", "--debate-data", "mmlu_pro", "--data-file", f"mmlu_pro={fixture}"]
    assert transfer(db, "--listeners", "debate=listeners/debate", *argv) == 0
    store = Store(db)
    try:
        record = store.experiments.get("tr")
        assert record is not None and record.spec["debate_data"] == "mmlu_pro"
        starts = [store.events(run.debate_id)[0] for run in store.experiments.runs("tr-debate")]
        debate_questions = {event.config.question.text for event in starts if isinstance(event, DebateStarted)}
        rows = json.loads(fixture.read_text())
        assert len(debate_questions) == 2 and debate_questions <= {row["question"] for row in rows}
        assert store.experiments.runs("tr-pictionary")  # the other task still plays its entities
    finally:
        store.close()
