"""The final-answer rule: the majority of the agents' plan answers.

What it does: counts the answers agents currently support (their action plans
at the last turn; an agent that did not plan that turn because it still held
the floor counts with its last plan's answer) and returns the majority.

Tie rule (the paper is silent): when several answers share the highest count,
one of them is chosen by the debate's seeded random generator, and the tied
answers are recorded on ``DebateEnded.tie`` so an analysis can treat ties
separately. Agents with no answer do not vote; with no votes at all the final
answer is None. Free-form answers are compared case-insensitively, ignoring
surrounding spaces and a final period.

What it does not do: judge correctness beyond comparing with the known answer.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from debate_core.events import Vote


def answer_key(answer: str) -> str:
    return answer.strip().rstrip(".").strip().casefold()


def majority(answers: Iterable[str | None], rng: random.Random) -> tuple[str | None, tuple[Vote, ...], tuple[str, ...]]:
    """``(final_answer, votes, tied_answers)``; ``tied_answers`` is empty without a tie."""
    spelling: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for answer in answers:
        if answer is None or not answer.strip():
            continue
        key = answer_key(answer)
        spelling.setdefault(key, answer.strip())
        counts[key] += 1
    if not counts:
        return None, (), ()
    votes = tuple(
        Vote(answer=spelling[key], count=count)
        for key, count in sorted(counts.items(), key=lambda item: (-item[1], spelling[item[0]]))
    )
    top = votes[0].count
    tied = tuple(vote.answer for vote in votes if vote.count == top)
    if len(tied) == 1:
        return tied[0], votes, ()
    return rng.choice(tied), votes, tied


def is_correct(final_answer: str | None, expected: str | None) -> bool | None:
    """None when the correct answer is unknown; otherwise whether they match."""
    if expected is None:
        return None
    if final_answer is None:
        return False
    return answer_key(final_answer) == answer_key(expected)
