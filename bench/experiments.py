"""Debates per hour with 1 and with N concurrent debates (their model calls batched together).

Runs the same small study twice on the same model, into a temporary store:
once one debate at a time, once ``--concurrency`` debates at a time through
``CoalescingBackend`` (one backend batch per step for all of them). The pool
is generated once, before timing, and shared by both runs. Prints debates per
hour for each, the speed-up, the batch sizes the model saw, and whether the
two runs produced the same debates (they should: sampling is seeded per
request and the decoder's results do not depend on the batch).

    python bench/experiments.py [--model ID_OR_PATH] [--device cpu|cuda] [--concurrency 4]
        [--questions 2] [--budget 60] [--utterance-max-new-tokens 40]

Defaults keep it to a few minutes on a 2-core CPU with the embedded model.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from debate_core.backends.hf import TransformersBackend
from debate_core.config import Condition, PromptLayout
from protocols.kimura.study.pool import Setting
from protocols.kimura.study.runner import StudyRunner
from protocols.kimura.study.spec import StudySpec
from storage import Store


def spec(args: argparse.Namespace, experiment_id: str) -> StudySpec:
    return StudySpec(
        experiment_id=experiment_id,
        model=args.model,
        questions=args.questions,
        settings=(Setting.TWO_INCORRECT,),
        conditions=(Condition.DYNAMIC, Condition.INTERRUPTIBLE),
        token_budget=args.budget,
        max_new_tokens=args.max_new_tokens,
        utterance_max_new_tokens=args.utterance_max_new_tokens,
        prompt_layout=PromptLayout.CACHED,
        pool_threshold=args.pool_threshold,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="hub id or folder (default: the embedded SmolLM2-135M)")
    parser.add_argument("--device")
    parser.add_argument("--dtype")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--questions", type=int, default=2)
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--max-new-tokens", type=int, default=192)
    parser.add_argument("--utterance-max-new-tokens", type=int, default=40)
    parser.add_argument("--pool-threshold", type=int, default=1)
    args = parser.parse_args()

    backend = TransformersBackend(args.model, device=args.device, dtype=args.dtype)
    loaded = backend.loaded
    print(f"model: {backend.model_id} on {loaded.device} ({loaded.dtype})")
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.sqlite3")
        started = time.perf_counter()
        runs = {}
        for concurrency in (1, args.concurrency):
            experiment = f"bench-c{concurrency}"
            runner = StudyRunner(spec(args, experiment), store, backend, concurrency=concurrency)
            summary = runner.run()
            if concurrency == 1:
                print(
                    f"pool: {summary.pool.usable} usable of {summary.pool.examined} "
                    f"(generated before timing; {time.perf_counter() - started:.0f} s incl. the first run)"
                )
            runs[concurrency] = summary
            sizes = summary.batch_sizes or [0]
            print(
                f"concurrency {concurrency}: {summary.finished} debates in {summary.wall_s:.0f} s = "
                f"{summary.debates_per_hour:.1f} debates/hour"
                + (f"; model batches of {statistics.mean(sizes):.1f} requests on average" if concurrency > 1 else "")
            )
        one, many = runs[1], runs[args.concurrency]
        if one.debates_per_hour:
            print(f"speed-up from cross-debate batching: {many.debates_per_hour / one.debates_per_hour:.2f}x")
        same = 0
        for run in store.experiments.runs("bench-c1"):
            twin = spec(args, f"bench-c{args.concurrency}").debate_id(
                run.question_key, Setting(run.setting), Condition(run.condition)
            )
            a, b = store.events(run.debate_id), store.events(twin)
            same += [(e.type, e.turn, e.public_tokens) for e in a] == [(e.type, e.turn, e.public_tokens) for e in b]
        print(f"identical debates (event types, turns, tokens): {same} of {one.finished}")
        store.close()


if __name__ == "__main__":
    main()
