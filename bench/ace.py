"""What each step of ACE costs on the embedded model, per variant: calls, tokens and seconds.

Runs one debate per variant (``ace``, ``no_analyze``, ``no_compose``,
``no_execute``, ``parallel``) on the same MMLU questions with the embedded
SmolLM2-135M (CPU), each capped at ``--rounds`` rounds, and prints per
variant and request kind: the calls, the mean prompt tokens, how many of them
the backend computed (the rest came from its prefix cache), the mean
generated tokens and seconds per call; then per variant the debate's totals
(rounds run, prompt and generated tokens, wall seconds). The request kinds
are read from the events that carry their generation (a debater's reply, an
analysis, a composed action). Every request carries its JSON schema
(``constrained=true``: the 135M model breaks JSON without it, and unusable
replies would measure the fallbacks); ``--unconstrained`` measures the
paper's prompt-only JSON, ACE's default.

    python bench/ace.py [--questions 2] [--rounds 3] [--unconstrained]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's packages before bench/'s modules

from debate_core import DebateConfig
from debate_core.backends.factory import BackendSpec, make_backend
from debate_core.debate import Debate
from debate_core.events import DebateEnded, PhaseStarted, UtteranceGenerated
from debate_core.events.records import GenerationInfo
from experiments.compare import agents_for, mmlu_items
from protocols.ace.events import ActionComposed, AnalysisMade

VARIANTS = ("ace", "no_analyze", "no_compose", "no_execute", "parallel")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--unconstrained", action="store_true", help="no JSON schema (the paper's way)")
    args = parser.parse_args()
    backend = make_backend(BackendSpec("transformers"))
    items = mmlu_items(args.questions, seed=11)
    schema = "no JSON schema" if args.unconstrained else "JSON schemas enforced"
    print(f"{backend.model_id}; {args.questions} MMLU questions; at most {args.rounds} rounds; {schema}\n")
    print(f"{'variant':<11} {'kind':<16} {'calls':>5} {'prompt':>7} {'computed':>8} {'generated':>9} {'s/call':>7}")
    totals: list[str] = []
    for variant in VARIANTS:
        calls: dict[str, list[GenerationInfo]] = defaultdict(list)
        rounds, prompt, generated, wall = [], 0, 0, 0.0
        for item in items:
            config = DebateConfig(
                question=item.question,
                agents=agents_for("ace", variant),
                protocol="ace",
                variant=variant,
                params={"rounds": args.rounds, "constrained": not args.unconstrained},
                max_new_tokens=320,
            )
            started = time.perf_counter()
            events = Debate(config, backend).run()
            wall += time.perf_counter() - started
            for e in events:
                if isinstance(e, UtteranceGenerated | AnalysisMade | ActionComposed) and e.source.value == "model":
                    kind = e.kind if isinstance(e, UtteranceGenerated) else type(e).__name__
                    calls[kind].append(e.generation)
            end = events[-1]
            assert isinstance(end, DebateEnded)
            rounds.append(max((e.round or 1) for e in events if isinstance(e, PhaseStarted)))
            prompt += end.stats.prompt_tokens
            generated += end.stats.generated_tokens
        for kind, infos in calls.items():
            mean = statistics.fmean
            print(
                f"{variant:<11} {kind:<16} {len(infos):>5} {mean(i.prompt_tokens for i in infos):>7.0f} "
                f"{mean(i.prompt_tokens - i.cached_tokens for i in infos):>8.0f} "
                f"{mean(i.completion_tokens for i in infos):>9.0f} {mean(i.latency_s for i in infos):>7.2f}"
            )
        n = len(items)
        totals.append(
            f"{variant:<11} {statistics.fmean(rounds):>6.1f} {prompt / n:>8.0f} {generated / n:>9.0f} {wall / n:>7.1f}"
        )
    print(f"\nper debate:\n{'variant':<11} {'rounds':>6} {'prompt':>8} {'generated':>9} {'seconds':>7}")
    print("\n".join(totals))


if __name__ == "__main__":
    main()
