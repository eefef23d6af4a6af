"""The transformers backend on whatever device is present: load, throughput, batching, prefix reuse.

Prints:

1. load time: cold (convert the embedded GGUF into an empty cache, then load) and
   cached (load the converted copy), each in a fresh process;
2. decode throughput in generated tokens/s at batch 1 and 3;
3. one turn's plan latency for 3 listeners, batched vs one after another, next
   to a single listener (goal: batched <= 1.5x one listener);
4. prefill tokens per turn (the 3 plan prompts of a turn) with and without
   prefix reuse at turns 5, 10 and 20, for the paper and the cached layouts
   (goal: <= 0.2x the naive count at turn 20 with reuse). The prompts come from
   the scripted demo debate rendered exactly as for the model and tokenized
   with the model's chat template; "with reuse" counts the tokens after the
   longest common token prefix with the agent's previous plan prompt, which is
   what ``PrefixCache`` serves;
5. the cost of signals: decode throughput with and without per-token statistics
   (same greedy tokens), and the latency of one attention query (a prefill-only
   pass) on a prompt of about 600 tokens, for the first and the last layer.

    python bench/backend.py [--model ID_OR_PATH] [--device cpu|cuda] [--dtype float32]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debate_core import AgentSpec, Debate, DebateConfig
from debate_core.backends.base import AttentionQuery, GenerationRequest, Message, SamplingParams, Signals
from debate_core.backends.hf import TransformersBackend
from debate_core.backends.hf.prefix_cache import common_prefix_length
from debate_core.demo import DEMO_QUESTION
from protocols.kimura.demo import demo_backend

LOAD_SNIPPET = """
import json, os, sys, time
os.environ["HF_HUB_OFFLINE"] = "1"
started = time.perf_counter()
from debate_core.backends.hf import TransformersBackend
imported = time.perf_counter()
backend = TransformersBackend({model!r}, device={device!r}, dtype={dtype!r})
backend.loaded
loaded = backend.loaded
print(json.dumps({{"import_s": imported - started + loaded.import_seconds, "load_s": loaded.load_seconds}}))
"""


def load_time(args: argparse.Namespace, cache_dir: str | None) -> dict[str, float]:
    env = dict(os.environ)
    if cache_dir:
        env["DEBATE_MODEL_CACHE"] = cache_dir
    code = LOAD_SNIPPET.format(model=args.model, device=args.device, dtype=args.dtype)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def imports(result: dict[str, float]) -> str:
    return f"(+ {result['import_s']:.2f} s importing torch and transformers, once per process)"


def timed(backend: TransformersBackend, requests: list[GenerationRequest]) -> tuple[float, int]:
    started = time.perf_counter()
    completions = backend.generate(requests)
    return time.perf_counter() - started, sum(c.completion_tokens for c in completions)


def throughput(backend: TransformersBackend) -> None:
    topics = ("the sea", "mountains", "the history of bread")
    make = [
        GenerationRequest(
            (Message("user", f"Write a long, detailed essay about {topic}."),),
            SamplingParams(0.0, 64, 0),
            "utterance",
            f"agent{i}",
            1,
        )
        for i, topic in enumerate(topics)
    ]
    backend.generate(make[:1])  # warm up
    for size in (1, 3):
        seconds, tokens = timed(backend, make[:size])
        print(f"  batch {size}: {tokens} tokens in {seconds:.2f} s = {tokens / seconds:.1f} tokens/s")


def signal_costs(backend: TransformersBackend) -> None:
    topics = ("the sea", "mountains", "the history of bread")

    def essays(size: int, signals: Signals) -> list[GenerationRequest]:
        return [
            GenerationRequest(
                (Message("user", f"Write a long, detailed essay about {topic}."),),
                SamplingParams(0.0, 64, 0),
                "utterance",
                f"agent{i}",
                1,
                signals=signals,
            )
            for i, topic in enumerate(topics[:size])
        ]

    backend.generate(essays(1, Signals(token_stats=True)))  # warm up
    for size in (1, 3):
        rates = []
        for signals in (Signals(), Signals(token_stats=True)):
            best = min(timed(backend, essays(size, signals)) for _ in range(3))
            rates.append(best[1] / best[0])
        print(f"  batch {size}: {rates[0]:.1f} tokens/s plain, {rates[1]:.1f} tokens/s with token statistics")
    sentence = "Alex argued that the pituitary gland sits in the cranial cavity, below the brain. "
    text = f"Rules: [[C]] Answer with one letter and keep it short. [[/C]]\nHistory: <<R>> {sentence * 30}<</R>>"
    for layer in (0, -1):
        query = AttentionQuery(rows=("<<R>>", "<</R>>"), cols=("[[C]]", "[[/C]]"), layer=layer)
        signals = Signals(attention=query)
        request = GenerationRequest(
            (Message("user", text),), SamplingParams(0.0, 1, 0), "attention", "A", 1, signals=signals
        )
        backend.generate([request])  # warm up
        seconds = min(timed(backend, [request])[0] for _ in range(3))
        completion = backend.generate([request])[0]
        assert completion.attention is not None
        print(
            f"  attention query, layer {completion.attention.layer}: {seconds * 1000:.0f} ms "
            f"({completion.prompt_tokens} prompt tokens, {len(completion.attention.tokens)} scored)"
        )


def scripted_plan_prompts(layout: str, turns: int) -> list[GenerationRequest]:
    """Every plan request of a scripted demo debate, as rendered for a model."""
    config = DebateConfig(
        question=DEMO_QUESTION,
        agents=tuple(AgentSpec(name=n) for n in ("Alex", "Chris", "Jenny")),
        token_budget=10**6,
        max_turns=turns,
        max_silent_turns=turns,
        params={"prompt_layout": layout},
    )
    backend = demo_backend(config)
    Debate(config, backend).run()
    return [r for r in backend.requests if r.kind == "plan"]


def turn_plan_latency(backend: TransformersBackend) -> None:
    """A turn's three plans, each agent's previous prompt already cached, as in a running debate."""
    requests = scripted_plan_prompts("cached", 20)
    turn = next(t for t in range(10, 20) if sum(r.turn == t for r in requests) == 3)

    def keyed(r: GenerationRequest, seed: int) -> GenerationRequest:
        sampling = SamplingParams(0.3, 1024, seed)
        return GenerationRequest(r.messages, sampling, r.kind, r.agent, r.turn, r.json_schema, f"bench/{r.agent}/plan")

    listeners = [keyed(r, 7 + i) for i, r in enumerate(r for r in requests if r.turn == turn)]
    before = [keyed([r for r in requests if r.agent == item.agent and r.turn < turn][-1], 0) for item in listeners]

    def measure(batch: list[GenerationRequest]) -> tuple[float, int]:
        backend.generate(before)  # the previous turn, as the cache would hold it (not timed)
        return timed(backend, batch)

    measure(listeners[:1])  # warm up, compiles the grammars
    one, one_tokens = measure(listeners[:1])
    batched, batched_tokens = measure(listeners)
    sequential, sequential_tokens = 0.0, 0
    for item in listeners:
        seconds, tokens = measure([item])
        sequential += seconds
        sequential_tokens += tokens
    print(f"  {len(listeners)} listeners at turn {turn}, each agent's previous plan prompt cached")
    print(f"  one listener:        {one:6.2f} s ({one_tokens} tokens)")
    print(f"  batched:             {batched:6.2f} s ({batched_tokens} tokens) = {batched / one:.2f}x one")
    ratio = sequential / one
    print(f"  one after another:   {sequential:6.2f} s ({sequential_tokens} tokens) = {ratio:.2f}x one")


def prefill_tokens(backend: TransformersBackend) -> None:
    print(f"  {'layout':<7} {'turn':>4} {'naive':>7} {'with reuse':>11} {'ratio':>6}")
    for layout in ("paper", "cached"):
        requests = scripted_plan_prompts(layout, 21)
        previous: dict[str, list[int]] = {}
        per_turn: dict[int, tuple[int, int]] = {}
        for request in requests:
            ids = backend.prompt_ids(request)
            prior = previous.get(request.agent)
            reused = min(common_prefix_length(prior, ids), len(ids) - 1) if prior else 0
            naive, fresh = per_turn.get(request.turn, (0, 0))
            per_turn[request.turn] = (naive + len(ids), fresh + len(ids) - reused)
            previous[request.agent] = ids
        for turn in (5, 10, 20):
            naive, fresh = per_turn[turn]
            print(f"  {layout:<7} {turn:>4} {naive:>7} {fresh:>11} {fresh / naive:>6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="hub id or folder (default: the embedded model)")
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default=None)
    args = parser.parse_args()
    print("1. load time (fresh process each)")
    if args.model is None:
        with tempfile.TemporaryDirectory() as empty:
            cold = load_time(args, empty)
        print(f"  cold (convert GGUF + load): {cold['load_s']:.2f} s", imports(cold))
    cached = load_time(args, None)
    print(f"  cached:                     {cached['load_s']:.2f} s", imports(cached))
    backend = TransformersBackend(args.model, device=args.device, dtype=args.dtype)
    loaded = backend.loaded
    print(f"  model {loaded.model_id} on {loaded.device} ({loaded.dtype})")
    print("2. decode throughput (greedy, 64 new tokens per request)")
    throughput(backend)
    print("3. one turn's plans (grammar-constrained JSON, temperature 0.3)")
    turn_plan_latency(backend)
    print("4. prefill tokens per turn, 3 plan prompts")
    prefill_tokens(backend)
    print("5. the cost of signals (greedy, 64 new tokens per request; best of 3)")
    signal_costs(backend)


if __name__ == "__main__":
    main()
