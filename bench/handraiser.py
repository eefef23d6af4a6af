"""What a HandRaiser moderator's check costs on the embedded model: prefill per check, with and without reuse.

Runs prompted HandRaiser debates on the embedded SmolLM2-135M (CPU), each one
round of 64-token statements, and prints per moderator check: the prompt
tokens, how many of them the backend computed (the rest came from its prefix
cache: the previous check's prompt of the same moderator), split into a
statement's first check (the record changed since the last one) and the later
checks (only the new chunk and the template's closing tokens should be new),
and the seconds per check; then the same debates with prefix reuse off. It
also prints, per debate, the paper's cost next to the prompt tokens computed.

    python bench/handraiser.py [--debates 3] [--chunk-tokens 16]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's packages before bench/'s modules

from debate_core import AgentSpec, DebateConfig
from debate_core.backends.factory import BackendSpec, make_backend
from debate_core.debate import Debate
from debate_core.events import ListenerDecision
from experiments.compare import mmlu_items
from protocols.handraiser.cost import debate_cost


def run(debates: int, chunk_tokens: int, reuse: bool) -> None:
    backend = make_backend(BackendSpec("transformers", prefix_reuse=reuse))
    first, later, seconds, computed, paper = [], [], [], [], []
    started = time.perf_counter()
    for item in mmlu_items(debates, seed=7):
        config = DebateConfig(
            question=item.question,
            agents=(AgentSpec(name="Pro"), AgentSpec(name="Con"), AgentSpec(name="Moderator")),
            protocol="handraiser",
            variant="prompted",
            params={"max_rounds": 1, "statement_tokens": 64, "chunk_tokens": chunk_tokens},
            max_new_tokens=160,
        )
        events = Debate(config, backend).run()
        for e in events:
            if isinstance(e, ListenerDecision) and e.source.value == "model":
                new = e.generation.prompt_tokens - e.generation.cached_tokens
                (first if e.unit_index == 0 else later).append((e.generation.prompt_tokens, new))
                seconds.append(e.generation.latency_s)
        stats = events[-1].stats
        computed.append(stats.prompt_tokens - stats.cached_prompt_tokens)
        paper.append(debate_cost(events).total)
    label = "prefix reuse on " if reuse else "prefix reuse off"

    def show(name: str, rows: list[tuple[int, int]]) -> str:
        if not rows:
            return f"{name}: none"
        return (
            f"{name}: {len(rows)} checks, prompt {statistics.fmean(p for p, _ in rows):.0f} tokens, "
            f"computed {statistics.fmean(n for _, n in rows):.0f}"
        )

    print(f"{label}: {show('first check of a statement', first)}; {show('later checks', later)}")
    print(
        f"{label}: {statistics.fmean(seconds):.3f} s per check; per debate: paper's cost "
        f"{statistics.fmean(paper):.0f} tokens, prompt tokens computed {statistics.fmean(computed):.0f}; "
        f"{time.perf_counter() - started:.0f} s in all"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--debates", type=int, default=3)
    parser.add_argument("--chunk-tokens", type=int, default=16)
    args = parser.parse_args()
    for reuse in (True, False):
        run(args.debates, args.chunk_tokens, reuse)


if __name__ == "__main__":
    main()
