"""The ACE paper's Table 1, Table 2 and Fig. 4 sweep: their commands end to end on the scripted backend, and
the tables' shapes (rows, columns, TSO as the mean of 3, 5 and 7 objects) from known results."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from experiments import bbh
from experiments.cli import main
from experiments.compare import CompareSpec
from experiments.statistics import spread
from protocols.ace.study import commands, report, sweep, tables
from protocols.ace.study.tables import Result
from storage import Store

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "bbh_sample"
TSO = bbh.TASK_GROUPS["tracking_shuffled_objects"]
SCRIPTED = ["--backend", "scripted", "--no-progress"]


@pytest.fixture(scope="module")
def bbh_files(tmp_path_factory):
    """The fixture tasks, with the three-object file standing in for 5 and 7 objects (shapes, not scores)."""
    folder = tmp_path_factory.mktemp("bbh")
    for path in FIXTURES.glob("*.json"):
        shutil.copy(path, folder / path.name)
    for task in TSO[1:]:
        shutil.copy(FIXTURES / f"{TSO[0]}.json", folder / f"{task}.json")
    return folder


def _rows(text: str, heading: str) -> list[list[str]]:
    """The body rows of the markdown table under ``heading``, as cells."""
    block = text.split(heading)[1].split("\n\n")[1]
    rows = [line.strip("|").split(" | ") for line in block.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row] for row in rows[2:]]


def _header(text: str, heading: str) -> list[str]:
    line = text.split(heading)[1].split("\n\n")[1].splitlines()[0]
    return [cell.strip() for cell in line.strip("|").split(" | ")]


# --- the tables from known results ------------------------------------------------------------------------


def test_table_ones_rows_are_bbhs_23_tasks_in_the_papers_three_categories():
    rows = [task for _, tasks in tables.CATEGORIES for task, _ in tasks]
    assert len(rows) == len(set(rows)) == 23
    assert set(rows) == {bbh.table_task(task) for task in bbh.TASKS}
    assert [len(tasks) for _, tasks in tables.CATEGORIES] == [6, 10, 7]


def _results(system: str, task: str, run: int, right: int, of: int) -> list[Result]:
    return [Result(system, task, run, i < right) for i in range(of)]


def test_table_one_averages_tso_per_run_then_gives_mean_and_sd_over_runs():
    found: list[Result] = []
    for system, _ in tables.TABLE_ONE:
        for run, marks in enumerate(((4, 2, 0), (4, 4, 2))):  # TSO 3/5/7 objects, right of 4: runs 50% and 83.3%
            for task, right in zip(TSO, marks, strict=True):
                found += _results(system, task, run, right, 4)
            found += _results(system, "date_understanding", run, 3, 4)
    text = "\n".join(tables.table_one(found, [s for s, _ in tables.TABLE_ONE]))
    heading = "## ACE: the paper's Table 1 (accuracy on BBH, %, mean ± SD over runs)"
    assert _header(text, heading)[2:] == [f"{label} (`{s}`)" for s, label in tables.TABLE_ONE]
    rows = _rows(text, heading)
    assert [row[:2] for row in rows] == [
        ["Commonsense", "Date Understanding"],
        ["Commonsense", "Avg (1 of its 10 tasks)"],
        ["Scenario-based", "Tracking Shuffled Objects (avg)"],
        ["Scenario-based", "Avg (1 of its 7 tasks)"],
        ["all", "All Tasks (avg of 2 of 23)"],
    ]
    tso = spread([0.5, 10 / 12]).sd_text(100)
    assert rows[2][2:] == [tso] * 5 and rows[0][2:] == ["75.0 ± 0.0"] * 5
    assert rows[4][2:] == [spread([(0.5 + 0.75) / 2, (10 / 12 + 0.75) / 2]).sd_text(100)] * 5


def test_table_one_needs_ace_and_another_of_its_systems_and_keeps_an_incomplete_group_apart():
    one = _results("ace/ace", TSO[0], 0, 1, 2)
    assert tables.table_one(one, ["ace/ace"]) == []  # ACE alone is not Table 1
    both = [*one, *_results("baselines/tar", TSO[0], 0, 2, 2)]
    text = "\n".join(tables.table_one(both, ["baselines/tar", "ace/ace", "parliament/cot"]))
    assert _header(text, "## ACE: the paper's Table 1")[2:] == ["TAR (`baselines/tar`)", "ACE (`ace/ace`)"]
    assert f"Subtasks shown apart (their group was not run whole, so no average): {TSO[0]}." in text


def test_table_two_has_the_papers_rows_and_tso_du_pia_gs_columns_tso_the_mean_of_its_subtasks():
    found: list[Result] = []
    for system in ("ace/ace", "ace/no_execute", "ace/no_compose", "ace/no_analyze"):
        for task, right in zip(TSO, (2, 1, 0), strict=True):
            found += _results(system, task, 0, right, 2)
        for task in ("geometric_shapes", "penguins_in_a_table", "date_understanding"):
            found += _results(system, task, 0, 1, 2)
    systems = ["ace/ace", "ace/no_execute", "ace/no_compose", "ace/no_analyze"]
    text = "\n".join(tables.table_two(found, systems))
    heading = "## ACE: ablations in the shape of the paper's Table 2 (accuracy, %)"
    assert _header(text, heading) == ["variant", "TSO (avg of 3, 5, 7)", "DU", "PIA", "GS", "mean over tasks"]
    rows = _rows(text, heading)
    assert [row[0] for row in rows] == [label for _, label in tables.TABLE_TWO[:4]]
    assert all(row[1:] == ["50.0", "50.0", "50.0", "50.0", "50.0"] for row in rows)


def test_a_swept_system_names_its_methods_round_parameter_and_reads_back():
    assert sweep.swept("ace/parallel", 3) == "ace/parallel:rounds=3"
    assert sweep.swept("baselines/rtc", 1) == "baselines/rtc:discussion_rounds=0"  # the first answers alone
    assert sweep.swept("ace/ace", 2) == "ace/ace:max_rounds=2"  # a cap: the observer may stop earlier
    for method in sweep.ROUND_PARAMETER:
        assert sweep.rounds_of(sweep.swept(method, 4)) == (method, 4)
    assert sweep.rounds_of("ace/ace") is None and sweep.rounds_of("ace/ace:max_rounds=2,final=majority") is None
    with pytest.raises(ValueError, match="no rounds to sweep"):
        sweep.swept("parliament/cot", 2)
    with pytest.raises(ValueError, match="whole numbers"):
        commands.sweep_systems("ace/ace", "1,two")
    assert commands.sweep_systems("ace/ace,baselines/tar", "2,1,2") == (
        "ace/ace:max_rounds=1,ace/ace:max_rounds=2,baselines/tar:max_rounds=1,baselines/tar:max_rounds=2"
    )


# --- the commands end to end, scripted -------------------------------------------------------------------------


def _study(db: str, experiment: str) -> tuple[CompareSpec, list[str]]:
    store = Store(db)
    try:
        record = store.experiments.get(experiment)
        assert record is not None
        spec = CompareSpec.model_validate(record.spec)
        runs = store.experiments.runs(experiment)
        section = report.report_section(store, runs, spec.systems)
    finally:
        store.close()
    return spec, list(section.lines)


def test_ace_table1_runs_the_five_systems_at_the_papers_settings_and_prints_table_one(bbh_files, tmp_path, capsys):
    db = str(tmp_path / "t1.sqlite3")
    tasks = ",".join([*TSO, "date_understanding", "boolean_expressions"])
    argv = ["ace-table1", "--db", db, *SCRIPTED, "--bbh", "1", "--bbh-tasks", tasks, "--bbh-data", str(bbh_files)]
    assert main([*argv, "--repeats", "2", "--param", "baselines.discussion_rounds=2"]) == 0
    printed = capsys.readouterr().out
    spec, lines = _study(db, "ace-table1")  # the id defaults to the command's name
    assert spec.systems == tuple(s for s, _ in tables.TABLE_ONE) and spec.mmlu == spec.strategyqa == 0
    assert spec.params["baselines"] == {"rounds": 4, "max_rounds": 4, "discussion_rounds": 2}  # the user's wins
    assert spec.repeats == 2 and spec.bbh == 1
    text = "\n".join(lines)
    heading = "## ACE: the paper's Table 1 (accuracy on BBH, %, mean ± SD over runs)"
    assert heading in printed and heading in text
    assert [cell.split(" ")[0] for cell in _header(text, heading)[2:]] == ["PAR", "RPD", "RTC", "TAR", "ACE"]
    rows = _rows(text, heading)
    assert [row[1] for row in rows] == [
        "Boolean Expressions", "Avg (1 of its 6 tasks)", "Date Understanding", "Avg (1 of its 10 tasks)",
        "Tracking Shuffled Objects (avg)", "Avg (1 of its 7 tasks)", "All Tasks (avg of 3 of 23)",
    ]  # fmt: skip
    assert all(len(row) == 7 and all(" ± " in cell for cell in row[2:]) for row in rows)


def test_ace_table1_defaults_to_bbhs_23_tasks_and_a_bbh_sized_sample():
    from experiments.cli import build_parser

    args = build_parser().parse_args(["ace-table1"])
    assert (args.experiment, args.bbh_tasks, args.bbh, args.mmlu, args.strategyqa) == ("ace-table1", "all", 250, 0, 0)
    args = build_parser().parse_args(["ace-table2", "--experiment", "mine"])
    assert args.experiment == "mine" and args.bbh_tasks.split(",") == [*TSO, *commands.TABLE_TWO_TASKS[3:]]
    args = build_parser().parse_args(["ace-rounds-sweep"])
    assert args.rounds == "1,2,3,4,5" and args.bbh_tasks.split(",") == list(sweep.DEFAULT_TASKS)
    assert args.systems == "ace/parallel,baselines/rpd,baselines/rtc,baselines/tar"  # Fig. 4 sweeps the baselines


def test_ace_table2_runs_the_ablations_and_prints_table_two_with_tso_averaged(bbh_files, tmp_path, capsys):
    db = str(tmp_path / "t2.sqlite3")
    assert main(["ace-table2", "--db", db, *SCRIPTED, "--bbh", "1", "--bbh-data", str(bbh_files)]) == 0
    printed = capsys.readouterr().out
    spec, lines = _study(db, "ace-table2")
    assert spec.systems == ("ace/no_analyze", "ace/no_compose", "ace/no_execute", "ace/ace")
    assert spec.bbh_tasks == commands.TABLE_TWO_TASKS
    heading = "## ACE: ablations in the shape of the paper's Table 2 (accuracy, %)"
    for text in (printed, "\n".join(lines)):
        assert _header(text, heading) == ["variant", "TSO (avg of 3, 5, 7)", "DU", "PIA", "GS", "mean over tasks"]
        assert [row[0] for row in _rows(text, heading)] == [label for _, label in tables.TABLE_TWO[:4]]
    assert "## ACE: the paper's Table 1" not in printed


def test_ace_rounds_sweep_runs_each_method_at_each_number_of_rounds_and_draws_fig_4(tmp_path, capsys):
    db = str(tmp_path / "sweep.sqlite3")
    argv = ["ace-rounds-sweep", "--db", db, *SCRIPTED, "--bbh", "1", "--bbh-tasks", "boolean_expressions,web_of_lies"]
    assert main([*argv, "--rounds", "1,2", "--systems", "ace/parallel,baselines/rtc,ace/ace"]) == 0
    printed = capsys.readouterr().out
    assert "## ACE: the rounds sweep of the paper's Fig. 4 (accuracy, %)" in printed
    assert "| ace/ace | 1.00 | 2.00 |" in printed  # the rounds ACE ran under each cap
    store = Store(db)
    try:
        record = store.experiments.get("ace-rounds-sweep")
        assert record is not None
        systems = CompareSpec.model_validate(record.spec).systems
        section = report.report_section(store, store.experiments.runs("ace-rounds-sweep"), systems)
    finally:
        store.close()
    assert systems == (
        "ace/parallel:rounds=1", "ace/parallel:rounds=2", "baselines/rtc:discussion_rounds=0",
        "baselines/rtc:discussion_rounds=1", "ace/ace:max_rounds=1", "ace/ace:max_rounds=2",
    )  # fmt: skip
    [(stem, figure)] = section.figures
    assert stem == "ace-rounds-sweep"
    panels = [a.text for a in figure.layout.annotations]
    assert panels == [sweep.ALL_TASKS, "boolean_expressions", "web_of_lies"]
    traces = [(t.name, t.xaxis, tuple(t.x)) for t in figure.data]
    assert traces == [
        (name, axis, (1, 2))
        for name in ("PAR (ace/parallel)", "RTC (baselines/rtc)", "ACE (ace/ace)")
        for axis in ("x", "x2", "x3")
    ]
    assert all(0 <= y <= 100 for t in figure.data for y in t.y)
    rows = _rows("\n".join(section.lines), "## ACE: the rounds sweep of the paper's Fig. 4 (accuracy, %)")
    assert [row[:3] for row in rows[:3]] == [
        ["ace/parallel", "exactly", sweep.ALL_TASKS], ["ace/parallel", "exactly", "boolean_expressions"],
        ["ace/parallel", "exactly", "web_of_lies"],
    ]  # fmt: skip
    assert [row[1] for row in rows[3:]] == ["at most"] * 6
