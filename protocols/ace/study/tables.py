"""The ACE paper's Table 1 and Table 2 drawn from a comparison study's finished debates.

What it does: ``scored(store, runs, systems)`` reads each finished debate of the
named systems into a ``Result`` (system, task, run, right or not), whatever
their protocol (Table 1 sets ACE beside the baselines family's RPD, RTC and
TAR); ``accuracies`` folds results into each system's accuracy per run and
task. ``columns(tasks)`` gives a table's columns (or rows): a BBH task group
whose subtasks the study ran all of (``bbh.TASK_GROUPS``: logical deduction,
tracking shuffled objects) is one column, its value in a run the unweighted
mean of its subtasks' accuracies (``bbh.group_mean``: Table 2's TSO is the
mean of 3, 5 and 7 objects); a group the study ran only part of keeps its
subtasks apart.

* ``table_one(results, systems)``: Table 1's shape when the study ran full
  ACE and at least one of PAR (``ace/parallel``), RPD, RTC, TAR on BBH:
  rows BBH's 23 tasks in the paper's three categories (``CATEGORIES``) with
  each category's average and the average of all tasks; columns the systems
  in the paper's order; each cell the mean ± standard deviation over runs
  (``compare --repeats``) of the run's accuracy, in percent. An average row
  is taken in each run first (the mean of the tasks' accuracies in that run),
  then its mean ± SD over runs; a category the study ran only part of says so.
  The paper's average rows carry a ± larger than any of their cells', which
  an SD over runs of an average cannot be: what the paper's is, it does not
  say; here it is the SD over runs;
* ``table_two(results, systems)``: Table 2's shape (rows: w/o Analyze, w/o
  Compose, w/o Execute, full A+C+E, then the parallel baseline; columns: the
  paper's TSO, DU, PIA, GS first, then any other task, and the mean over
  tasks), cells as above.

What it does not do: run debates (``compare``, the ``commands`` module), read
ACE's own events (``report``) or draw the rounds sweep (``sweep``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from experiments import bbh
from experiments.repeats import repeat_of
from experiments.statistics import mean, spread
from experiments.workers import finished_debates
from storage import Store
from storage.experiments import RunRecord

# Table 1's columns in the paper's order, with its names for them.
TABLE_ONE = (
    ("ace/parallel", "PAR"),
    ("baselines/rpd", "RPD"),
    ("baselines/rtc", "RTC"),
    ("baselines/tar", "TAR"),
    ("ace/ace", "ACE"),
)
# Table 1's rows: BBH's 23 tasks in the paper's three categories, in its order, with its names.
CATEGORIES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Mathematical",
        (
            ("boolean_expressions", "Boolean Expressions"),
            ("dyck_languages", "Dyck Languages"),
            ("multistep_arithmetic_two", "Multi-Step Arithmetic [Two]"),
            ("navigate", "Navigate"),
            ("object_counting", "Object Counting"),
            ("word_sorting", "Word Sorting"),
        ),
    ),
    (
        "Commonsense",
        (
            ("causal_judgment", "Causal Judgement"),
            ("date_understanding", "Date Understanding"),
            ("disambiguation_qa", "Disambiguation QA"),
            ("formal_fallacies_syllogisms_negation", "Formal Fallacies"),
            ("geometric_shapes", "Geometric Shapes"),
            ("hyperbaton", "Hyperbaton"),
            ("movie_recommendation", "Movie Recommendation"),
            ("salient_translation_error_detection", "Salient Translation Error Detection"),
            ("snarks", "Snarks"),
            ("sports_understanding", "Sports Understanding"),
        ),
    ),
    (
        "Scenario-based",
        (
            ("logical_deduction", "Logical Deduction (avg)"),
            ("penguins_in_a_table", "Penguins in a Table"),
            ("reasoning_about_colored_objects", "Reasoning about Colored Objects"),
            ("ruin_names", "Ruin Names"),
            ("temporal_sequences", "Temporal Sequences"),
            ("tracking_shuffled_objects", "Tracking Shuffled Objects (avg)"),
            ("web_of_lies", "Web of Lies"),
        ),
    ),
)
# Table 2's rows, in the paper's order (the parallel baseline is ours: the paper's Table 2 has no baseline row).
TABLE_TWO = (
    ("ace/no_analyze", "w/o Analyze (compose with no auxiliary information)"),
    ("ace/no_compose", "w/o Compose (acts drawn at random)"),
    ("ace/no_execute", "w/o Execute (answer given while composing)"),
    ("ace/ace", "full A+C+E"),
    ("ace/parallel", "parallel debate (Du et al.), baseline"),
)
# Table 2's columns, in the paper's order, with its abbreviations.
TABLE_TWO_TASKS = (
    ("tracking_shuffled_objects", "TSO (avg of 3, 5, 7)"),
    ("date_understanding", "DU"),
    ("penguins_in_a_table", "PIA"),
    ("geometric_shapes", "GS"),
)
PAPER_ONE = "The paper (GPT-3.5-turbo, 250 items per task): all tasks PAR 50.2, RPD 51.6, RTC 52.5, TAR 52.1, ACE 61.0."
PAPER_TWO = "The paper (GPT-3.5-turbo, 4 BBH tasks): full ACE 37.1 / 71.0 / 70.1 / 32.9 on TSO / DU / PIA / GS."


class Scored(Protocol):
    """What a table reads of a debate (``Result``, and ACE's own ``AceDebate``)."""

    @property
    def system(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def repeat(self) -> int: ...
    @property
    def correct(self) -> bool: ...


@dataclass(frozen=True)
class Result:
    system: str
    task: str  # the BBH task (subtask), or the data set for the others
    repeat: int
    correct: bool


Column = tuple[str, tuple[str, ...]]  # (a column's task or group, the tasks it is the mean of)
Runs = dict[int, dict[str, float]]  # run -> task -> accuracy


def task_of(run: RunRecord) -> str:
    return run.subject if run.setting == "bbh" else run.setting


def scored(store: Store, runs: Sequence[RunRecord], systems: Iterable[str]) -> list[Result]:
    """Each finished debate of ``systems`` (any protocol's) as a ``Result``."""
    wanted = set(systems)
    return [
        Result(run.condition, task_of(run), repeat_of(run), bool(end.correct))
        for run, _, end in finished_debates(store, runs, wanted.__contains__)
    ]


def accuracies(results: Sequence[Scored]) -> dict[str, Runs]:
    """Each system's accuracy per run and task."""
    counted: dict[tuple[str, int, str], list[bool]] = defaultdict(list)
    for r in results:
        counted[(r.system, r.repeat, r.task)].append(r.correct)
    found: dict[str, Runs] = defaultdict(lambda: defaultdict(dict))
    for (system, run, task), marks in sorted(counted.items()):
        found[system][run][task] = sum(marks) / len(marks)
    return found


def columns(tasks: Iterable[str]) -> list[Column]:
    """The tasks as columns, a group whose subtasks are all among them folded into one (first-seen order)."""
    present = list(dict.fromkeys(tasks))
    found: list[Column] = []
    for task in present:
        group = bbh.table_task(task)
        members = bbh.TASK_GROUPS.get(group, ())
        if group != task and all(member in present for member in members):
            if (group, members) not in found:
                found.append((group, members))
        else:
            found.append((task, (task,)))
    return found


def value(accuracy: Mapping[str, float], column: Column) -> float | None:
    """A column's value in one run: the task's accuracy, or a group's mean (``bbh.group_mean``); None if missing."""
    name, members = column
    if members == (name,):
        return accuracy.get(name)
    return bbh.group_mean(accuracy, name)


def _cell(runs: Runs, column: Column) -> str:
    values = [v for accuracy in runs.values() if (v := value(accuracy, column)) is not None]
    return spread(values).sd_text(100) if values else "-"


def _average(runs: Runs, chosen: Sequence[Column]) -> str:
    """The mean over ``chosen`` taken in each run, then its mean ± SD over runs."""
    means = []
    for accuracy in runs.values():
        values = [v for column in chosen if (v := value(accuracy, column)) is not None]
        if values:
            means.append(mean(values))
    return spread(means).sd_text(100) if means else "-"


def _several(found: Mapping[str, Runs]) -> bool:
    return len({run for runs in found.values() for run in runs}) > 1


def table_one(results: Sequence[Scored], systems: Sequence[str]) -> list[str]:
    """Table 1's markdown lines (empty unless the study ran ``ace/ace`` and another of its systems on BBH)."""
    bbh_results = [r for r in results if r.task in bbh.TASKS]
    found = accuracies(bbh_results)
    present = [(s, label) for s, label in TABLE_ONE if s in systems and s in found]
    if "ace/ace" not in dict(present) or len(present) < 2:
        return []
    by_name = {name: (name, members) for name, members in columns(r.task for r in bbh_results)}
    several = _several(found)
    lines = [
        "",
        "## ACE: the paper's Table 1 (accuracy on BBH, %" + (", mean ± SD over runs" if several else "") + ")",
        "",
        "| category | BIG-Bench Hard task | " + " | ".join(f"{label} (`{s}`)" for s, label in present) + " |",
        "|---" * (len(present) + 2) + "|",
    ]
    everything: list[Column] = []
    counted = 0  # BBH's tasks the table has (a group run in part counts once)
    for category, tasks in CATEGORIES:
        rows = [row for task, label in tasks for row in _rows_of(task, label, by_name)]
        if not rows:
            continue
        everything += [column for column, _ in rows]
        for column, label in rows:
            lines.append(f"| {category} | {label} | " + " | ".join(_cell(found[s], column) for s, _ in present) + " |")
        have = len({bbh.table_task(column[0]) for column, _ in rows})
        counted += have
        shown = "Avg" if have == len(tasks) else f"Avg ({have} of its {len(tasks)} tasks)"
        chosen = [column for column, _ in rows]
        lines.append(f"| {category} | {shown} | " + " | ".join(_average(found[s], chosen) for s, _ in present) + " |")
    whole = sum(len(tasks) for _, tasks in CATEGORIES)
    shown = "All Tasks (avg)" if counted == whole else f"All Tasks (avg of {counted} of {whole})"
    lines.append(f"| all | {shown} | " + " | ".join(_average(found[s], everything) for s, _ in present) + " |")
    partial = [name for name, (_, members) in by_name.items() if members == (name,) and bbh.table_task(name) != name]
    lines += [""]
    if partial:
        lines += [f"Subtasks shown apart (their group was not run whole, so no average): {', '.join(partial)}.", ""]
    return [
        *lines,
        "Logical deduction and tracking shuffled objects are the unweighted means of their 3, 5 and 7 objects, taken "
        "in each run. An average row is the mean over its tasks taken in each run, then its mean ± SD over runs.",
        "",
        PAPER_ONE,
    ]


def _rows_of(task: str, label: str, by_name: Mapping[str, Column]) -> list[tuple[Column, str]]:
    """A task's rows: the task (or its group's mean), or the subtasks of a group run in part, each its own row."""
    if task in by_name:
        return [(by_name[task], label)]
    parts = [name for name in bbh.TASK_GROUPS.get(task, ()) if name in by_name]
    return [(by_name[name], f"{label.removesuffix(' (avg)')}: {name.removeprefix(task + '_')}") for name in parts]


def table_two(results: Sequence[Scored], systems: Sequence[str]) -> list[str]:
    """Table 2's markdown lines: the ablations, full ACE and the baseline, on the study's tasks."""
    found = accuracies(results)
    order = [s for s, _ in TABLE_TWO]
    present = sorted(
        (s for s in systems if s.startswith("ace/") and s in found),
        key=lambda s: order.index(base_system(s)) if base_system(s) in order else len(order),
    )
    if not present:
        return []
    first = [task for task, _ in TABLE_TWO_TASKS]
    made = columns(sorted({r.task for r in results if r.system in present}))
    shown = sorted(made, key=lambda c: first.index(c[0]) if c[0] in first else len(first))
    names = dict(TABLE_TWO_TASKS)
    several = _several({s: found[s] for s in present})
    lines = [
        "",
        "## ACE: ablations in the shape of the paper's Table 2 (accuracy, %"
        + (", mean ± SD over runs" if several else "")
        + ")",
        "",
        "| variant | " + " | ".join(names.get(c[0], c[0]) for c in shown) + " | mean over tasks |",
        "|---" * (len(shown) + 2) + "|",
    ]
    for system in present:  # the paper's order: the ablations, then the full method (and our baseline)
        label = dict(TABLE_TWO).get(base_system(system), system)
        if base_system(system) != system:
            label += f" (`{system}`)"
        cells = [_cell(found[system], column) for column in shown]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {_average(found[system], shown)} |")
    folded = [names.get(c[0], c[0]) for c in shown if len(c[1]) > 1]
    if folded:
        lines += ["", f"{', '.join(folded)}: the unweighted mean of the subtasks' accuracies (3, 5 and 7 objects)."]
    return [*lines, "", PAPER_TWO]


def base_system(system: str) -> str:
    """``ace/ace:max_rounds=3`` -> ``ace/ace`` (the variant a row is about)."""
    return system.partition(":")[0]
