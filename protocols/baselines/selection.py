"""Self-Contrast's selection: similar solutions filtered away, one representative of each kept for the contrast.

What it does: Zhang et al. solve a question from several perspectives, then cluster the solutions
and keep a representative of each cluster, so the contrast works on solutions that really differ.
Here a cluster is the solutions that name the same final answer (compared as the kernel compares
answers; those that name none form one cluster of their own): for a question scored by its answer,
those are the similar ones. A cluster's representative is its medoid by word overlap (the solution
whose words share the most, by Jaccard similarity, with the rest of its cluster; the earliest on a
tie), a cheap, deterministic stand-in for the paper's embedding similarity, for which a study has
no model. ``select`` runs it on the loop's solutions (``selection=answer``) and marks what it kept
with a ``select`` phase; ``selection=none`` keeps every solution, as the family did before.

What it does not do: ask anything (the selection is computed, not requested) or word the contrast
(``prompts/contrast.txt``).
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence

from debate_core.events.codec import Event
from debate_core.kernel.endings import answer_key
from protocols.baselines.state import Desk

_WORD = re.compile(r"\w+")


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Jaccard similarity of two word sets (1.0 for two empty ones)."""
    union = a | b
    return len(a & b) / len(union) if union else 1.0


def representatives(answers: Sequence[str | None], texts: Sequence[str]) -> tuple[int, ...]:
    """The indices kept: the medoid of each cluster of solutions naming the same answer, in their order."""
    clusters: dict[str | None, list[int]] = {}
    for index, answer in enumerate(answers):
        key = answer_key(answer) if answer is not None and answer.strip() else None
        clusters.setdefault(key, []).append(index)
    bags = [words(text) for text in texts]
    kept = []
    for members in clusters.values():
        totals = [sum(similarity(bags[i], bags[j]) for j in members if j != i) for i in members]
        kept.append(members[totals.index(max(totals))])
    return tuple(sorted(kept))


def select(
    desk: Desk, solutions: Sequence[str], answers: Sequence[str | None]
) -> Generator[Event, None, tuple[str, ...]]:
    """The solutions the contrast is shown (``selection=answer``: one per answer; ``none``: all), with a phase
    saying which were kept."""
    if desk.params.selection == "none":
        return tuple(solutions)
    kept = representatives(answers, solutions)
    detail = f"one solution per answer: kept {', '.join(str(i + 1) for i in kept)} of {len(solutions)}"
    yield desk.table.phase("select", detail=detail)
    return tuple(solutions[i] for i in kept)
