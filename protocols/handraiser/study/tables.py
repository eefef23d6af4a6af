"""The paper's two result tables in HandRaiser's report: Table 6 (policies by task) and Table 2 (cross-task transfer).

What it does: ``table_six(rows)`` lays the report's policy rows (``report.PolicyRow``,
one per system) out as the paper's Table 6: one row per listener policy (the
system less its task, e.g. ``generic``, ``threshold:tau=0.3``; a learned
listener as ``learned``, its ``listener=PATH`` left out, or named where one
task has several), one column pair per task present, in the paper's order
(Text Pictionary, Meeting Scheduling, the MMLU debate): the success rate with
n and a 95% Wilson interval, and the paper's mean cost. ``label`` may name the
rows otherwise (the transfer report keeps each task's own listener as
``learned``). ``transfer_grid(cells, trained, evaluated)`` is Table 2: rows
are what the listener was trained on (``generic``: no listener, the
baseline), columns the task it was evaluated on, each cell the success and
cost there.

What it does not do: fold debates into rows (``report.policy_rows``) or run
anything (``transfer``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from experiments.accuracy import Accuracy
from experiments.compare import system_parts
from protocols.handraiser.study.tasks import TASKS, Task, task_of_system


class PolicyRow(Protocol):
    """What a table reads of the report's row of one system (``report.PolicyRow``)."""

    @property
    def system(self) -> str: ...

    @property
    def success(self) -> Accuracy: ...

    @property
    def cost(self) -> float: ...


def policy_of(system: str) -> str:
    """A system's policy, its task left out: ``pictionary/threshold:tau=0.3`` -> ``threshold:tau=0.3``;
    a learned listener's path is left out too (``learned``)."""
    _, variant, overrides = system_parts(system)
    shown = ",".join(f"{key}={value}" for key, value in overrides.items() if key != "listener")
    return variant + (f":{shown}" if shown else "")


def _cell(row: PolicyRow | None) -> list[str]:
    return ["-", "-"] if row is None else [str(row.success), f"{row.cost:,.1f}"]


def table_six(rows: Sequence[PolicyRow], label: Callable[[str], str | None] = policy_of) -> list[str]:
    """Table 6's shape: policies by task (see the module docstring); [] without a HandRaiser row."""
    tasks: list[Task] = []
    by_policy: dict[str, dict[str, PolicyRow]] = {}
    for row in rows:
        found, name = task_of_system(row.system), label(row.system)
        if found is None or name is None:
            continue
        if found not in tasks:
            tasks.append(found)
        cells = by_policy.setdefault(name, {})
        if found.protocol in cells:  # two rows of one task under one name (several listeners): name each
            cells = by_policy.setdefault(f"{name} ({row.system})", {})
        cells[found.protocol] = row
    if not by_policy:
        return []
    tasks.sort(key=TASKS.index)
    header = " | ".join(f"{t.short} success (n, 95% CI) | {t.short} cost" for t in tasks)
    lines = [
        "### Table 6's shape: success and cost per policy and task",
        "",
        "Rows are the listener policies, columns the tasks (TP: Text Pictionary, MS: Meeting Scheduling, "
        "MMLU-D: the debate); each cell the success rate with n and a 95% interval, and the paper's mean cost.",
        "",
        f"| policy | {header} |",
        "|---|" + "---|---|" * len(tasks),
    ]
    for name, cells in by_policy.items():
        values = [value for t in tasks for value in _cell(cells.get(t.protocol))]
        lines.append(f"| {name} | " + " | ".join(values) + " |")
    return [*lines, ""]


def transfer_grid(
    cells: Mapping[tuple[str, str], PolicyRow], trained: Sequence[str], evaluated: Sequence[Task]
) -> list[str]:
    """Table 2: ``cells[(trained on, evaluated task's protocol)]``; rows in ``trained`` order (see the docstring)."""
    header = " | ".join(f"{t.short} success | {t.short} cost" for t in evaluated)
    lines = [
        "## HandRaiser: cross-task transfer (the shape of the paper's Table 2)",
        "",
        "Rows: what the listener was trained on (generic: no listener, nobody interrupts); columns: the task it "
        "was evaluated on. Each cell: the success rate with n and a 95% interval, and the paper's mean cost. "
        "The diagonal is each task's own listener (HandRaiser as the paper trains it, one per task).",
        "",
        f"| trained on | {header} |",
        "|---|" + "---|---|" * len(evaluated),
    ]
    for name in trained:
        values = [value for t in evaluated for value in _cell(cells.get((name, t.protocol)))]
        lines.append(f"| {name} | " + " | ".join(values) + " |")
    return [*lines, ""]
