"""Engine overhead per turn: the debate loop itself, with the model taken out.

Runs 1,000-turn interruptible debates on a scripted backend with 3 and 6
agents and prints, per turn: the total wall time, the part spent inside the
backend (the scripted backend's own bookkeeping: it counts prompt tokens with
a regex), and the rest, which is the engine's overhead: building views,
rendering prompts, validating plans, selecting speakers, segmenting
utterances, counting public tokens and constructing events. Target: < 1 ms.

Segmentation is reported three ways because it dominates: every utterance is
unique (no cache hits) and split by the engine's default segmenter (pySBD plus
the project's rules), by spaCy's rule-based sentencizer, or not at all (a trivial splitter).

    python bench/engine.py [--turns 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from collections.abc import Sequence

from debate_core import AgentSpec, DebateConfig, Question, ScriptedBackend
from debate_core.backends.base import Backend, Completion, GenerationRequest
from debate_core.debate import Debate
from debate_core.kernel.sentences import SentenceChunker

QUESTION = Question(
    text="Which gas makes up the largest share of Earth's atmosphere by volume?",
    options=("Oxygen", "Nitrogen", "Carbon dioxide", "Argon"),
    answer="B",
)


def plan(action: str, urgency: int, answer: str = "B") -> str:
    return json.dumps(
        {
            "thought": "The argument so far is consistent.",
            "action": action,
            "urgency": urgency,
            "purpose": "move the debate on",
            "answer": answer,
        }
    )


LISTEN = plan("listen", 1)
SPEAK = plan("speak", 6)
INTERRUPT = plan("interrupt", 8)
INITIAL = json.dumps({"reason": "Nitrogen is about 78 percent of dry air.", "answer": "B"})


class Responder:
    """Cheap deterministic outputs: rotate speakers, interrupt every 5th turn."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)
        self.counter = itertools.count()

    def __call__(self, request: GenerationRequest) -> str:
        if request.kind == "initial_answer":
            return INITIAL
        if request.kind == "utterance":
            n = next(self.counter)
            return (
                f"Point {n} is that nitrogen is about 78 percent of dry air. Oxygen is near 21 "
                f"percent, e.g. in the U.S. Standard Atmosphere. Argon is under one percent. "
                f"So B is right, as I said in turn {request.turn}."
            )
        chosen = self.names[request.turn % len(self.names)]
        allowed = request.json_schema["properties"]["action"]["enum"] if request.json_schema else []
        if "interrupt" in allowed:
            return INTERRUPT if request.turn % 5 == 0 and request.agent == chosen else LISTEN
        return SPEAK if request.agent == chosen else LISTEN


class TimedBackend(Backend):
    """Wraps a backend and accumulates the seconds spent inside it."""

    def __init__(self, inner: ScriptedBackend) -> None:
        self.inner = inner
        self.seconds = 0.0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        start = time.perf_counter()
        try:
            return self.inner.generate(requests)
        finally:
            self.seconds += time.perf_counter() - start


class SplitOnPeriods:
    name = "split-on-periods"

    def split(self, text: str) -> tuple[str, ...]:
        return tuple(part.strip() + "." for part in text.split(". ") if part.strip())


def long_debate(agents: int, turns: int, segmenter: object, backend: object = None) -> Debate:
    """A scripted interruptible debate that runs exactly ``turns`` turns."""
    names = [f"Agent{i}" for i in range(agents)]
    config = DebateConfig(
        question=QUESTION,
        agents=tuple(AgentSpec(name=n) for n in names),
        token_budget=10**9,
        max_turns=turns,
        max_silent_turns=turns,
    )
    backend = backend or ScriptedBackend(Responder(names))
    return Debate(config, backend, segmenter=segmenter)  # type: ignore[arg-type]


def run_once(agents: int, turns: int, segmenter: object) -> tuple[float, float, int]:
    backend = TimedBackend(ScriptedBackend(Responder([f"Agent{i}" for i in range(agents)])))
    debate = long_debate(agents, turns, segmenter, backend)
    start = time.perf_counter()
    events = debate.run()
    total = time.perf_counter() - start
    end = events[-1]
    assert end.type == "debate_ended" and end.turn == turns, end
    return total, backend.seconds, end.stats.interruptions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    default = SentenceChunker("auto", cache_size=0)  # the engine's default segmenter, whatever it resolves to
    segmenters = {
        f"default ({default.name})": default,
        "spaCy sentencizer": SentenceChunker("sentencizer", cache_size=0),
        "no segmentation cost": SplitOnPeriods(),
    }
    print(f"engine overhead per turn, {args.turns} turns, interruptible, best of {args.repeats}")
    print(
        f"{'agents':>6}  {'segmentation':<34} {'total ms':>9} {'backend ms':>10} {'engine ms':>10}"
        f" {'interruptions':>13}"
    )
    for agents in (3, 6):
        for label, segmenter in segmenters.items():
            runs = [run_once(agents, args.turns, segmenter) for _ in range(args.repeats)]
            total, backend, interruptions = min(runs, key=lambda r: r[0] - r[1])
            per = 1000 / args.turns
            print(
                f"{agents:>6}  {label:<34} {total * per:>9.3f} {backend * per:>10.3f} "
                f"{(total - backend) * per:>10.3f} {interruptions:>13}"
            )
    spread = statistics.pstdev([run_once(3, args.turns, SplitOnPeriods())[0] for _ in range(3)])
    print(f"(run-to-run spread of a 3-agent run: {spread * 1000:.1f} ms over {args.turns} turns)")


if __name__ == "__main__":
    main()
