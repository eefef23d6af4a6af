"""Debates per hour and seconds per plan call: in-process transformers, llama.cpp's server, and vLLM.

Runs the same small interruptible debates (3 agents, cached layout, short caps) on the embedded
SmolLM2-135M through each engine, first one debate at a time, then ``--concurrency`` at once:

* ``transformers``: the in-process backend (fp32); concurrent debates share it through
  ``CoalescingBackend``, as the study harness does;
* ``llamacpp``: ``--backend llamacpp`` (xllamacpp's server on the 4-bit GGUF, ``--threads``);
  concurrent debates send their requests to the server, which batches them continuously;
* ``vllm``: a vLLM server from ``.venv-vllm`` (``make test-vllm`` builds it), float32, eager,
  started here and stopped at the end; skipped with a note when that venv is missing.

Prints per engine and concurrency: debates per hour, plan calls, seconds per plan call (mean and
median of each call's latency as the debate saw it), generated tokens, and the paper's own code's
6.5 s per plan call (llama.cpp, one listener after another, measured on this kind of machine) as
the reference.

    python bench/serving.py [--engines transformers,llamacpp,vllm] [--debates 4] [--concurrency 4]
        [--budget 40] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from debate_core import AgentSpec, Debate, DebateConfig, Question  # noqa: E402
from debate_core.backends.base import Backend  # noqa: E402
from debate_core.events import DebateEnded, Event, PlansMade  # noqa: E402

PAPER_PLAN_S = 6.5
QUESTIONS = [
    Question(
        text="Which body cavity contains the pituitary gland?",
        options=("Abdominal", "Cranial", "Pleural", "Spinal"),
        answer="B",
    ),
    Question(
        text="What gas makes up most of dry air?", options=("Oxygen", "Argon", "Nitrogen", "Carbon dioxide"), answer="C"
    ),
    Question(text="Which planet is closest to the Sun?", options=("Venus", "Mercury", "Earth", "Mars"), answer="B"),
    Question(text="What is 7 x 8?", options=("54", "56", "58", "64"), answer="B"),
]


def config(i: int, budget: int) -> DebateConfig:
    return DebateConfig(
        question=QUESTIONS[i % len(QUESTIONS)],
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny")),
        condition="interruptible",
        token_budget=budget,
        seed=i,
        params={"utterance_max_new_tokens": 30, "prompt_layout": "cached"},
        max_new_tokens=96,
        max_turns=12,
    )


def run(make: Callable[[int], Backend], debates: int, concurrency: int, budget: int) -> dict[str, float]:
    def one(i: int) -> list[Event]:
        backend = make(concurrency)
        try:
            return Debate(config(i, budget), backend).run()
        finally:
            leave = getattr(backend, "leave", None)
            if leave is not None and concurrency > 1:
                leave()  # a coalescer stops waiting for a finished debate

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        results = list(pool.map(one, range(debates)))
    wall = time.perf_counter() - started
    latencies = [
        r.generation.latency_s
        for events in results
        for e in events
        if isinstance(e, PlansMade)
        for r in e.plans
        if r.generation is not None and r.generation.completion_tokens
    ]
    ends = [events[-1] for events in results]
    assert all(isinstance(e, DebateEnded) and e.error is None for e in ends), [getattr(e, "error", None) for e in ends]
    return {
        "debates/hour": debates / wall * 3600,
        "wall_s": wall,
        "plan_calls": len(latencies),
        "plan_s_mean": statistics.fmean(latencies) if latencies else 0.0,
        "plan_s_median": statistics.median(latencies) if latencies else 0.0,
        "generated": sum(e.stats.generated_tokens for e in ends if isinstance(e, DebateEnded)),
    }


def transformers_engine() -> tuple[Callable[[int], Backend], Callable[[], None]]:
    from debate_core.backends.coalescing import CoalescingBackend
    from debate_core.backends.hf import TransformersBackend

    inner = TransformersBackend()
    inner.count_tokens("load")  # the load is not part of the debates' time
    shared: dict[int, CoalescingBackend] = {}

    def make(concurrency: int) -> Backend:
        if concurrency == 1:
            return inner
        return shared.setdefault(concurrency, CoalescingBackend(inner, concurrency))

    return make, lambda: None


def llamacpp_engine(threads: int, parallel: int) -> tuple[Callable[[int], Backend], Callable[[], None]]:
    from debate_core.backends.openai import LlamaCppBackend

    backend = LlamaCppBackend(None, threads=threads, parallel=parallel, concurrency=parallel * 3)
    return (lambda concurrency: backend), backend.close


def vllm_engine() -> tuple[Callable[[int], Backend], Callable[[], None]] | str:
    python = ROOT / ".venv-vllm" / "bin" / "python"
    if not python.is_file():
        return "no .venv-vllm (make test-vllm builds it)"
    from debate_core.backends.hf.embedded import embedded_model_dir
    from debate_core.backends.openai import OpenAIBackend
    from debate_core.backends.openai.llamacpp import free_port

    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="vllm-bench-", suffix=".log", delete=False)  # noqa: SIM115
    command = [
        str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(embedded_model_dir()),
        "--served-model-name", "smollm2", "--host", "127.0.0.1", "--port", str(port), "--dtype", "float32",
        "--max-model-len", "2048", "--max-num-seqs", "12", "--max-num-batched-tokens", "24576", "--enforce-eager",
        "--max-logprobs", "20", "--enable-prompt-tokens-details",
        "--structured-outputs-config", json.dumps({"backend": "xgrammar", "disable_any_whitespace": True}),
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update({"VLLM_CPU_KVCACHE_SPACE": "2", "VLLM_NO_USAGE_STATS": "1", "TRANSFORMERS_OFFLINE": "1"})
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return "vLLM exited at start: " + Path(log.name).read_text()[-2000:]
        try:
            if httpx.get(url + "/models", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        time.sleep(1)
    backend = OpenAIBackend(url, "smollm2", api_key_env="", concurrency=12)

    def stop() -> None:
        backend.close()
        os.killpg(process.pid, 15)
        process.wait(timeout=30)

    return (lambda concurrency: backend), stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engines", default="transformers,llamacpp,vllm")
    parser.add_argument("--debates", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--budget", type=int, default=40)
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads (1 on a shared 2-core machine)")
    args = parser.parse_args()
    print(f"{args.debates} interruptible debates (3 agents, budget {args.budget}, <= 12 turns), embedded SmolLM2-135M")
    print(f"reference: the paper's code (llama.cpp, one listener after another): {PAPER_PLAN_S} s per plan call\n")
    header = (
        f"{'engine':<13}{'debates at once':>16}{'debates/hour':>14}{'plan calls':>12}"
        f"{'s/plan mean':>13}{'median':>9}{'generated':>11}"
    )
    print(header)
    for name in args.engines.split(","):
        if name == "transformers":
            engine: tuple[Callable[[int], Backend], Callable[[], None]] | str = transformers_engine()
        elif name == "llamacpp":
            engine = llamacpp_engine(args.threads, parallel=max(args.concurrency, 4))
        elif name == "vllm":
            engine = vllm_engine()
        else:
            raise SystemExit(f"unknown engine {name}")
        if isinstance(engine, str):
            print(f"{name:<13}skipped: {engine}")
            continue
        make, stop = engine
        try:
            for concurrency in (1, args.concurrency):
                row = run(make, args.debates, concurrency, args.budget)
                print(
                    f"{name:<13}{concurrency:>16}{row['debates/hour']:>14.1f}{row['plan_calls']:>12}"
                    f"{row['plan_s_mean']:>13.2f}{row['plan_s_median']:>9.2f}{row['generated']:>11,}",
                    flush=True,
                )
        finally:
            stop()


if __name__ == "__main__":
    main()
