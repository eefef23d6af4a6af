"""``python -m experiments tree-sample``: HandRaiser's listener training data by tree sampling, on any task.

    python -m experiments tree-sample --experiment ID --cases 5 --out data/listener.jsonl \\
        [--protocol handraiser|pictionary|scheduling] [--dataset NAME] [--param KEY=VALUE ...] \\
        [--branch-size 3 --rollouts 10 --max-nodes 10 --temperature 1.0] [--model ID] \\
        [--model-for WHO=SPEC ...] [--positions-model SPEC]
    python -m experiments train-listener --data data/listener.jsonl --out listeners/ID

What it does: parses the options into a ``TreeSpec`` (the task, its data
set, the task's parameters resolved, the per-role models and the positions
model), loads the cases (the task's own data set, or ``--dataset``), builds
the backends (``--model-for``: each seat's own model, through
``SeatBackends``; ``--positions-model``: the model that writes the debate's
positions pool), samples every case's tree with a progress bar (Ctrl-C stops
it; the same command resumes from the store, and refuses other settings),
then labels the branches and writes the chat-format JSONL, noting its size,
label balance and checksum in the experiment's notes.

What it does not do: train (``train_listener``) or sample anything itself
(``tree``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from debate_core.backends.model_for import normalised, parse_model_for
from experiments import compare_cli, compare_models, extensions
from experiments.compare import CompareSpec, Item
from experiments.compare_cli import add_backend_options, model_label, study_backend
from experiments.extensions import Command
from experiments.progress import Progress
from experiments.workers import ExperimentError
from protocols.handraiser.study.positions import (
    add_positions_model_option,
    position_pool,
    positions_backend,
    positions_label,
)
from protocols.handraiser.study.tasks import task
from protocols.handraiser.study.tree import TreeSampler, TreeSpec, TreeSummary, write_jsonl
from storage import Store


def add_parser(commands: Any) -> None:
    run = commands.add_parser("tree-sample", help="HandRaiser: label listener decisions by tree sampling (resumable)")
    run.add_argument("--experiment", required=True, metavar="ID")
    run.add_argument("--out", required=True, metavar="FILE", help="the chat-format JSONL to write")
    run.add_argument("--db", metavar="PATH_OR_URL", help="the store (default: the app's database)")
    run.add_argument(
        "--protocol",
        default="handraiser",
        metavar="TASK",
        help="the task: handraiser (the debate; the moderator listens), pictionary (the guesser) or scheduling "
        "(the traveler); default handraiser",
    )
    run.add_argument("--cases", type=int, help="cases (questions) to sample trees on (default 5)")
    run.add_argument("--mmlu", type=int, help="the debate's MMLU questions (the same as --cases)")
    run.add_argument("--dataset", metavar="NAME", help="where the cases come from (default: the task's own: mmlu, "
                     "pictionary, scheduling; e.g. mmlu_pro for the debate)")  # fmt: skip
    run.add_argument("--data-file", "--mmlu-data", dest="data_file", metavar="FILE", help="the data set's local file")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--temperature", type=float, default=1.0)
    run.add_argument("--chunk-tokens", type=int, help="default: the task's (16; Text Pictionary 8)")
    run.add_argument("--max-rounds", type=int, help="default: the task's (10)")
    run.add_argument("--statement-tokens", type=int, help="the debate's statement cap (default 256)")
    run.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="a parameter of the task "
                     "(python -m debate_core protocols lists them), e.g. --param questions=false")  # fmt: skip
    run.add_argument("--max-new-tokens", type=int, default=512)
    run.add_argument("--branch-size", type=int, default=3, help="interrupt points per node (default 3)")
    run.add_argument("--rollouts", type=int, default=10, help="rollouts per branch (default 10)")
    run.add_argument("--max-nodes", type=int, default=10, help="speaking nodes per question (default 10)")
    run.add_argument("--no-positions", action="store_true", help="assign the sides by seed, not the positions pool")
    add_positions_model_option(run)
    add_backend_options(run)
    add_model_for_option(run)
    run.add_argument(
        "--label-only",
        action="store_true",
        help="sample nothing more: label and export the nodes whose rollouts are all finished",
    )
    run.add_argument("--no-progress", action="store_true")


def add_model_for_option(run: Any) -> None:
    run.add_argument(
        "--model-for",
        action="append",
        default=[],
        metavar="WHO=SPEC",
        help="a model of its own for an agent or role (repeatable; compare's syntax), e.g. --model-for "
        "moderator=meta-llama/Llama-3.1-8B-Instruct: speakers and listener on different models",
    )


def _params(args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in args.param:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ExperimentError(f"--param {pair!r}: write KEY=VALUE, e.g. --param questions=false")
        try:
            params[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            params[key.strip()] = raw.strip()
    given = {key: getattr(args, key) for key in ("chunk_tokens", "max_rounds", "statement_tokens")}
    return {**params, **{key: value for key, value in given.items() if value is not None}}


def spec_from(args: argparse.Namespace) -> TreeSpec:
    found = task(args.protocol)
    if args.cases is not None and args.mmlu is not None and args.cases != args.mmlu:
        raise ExperimentError("--cases and --mmlu say different numbers: give one")
    return TreeSpec(
        experiment_id=args.experiment,
        protocol=found.protocol,
        dataset=args.dataset or found.dataset,
        cases=next((n for n in (args.cases, args.mmlu) if n is not None), 5),
        model=model_label(args),
        model_for=normalised(parse_model_for(args.model_for), args.backend),
        positions_model=positions_label(args),
        seed=args.seed,
        temperature=args.temperature,
        max_new_tokens=args.max_new_tokens,
        branch_size=args.branch_size,
        rollouts=args.rollouts,
        max_nodes=args.max_nodes,
        positions=found.protocol == "handraiser" and not args.no_positions and args.backend != "scripted",
        params=_params(args),
    )


def items_for(spec: TreeSpec, path: str | None) -> list[Item]:
    """The tree's cases: ``spec.cases`` of its data set, seeded."""
    dataset = next((d for d in extensions.datasets() if d.name == spec.dataset), None)
    if dataset is None:
        known = ", ".join(d.name for d in extensions.datasets())
        raise ExperimentError(f"--dataset {spec.dataset}: no such data set (known: {known})")
    compare = CompareSpec(experiment_id=spec.experiment_id, systems=(spec.system(),), seed=spec.seed)
    return dataset.items(extensions.DataRequest(spec.cases, spec.seed, path, compare))


def check_model_for(spec: TreeSpec) -> None:
    """Refuse a WHO that the task has no agent or role for, before any model is loaded."""
    if spec.model_for:
        compare_models.check(CompareSpec(experiment_id="tree", systems=(spec.system(),), model_for=spec.model_for))


def cmd_tree_sample(args: argparse.Namespace, console: Console, progress: Progress | None) -> int:
    spec = spec_from(args)
    check_model_for(spec)
    items = items_for(spec, args.data_file)
    if not items:
        raise ExperimentError("no cases: ask for --cases N")
    first = spec.config(items[0], None)
    backend, per_debate = study_backend(args, first)
    seats = compare_cli.seat_backends(args, backend)
    store = Store(args.db)
    started = time.perf_counter()
    try:
        wanted = spec.positions and not args.label_only
        writer = positions_backend(args, seats, backend, first)
        positions = position_pool(store, writer, items, seed=spec.seed) if wanted else None
        sampler = TreeSampler(
            spec,
            store,
            backend,
            items,
            positions=positions,
            concurrency=args.concurrency,
            progress=progress,
            per_debate=per_debate,
            seats=seats,
        )
        try:
            if args.label_only:
                sampler.register()
                summary = TreeSummary()
            else:
                summary = sampler.run()
        except KeyboardInterrupt:
            console.print("[yellow]stopped: rerun the same command to resume")
            return 130
        examples = sampler.examples()
        written = write_jsonl(examples, Path(args.out))
        written["seconds"] = round(time.perf_counter() - started, 1)
        store.experiments.update_notes(spec.experiment_id, listener_data=written)
    finally:
        store.close()
    console.print(
        f"debates: {summary.roots} roots and {summary.rollouts} rollouts, {summary.skipped} already finished, "
        f"{summary.finished} finished now, {summary.failed} failed; {written['seconds']:.0f} s"
    )
    console.print(f"examples: {written['examples']} ({written['yes']} Yes) written to {args.out}")
    return 1 if summary.failed else 0


COMMAND = Command("tree-sample", add_parser, cmd_tree_sample, progress=True)
