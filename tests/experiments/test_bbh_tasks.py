"""BBH's 23 tasks together: their names, the generated three beside the file tasks, BBH-sized samples, the
task groups (Table 2's TSO) and ``fetch-bbh --tasks all``.

No test touches the network or the real archive: the archive is a small one made here.
"""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from experiments import bbh
from experiments.bbh import (
    BBH_SIZE,
    DEFAULT_TASKS,
    GENERATED,
    TASK_FILES,
    TASK_GROUPS,
    TASKS,
    BbhError,
    by_table_task,
    check_tasks,
    group_mean,
    load_bbh,
    load_task,
    sample,
    table_task,
)
from experiments.bbh_generated import POOL_SIZE, generate
from experiments.cli import main
from experiments.compare import bbh_items
from tests.experiments.offline import block_downloads

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bbh_sample"
TSO = TASK_GROUPS["tracking_shuffled_objects"]


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """Every way out fails the test, and no test sees the user's cache or archive."""
    block_downloads(monkeypatch, tmp_path, "DEBATE_BIGBENCH_ARCHIVE")


# --- task names ----------------------------------------------------------------------------


def test_the_tasks_are_bbhs_twenty_three_with_subtasks_expanded_three_of_them_generated():
    assert len(TASK_FILES) == 24 and set(TASK_FILES) == set(bbh.EXPECTED_EXAMPLES)
    path = TASK_FILES["logical_deduction_five_objects"]
    assert path.endswith("benchmark_tasks/logical_deduction/five_objects/task.json")
    assert TASK_FILES["navigate"] == "bigbench-1.0.0/bigbench/benchmark_tasks/navigate/task.json"
    assert len(TASKS) == 27 and set(TASKS) == set(TASK_FILES) | set(GENERATED) and not set(GENERATED) & set(TASK_FILES)
    assert len({bbh.table_task(task) for task in TASKS}) == 23 and set(DEFAULT_TASKS) <= set(TASKS)
    assert TASKS[:2] == ("boolean_expressions", "causal_judgment") and TASKS[-2:] == ("web_of_lies", "word_sorting")


@pytest.mark.parametrize(
    ("task", "message"),
    [
        ("multistep_arithmetic", "BIG-bench's; BBH's is multistep_arithmetic_two"),
        ("logical_deduction", "has subtasks: name one of logical_deduction_three_objects"),
        ("chess", "unknown BBH task 'chess'; the supported tasks are boolean_expressions, causal_judgment, "),
    ],
)
def test_an_unknown_task_is_a_clear_error(task, message):
    with pytest.raises(BbhError, match=message):
        check_tasks(["navigate", task])
    with pytest.raises(BbhError, match=message):
        load_task(task, path=FIXTURES)
    assert check_tasks([" navigate", "snarks", "navigate"]) == ("navigate", "snarks")


# --- generated beside file tasks ----------------------------------------------------------------


def test_generated_tasks_load_beside_file_tasks_without_a_file():
    loaded = load_bbh(["web_of_lies", "object_counting", "boolean_expressions"], path=FIXTURES)
    assert list(loaded) == ["web_of_lies", "object_counting", "boolean_expressions"]
    assert loaded["web_of_lies"] == generate("web_of_lies") and len(loaded["object_counting"]) == 6
    assert load_bbh(GENERATED, fetch=False) == {task: generate(task) for task in GENERATED}  # nothing cached
    with pytest.raises(BbhError, match="are generated"):
        bbh.fetch_bbh(["web_of_lies"])


def test_a_bbh_sized_sample_takes_250_of_a_task_or_all_of_a_smaller_one():
    loaded = load_bbh(["multistep_arithmetic_two", "penguins_in_a_table"], path=FIXTURES)
    drawn = sample([q for questions in loaded.values() for q in questions], BBH_SIZE, seed=0)
    by_task = {task: [q for q in drawn if q.task == task] for task in loaded}
    assert len(by_task["multistep_arithmetic_two"]) == BBH_SIZE and len(by_task["penguins_in_a_table"]) == 6
    assert len({q.index for q in by_task["multistep_arithmetic_two"]}) == BBH_SIZE
    assert drawn == sample([q for questions in loaded.values() for q in questions], BBH_SIZE, seed=0)


def test_bbh_items_of_generated_tasks_have_stable_keys():
    items = bbh_items(["boolean_expressions", "multistep_arithmetic_two", "web_of_lies"], 3, 5)
    assert items == bbh_items(["boolean_expressions", "multistep_arithmetic_two", "web_of_lies"], 3, 5)
    assert [item.subject for item in items] == [task for task in GENERATED for _ in range(3)]
    for item in items:
        prefix, task, index, digest = item.key.split(":")
        assert (prefix, task) == ("bbh", item.subject) and 0 <= int(index) < POOL_SIZE and len(digest) == 10
    arithmetic = [item.question for item in items if item.subject == "multistep_arithmetic_two"]
    assert all(not q.is_multiple_choice and q.answer.lstrip("-").isdigit() for q in arithmetic)


# --- the groups ----------------------------------------------------------------------------------


def test_the_groups_are_the_three_subtasks_of_logical_deduction_and_of_tracking_shuffled_objects():
    assert tuple(f"tracking_shuffled_objects_{n}_objects" for n in ("three", "five", "seven")) == TSO
    assert set(TASK_GROUPS) == {"logical_deduction", "tracking_shuffled_objects"}
    assert all(set(members) <= set(TASKS) for members in TASK_GROUPS.values())
    assert table_task("tracking_shuffled_objects_five_objects") == "tracking_shuffled_objects"
    assert table_task("navigate") == "navigate"


def test_tso_is_the_unweighted_mean_of_its_three_subtasks_and_none_while_one_is_missing():
    accuracies = {TSO[0]: 0.6, TSO[1]: 0.3, TSO[2]: 0.3, "date_understanding": 0.7}
    assert group_mean(accuracies, "tracking_shuffled_objects") == pytest.approx(0.4)
    assert group_mean({TSO[0]: 0.6, TSO[1]: 0.3}, "tracking_shuffled_objects") is None
    assert group_mean(accuracies, "logical_deduction") is None
    with pytest.raises(BbhError, match="no BBH task group 'navigate'"):
        group_mean(accuracies, "navigate")
    assert by_table_task(accuracies) == pytest.approx({"tracking_shuffled_objects": 0.4, "date_understanding": 0.7})
    partial = {TSO[0]: 0.6, "navigate": 0.5}
    assert by_table_task(partial) == partial  # an incomplete group is not averaged


# --- fetch-bbh --tasks all --------------------------------------------------------------------------


def tiny_archive(path: Path) -> Path:
    """An archive laid out like bigbench's with a two-row task file for each of the 24 file tasks."""
    with tarfile.open(path, "w:gz") as tar:
        for task, member in TASK_FILES.items():
            rows = [{"input": f"{task} {i}?", "target_scores": {"yes": 1, "no": 0}} for i in range(2)]
            data = json.dumps({"name": task, "examples": rows}).encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_fetch_bbh_all_counts_every_one_of_the_23_tasks_the_generated_ones_too(tmp_path, capsys):
    cache = str(tmp_path / "cache")
    command = ["fetch-bbh", "--tasks", "all", "--cache", cache]
    assert main([*command, "--archive", str(tiny_archive(tmp_path / "bb.tar.gz"))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 28  # 27 names, a summary
    for line, task in zip(lines, TASKS, strict=False):
        assert line.startswith(f"{task}: ")
        if task in GENERATED:
            assert line.endswith(f"{POOL_SIZE} questions (250 in a --bbh 250 sample), generated (seed 0, pool of 1000)")
        else:
            assert line == f"{task}: 2 questions (2 in a --bbh 250 sample), extracted now"
    assert lines[-1].startswith("27 task names, 23 of BBH's 23 tasks: 24 from task files (24 extracted now) in ")
    assert main(command) == 0  # offline, from the cache: no archive needed now
    again = capsys.readouterr().out.splitlines()
    assert again[1] == "causal_judgment: 2 questions (2 in a --bbh 250 sample), cached"
    assert "(0 extracted now)" in again[-1] and again[-1].endswith(", 3 generated")


def test_a_scripted_comparison_asks_the_generated_tasks_and_all_means_the_27(tmp_path, capsys):
    from experiments.compare_cli import _bbh_tasks

    assert _bbh_tasks("all") == TASKS
    common = ["--db", str(tmp_path / "g.sqlite3"), "--backend", "scripted", "--systems", "parliament/cot"]
    asked = ["--bbh", "1", "--bbh-tasks", ",".join(GENERATED), "--mmlu", "0", "--strategyqa", "0", "--no-progress"]
    assert main(["compare", "--experiment", "generated", *common, *asked]) == 0
    assert "3 finished now" in " ".join(capsys.readouterr().out.split())
