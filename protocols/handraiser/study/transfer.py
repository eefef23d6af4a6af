"""``python -m experiments handraiser-transfer``: the paper's Table 2 (cross-task transfer) by one command.

    python -m experiments handraiser-transfer --experiment tr-1 --cases 20 \\
        --listeners debate=listeners/debate,pictionary=listeners/tp,scheduling=listeners/ms \\
        [--tasks pictionary,scheduling,handraiser] [--baselines generic,concise,random,prompted] \\
        [any compare option: --backend, --model, --model-for WHO=SPEC, --repeats 3, --seed, ...]
    python -m experiments report tr-1      # Table 2's grid and Table 6's shape

What it does: runs each listener (``--listeners NAME=PATH``, NAME a task:
``debate``, ``pictionary``, ``scheduling``, or any name) on each task of
``--tasks`` (default the three) as HandRaiser's learned policy
(``<task>/learned:listener=PATH``), beside the ``--baselines`` (default
``generic``, Table 2's first row; ``concise,random,prompted`` too give Table
6's other rows), through ``compare`` itself: one comparison per task
(``ID-<task>``, ``--cases`` of the task's data set: MMLU, Text Pictionary's
entities, Meeting Scheduling's cases), with every compare option (backends,
per-role models, repeats, the positions pool), resumable and refused when
rerun with other settings. The transfer itself is recorded as an experiment
of its own kind (``handraiser-transfer``: the listeners, the tasks, each
task's study and which system is which row), which ``report`` (and the
Analysis tab) shows as Table 2's grid (rows: trained on; columns: evaluated
on; cells: success with n and interval, and cost) and Table 6's shape
(policies by task, each task's own listener as ``learned``).

What it does not do: train listeners (``train-listener``) or fold debates
(``report.policy_rows``, ``tables``).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
from pathlib import Path
from typing import Any

from rich.console import Console

from experiments import compare_cli
from experiments.compare import CompareSpec
from experiments.extensions import Command, ReportOptions, StudyKind, StudyView, WrittenReport
from experiments.progress import Progress
from experiments.workers import ExperimentError, register_study
from protocols.handraiser.study.report import PolicyRow, policy_rows
from protocols.handraiser.study.tables import policy_of, table_six, transfer_grid
from protocols.handraiser.study.tasks import Task, task
from storage import Store
from storage.experiments import ExperimentRecord

KIND = "handraiser-transfer"
NAME = "handraiser-transfer"
GENERIC = "generic"


class _Renamed:
    """Hands ``compare_cli.add_parser`` a parser named ``handraiser-transfer``."""

    def __init__(self, commands: Any) -> None:
        self.commands = commands
        self.parser: argparse.ArgumentParser | None = None

    def add_parser(self, _name: str, **_options: Any) -> argparse.ArgumentParser:
        what = "HandRaiser's Table 2: each listener on each task (compare, one study per task)"
        self.parser = self.commands.add_parser(NAME, help=what, description=what)
        return self.parser


def add_parser(commands: Any) -> None:
    renamed = _Renamed(commands)
    compare_cli.add_parser(renamed)
    parser = renamed.parser
    assert parser is not None
    for action in parser._actions:
        if action.dest == "experiment":
            action.required, action.default, action.help = False, NAME, f"the transfer's id (default: {NAME})"
        elif action.dest == "systems":
            action.help = "not used: the systems are --baselines and --listeners on each task"
    parser.add_argument("--listeners", required=True, metavar="NAME=PATH,...", help="the trained listeners, by "
                        "the task each was trained on: debate=PATH,pictionary=PATH,scheduling=PATH")  # fmt: skip
    parser.add_argument("--tasks", default="pictionary,scheduling,handraiser", help="the tasks to evaluate on "
                        "(default: the three: pictionary, scheduling, handraiser)")  # fmt: skip
    parser.add_argument("--cases", type=int, default=5, help="cases per task (default 5; the paper's test sets: "
                        "100 entities, 50 cases, 100 questions)")  # fmt: skip
    parser.add_argument("--debate-data", default="mmlu", metavar="NAME", help="the debate task's data set "
                        "(default mmlu, offline; the paper's is mmlu_pro, loaded through `datasets`)")  # fmt: skip
    parser.add_argument("--baselines", default=GENERIC, help="policies run beside the listeners (default: "
                        "generic, Table 2's; generic,concise,random,prompted for Table 6's rows)")  # fmt: skip


def listeners_from(text: str) -> dict[str, str]:
    """``NAME=PATH,...`` as ``{name: path}``; a task's name is its alias (``handraiser`` reads as ``debate``)."""
    found: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        name, sep, path = (part.strip() for part in pair.partition("="))
        if not sep or not name or not path:
            raise ExperimentError(f"--listeners {pair!r}: write NAME=PATH, e.g. pictionary=listeners/tp")
        with contextlib.suppress(ExperimentError):  # else a name of the user's own (trained on several tasks)
            name = task(name).alias
        if name in found or name == GENERIC:
            raise ExperimentError(f"--listeners: {name} is named twice, or is the baseline's name")
        found[name] = path
    if not found:
        raise ExperimentError("--listeners: name at least one listener, NAME=PATH")
    return found


def plan(args: argparse.Namespace) -> dict[str, Any]:
    """The transfer's specification: the listeners, and per task its study and which system is which row."""
    listeners = listeners_from(args.listeners)
    tasks = [task(name) for name in dict.fromkeys(n.strip() for n in args.tasks.split(",") if n.strip())]
    baselines = [b.strip() for b in args.baselines.split(",") if b.strip()]
    rows: dict[str, dict[str, str]] = {}
    for t in tasks:
        rows[t.protocol] = {f"{t.protocol}/{b}": b for b in baselines}
        rows[t.protocol].update({f"{t.protocol}/learned:listener={path}": name for name, path in listeners.items()})
    spec: dict[str, Any] = {
        "kind": KIND,
        "listeners": listeners,
        "baselines": baselines,
        "tasks": [t.protocol for t in tasks],
        "cases": args.cases,
        "studies": {t.protocol: f"{args.experiment}-{t.alias}" for t in tasks},
        "rows": rows,
    }
    debate_data = getattr(args, "debate_data", "mmlu").strip().lower()
    if debate_data != "mmlu":  # recorded only when set, so a transfer stored before the option reruns as it was
        spec["debate_data"] = debate_data
    return spec


def study_args(args: argparse.Namespace, spec: dict[str, Any], found: Task) -> argparse.Namespace:
    """``compare``'s options for the task's study: the transfer's, with its systems and the task's cases only."""
    mine = copy.copy(args)
    mine.experiment = spec["studies"][found.protocol]
    mine.systems = ",".join(spec["rows"][found.protocol])
    dataset = spec.get("debate_data", "mmlu") if found.protocol == "handraiser" else found.dataset
    mine.mmlu = spec["cases"] if dataset == "mmlu" else 0
    mine.strategyqa = 0
    mine.data = [] if dataset == "mmlu" else [f"{dataset}={spec['cases']}"]
    return mine


def cmd_transfer(args: argparse.Namespace, console: Console, progress: Progress | None) -> int:
    spec = plan(args)
    CompareSpec(experiment_id=args.experiment, systems=tuple(s for rows in spec["rows"].values() for s in rows))
    store = Store(args.db)
    try:

        def changes(stored: dict[str, Any]) -> list[str]:
            if stored.get("kind") != KIND:
                raise ExperimentError(f"experiment {args.experiment!r} is not a HandRaiser transfer")
            return [f"{key}: {stored.get(key)} -> {spec[key]}" for key in spec if stored.get(key) != spec[key]]

        register_study(store, args.experiment, compare_cli.model_label(args), spec, changes)
    finally:
        store.close()
    status = 0
    for protocol in spec["tasks"]:
        console.print(f"{protocol}: study {spec['studies'][protocol]}")
        status = max(status, compare_cli.cmd_compare(study_args(args, spec, task(protocol)), console, progress))
    store = Store(args.db)
    try:
        record = store.experiments.get(args.experiment)
        assert record is not None
        console.print("\n".join(markdown(store, record)), markup=False, highlight=False, soft_wrap=True)
    finally:
        store.close()
    return status


def _rows(store: Store, spec: dict[str, Any]) -> dict[str, list[PolicyRow]]:
    found: dict[str, list[PolicyRow]] = {}
    for protocol, study in spec["studies"].items():
        record = store.experiments.get(study)
        if record is None:
            found[protocol] = []
            continue
        systems = CompareSpec.model_validate(record.spec).systems
        found[protocol] = policy_rows(store, store.experiments.runs(study), systems)
    return found


def markdown(store: Store, record: ExperimentRecord) -> list[str]:
    """The transfer's report: Table 2's grid, then Table 6's shape (each task's own listener as ``learned``)."""
    spec = record.spec
    by_task = _rows(store, spec)
    cells = {(spec["rows"][p][r.system], p): r for p, rows in by_task.items() for r in rows}
    trained = [*spec["baselines"][:1], *spec["listeners"]]
    evaluated = [task(p) for p in spec["tasks"]]
    lines = [f"# HandRaiser transfer {record.id}", "", *transfer_grid(cells, trained, evaluated)]

    def label(system: str) -> str | None:
        protocol = system.partition("/")[0]
        name = spec["rows"][protocol].get(system)
        if name in spec["listeners"]:
            return "learned" if name == task(protocol).alias else None  # HandRaiser as the paper: per task
        return policy_of(system)

    lines += table_six([r for rows in by_task.values() for r in rows], label)
    studies = ", ".join(f"{task(p).title}: `{study}`" for p, study in spec["studies"].items())
    return [*lines, f"Studies (each a comparison with its own report): {studies}.", ""]


def view(store: Store, record: ExperimentRecord, step: int) -> StudyView:
    return StudyView("\n".join(markdown(store, record)))


def write(store: Store, record: ExperimentRecord, folder: Path, options: ReportOptions) -> WrittenReport:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "report.md"
    path.write_text("\n".join(markdown(store, record)), encoding="utf-8")
    return WrittenReport(f"wrote {path}")


def _is_transfer(record: ExperimentRecord) -> bool:
    return record.spec.get("kind") == KIND


STUDY_KIND = StudyKind(KIND, _is_transfer, view, write)
COMMAND = Command(NAME, add_parser, cmd_transfer, progress=True)
