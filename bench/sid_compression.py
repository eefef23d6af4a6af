"""SID's attention-guided compression on long answers: seconds per answer size, and a whole debate.

Prints, for answers of 5, 10, 20, 40 and 80 KB written as one long clause
(no separator until the final "The answer is (B)."; the case that made
widening quadratic: 40 KB took 72 s before), the seconds ``compress`` takes
(top 40% of the tokens kept, each widened to its clause, merged) with the
scripted backend's attention scores, best of three; then the seconds of a
whole ``compress``-variant SID debate on the scripted backend in which every
agent answers with the 40 KB answer (three answers, three probes, three
compressions, three revisions).

    python bench/sid_compression.py

What it does not do: measure a model (the scores are the scripted backend's;
attention itself is the backend's cost, not the protocol's).
"""

from __future__ import annotations

import time

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.backends.base import GenerationRequest, ScoredSpan
from debate_core.backends.scripted import fake_attention, scripted_tokens
from debate_core.config import Question
from protocols.sid.compression import compress

SIZES_KB = (5, 10, 20, 40, 80)
QUESTION = Question(
    text="Which option names the second letter of the Greek alphabet?",
    options=("Alpha", "Beta", "Gamma", "Delta"),
    answer="B",
)


def answer_of(kilobytes: int) -> str:
    """About ``kilobytes`` KB of one clause, then the answer line."""
    return "word " * (kilobytes * 1024 // 5) + "The answer is (B)."


def compress_seconds(text: str) -> tuple[float, float]:
    """Best of three: seconds to compress ``text``, and the kept fraction."""
    tokens = [ScoredSpan(s.start, s.end, fake_attention(text[s.start : s.end])) for s in scripted_tokens(text)]
    best, ratio = float("inf"), 0.0
    for _ in range(3):
        began = time.perf_counter()
        kept = compress(text, tokens, 0.4)
        best, ratio = min(best, time.perf_counter() - began), kept.ratio
    return best, ratio


def debate_seconds(text: str) -> float:
    agents = (AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny"))
    config = DebateConfig(question=QUESTION, agents=agents, protocol="sid", variant="compress", max_new_tokens=100_000)

    def respond(request: GenerationRequest) -> str:
        return "" if request.kind == "focus" else text  # a focus probe: the backend scores the tokens itself

    began = time.perf_counter()
    events = Debate(config, ScriptedBackend(respond)).run()
    elapsed = time.perf_counter() - began
    assert type(events[-1]).__name__ == "DebateEnded"
    return elapsed


def main() -> None:
    print("answer   chars    tokens   compress (s)   kept")
    for kilobytes in SIZES_KB:
        text = answer_of(kilobytes)
        seconds, ratio = compress_seconds(text)
        print(f"{kilobytes:>3} KB {len(text):>8,} {len(scripted_tokens(text)):>9,} {seconds:>13.4f} {ratio:>7.2f}")
    print(f"a whole sid/compress debate, three 40 KB answers: {debate_seconds(answer_of(40)):.2f} s")


if __name__ == "__main__":
    main()
