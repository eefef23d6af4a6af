"""An ACE study on the scripted backend: five systems on BBH questions, and the report's ACE sections."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.cli import main
from protocols.ace.study.report import ace_debates, section
from storage import Store

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "bbh_sample"
SYSTEMS = "ace/ace,ace/no_analyze,ace/no_compose,ace/no_execute,ace/parallel"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ace")
    db = str(folder / "ace.sqlite3")
    tasks = ["--bbh", "2", "--bbh-tasks", "tracking_shuffled_objects_three_objects,date_understanding"]
    command = ["compare", "--experiment", "ace", "--db", db, "--backend", "scripted", "--no-progress"]
    assert (
        main([*command, "--systems", SYSTEMS, "--mmlu", "0", "--strategyqa", "0", *tasks, "--bbh-data", str(FIXTURES)])
        == 0
    )
    assert main(["report", "ace", "--db", db, "--out", str(folder / "report")]) == 0
    return db, (folder / "report" / "report.md").read_text(encoding="utf-8")


def test_each_system_runs_on_the_same_questions_and_folds_into_ace_debates(study):
    db, _ = study
    store = Store(db)
    try:
        runs = store.experiments.runs("ace")
        debates = ace_debates(store, runs, SYSTEMS.split(","))
    finally:
        store.close()
    assert len(debates) == 20 and {d.task for d in debates} == {
        "tracking_shuffled_objects_three_objects", "date_understanding",
    }  # fmt: skip
    by_system = {s: [d for d in debates if d.system == s] for s in SYSTEMS.split(",")}
    assert all(len(found) == 4 for found in by_system.values())
    # the demo: full ACE agrees in round 2 and the observer stops it in round 3; without Analyze nothing stops it
    assert {(d.rounds, d.observer_stop, d.rule) for d in by_system["ace/ace"]} == {(3, True, "consensus")}
    assert {(d.rounds, d.reason) for d in by_system["ace/no_analyze"]} == {(4, "rounds")}  # its `rounds`
    # the paper's Execute sees only the action: random acts name no answer, so the demo never agrees and the
    # safety net ends the debate (no cap is set: the paper's)
    assert {(d.rounds, d.reason) for d in by_system["ace/no_compose"]} == {(10, "max_turns")}
    assert {d.rule for d in by_system["ace/no_analyze"]} == {"judge"}  # still disagreeing: the observer's pick
    assert {d.rule for d in by_system["ace/parallel"]} == {"majority"} and not any(
        d.acts for d in by_system["ace/parallel"]
    )
    assert all(
        acts == ("retain", "comment") or acts == ("adapt", "withhold")
        for d in by_system["ace/ace"]
        for _, acts in d.acts
    )
    assert all(d.total_tokens > 0 for d in debates)


def test_the_report_has_accuracy_per_task_the_ablation_table_acts_rounds_and_tokens(study):
    _, report = study
    assert "## ACE: accuracy per task (n, 95% CI)" in report
    assert "| date_understanding | 100.0% (n=2, 95% CI" in report
    table = report.split("## ACE: ablations in the shape of the paper's Table 2")[1].split("##")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| variant")]
    assert [row.split(" | ")[0] for row in rows] == [
        "| w/o Analyze (compose with no auxiliary information)",
        "| w/o Compose (acts drawn at random)",
        "| w/o Execute (answer given while composing)",
        "| full A+C+E",
        "| parallel debate (Du et al.), baseline",
    ]
    assert rows[3].endswith("| 100.0 | 100.0 | 100.0 |")
    acts = report.split("## ACE: acts chosen per round")[1].split("##")[0]
    assert "| ace/ace | 2 | 4 | 4 | 4 | 0 | 4 |" in acts  # adapt, comment, retain, revise, withhold (sorted)
    rounds = report.split("## ACE: rounds until the end")[1].split("##")[0]
    assert "| ace/ace | 4 | 3.00 | 4 | 0 | 0 | 3: 4 | 4 | 0 | 0 |" in rounds
    assert "| ace/no_analyze | 4 | 4.00 | 0 | 4 | 0 | 4: 4 | 0 | 4 | 0 |" in rounds
    assert "| ace/no_compose | 4 | 10.00 | 0 | 0 | 4 | 10: 4 | 0 | 4 | 0 |" in rounds  # the safety net, counted
    assert "*at the safety net*" in rounds
    assert "## ACE: tokens per debate" in report


def test_no_ace_system_means_no_ace_section():
    assert section([], ["parliament/cot"]) == []
