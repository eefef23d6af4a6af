"""Systems compared pairwise on the same questions: discordant counts, McNemar's exact test, a bootstrap interval.

What it does: ``compare_pairs(systems, right)`` takes, per system, whether it
was right on each question (by question key) and, for every pair of systems
(A before B in the order given), over the questions both have a result for,
counts the discordant questions (A right and B wrong; A wrong and B right),
gives McNemar's exact two-sided p-value (``mcnemar_exact``: the binomial test
of those two counts against one half, written with ``math.comb``) and a 95%
paired bootstrap interval of the accuracy difference A - B
(``bootstrap_interval``: the questions resampled with replacement, 2,000
times, by a generator seeded with the study's seed and the pair's names, so a
report reads the same every time it is written; a resample is drawn as its
counts of questions A won and lost, multinomially, so large studies cost no
more). ``section`` writes the
report's tables, one per scoring; a study run several times (``repeats``)
has one row per pair and run (``Paired.run``), each over that run's questions.

What it does not do: correct for multiple comparisons (k systems make
k(k-1)/2 tests: read a p-value near 0.05 among many with care), pair results
across runs (``repeats``: the paired t-test over runs), decide what
"right" means (``compare_report`` passes the engine's scoring, and for
free-form questions containment), or read the store.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

RESAMPLES = 2_000
LEVEL = 0.95


@dataclass(frozen=True)
class Paired:
    """Systems ``a`` and ``b`` on the ``n`` questions both answered."""

    a: str
    b: str
    n: int
    a_right: int
    b_right: int
    a_only: int  # A right, B wrong
    b_only: int  # A wrong, B right
    p_value: float
    low: float  # the interval of the difference A - B, as a fraction
    high: float
    run: int | None = None  # the run (repeat) these questions belong to, in a study run several times

    @property
    def difference(self) -> float:
        return (self.a_right - self.b_right) / self.n if self.n else 0.0


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """McNemar's exact two-sided p-value: twice the smaller binomial tail of the discordant counts, at most 1.

    No discordant question gives 1.0 (nothing tells the systems apart).
    """
    if a_only < 0 or b_only < 0:
        raise ValueError("discordant counts are counts (0 or more)")
    n = a_only + b_only
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(a_only, b_only) + 1))
    return min(1.0, 2 * tail / 2**n)


def bootstrap_interval(
    differences: Sequence[int], *, seed: int | str = 0, resamples: int = RESAMPLES, level: float = LEVEL
) -> tuple[float, float]:
    """The percentile interval of the mean of ``differences`` (one per question: 1, 0 or -1) over resamples.

    A resample of the n questions with replacement is summed by how many of its draws are 1 and -1, which
    follow a multinomial law with the observed shares: drawn as such (numpy), it costs the same for 100
    questions as for 10,000. The generator is seeded from ``seed`` (an int, or text hashed with sha256).
    """
    import numpy as np

    n = len(differences)
    if n == 0 or not any(differences):
        return (0.0, 0.0)  # every resample is 0
    if any(d not in (-1, 0, 1) for d in differences):
        raise ValueError("a paired difference is 1, 0 or -1")
    ahead, behind = differences.count(1), differences.count(-1)
    digest = hashlib.sha256(str(seed).encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    counts = rng.multinomial(n, [ahead / n, behind / n, (n - ahead - behind) / n], size=resamples)
    means = sorted(((counts[:, 0] - counts[:, 1]) / n).tolist())
    tail = (1 - level) / 2
    return means[int(tail * resamples)], means[math.ceil((1 - tail) * resamples) - 1]


def compare_pairs(
    systems: Sequence[str],
    right: Mapping[str, Mapping[str, bool]],
    *,
    seed: int | str = 0,
    resamples: int = RESAMPLES,
) -> list[Paired]:
    """Every pair of ``systems`` that shares at least one question; ``right[system][question_key]``."""
    rows = []
    for a, b in combinations(systems, 2):
        mine, theirs = right.get(a, {}), right.get(b, {})
        shared = [key for key in mine if key in theirs]
        if not shared:
            continue
        a_only = sum(1 for key in shared if mine[key] and not theirs[key])
        b_only = sum(1 for key in shared if theirs[key] and not mine[key])
        differences = [int(mine[key]) - int(theirs[key]) for key in sorted(shared)]
        low, high = bootstrap_interval(differences, seed=f"{seed}|{a}|{b}", resamples=resamples)
        rows.append(
            Paired(
                a,
                b,
                len(shared),
                sum(mine[key] for key in shared),
                sum(theirs[key] for key in shared),
                a_only,
                b_only,
                mcnemar_exact(a_only, b_only),
                low,
                high,
            )
        )
    return rows


def _p(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _points(value: float) -> str:
    return f"{100 * value:+.1f}"


def section(tables: Sequence[tuple[str, Sequence[Paired]]]) -> list[str]:
    """The report's section: one table per (scoring, rows); nothing when no pair shares a question."""
    if not any(rows for _, rows in tables):
        return []
    lines = [
        "",
        "## Paired comparison on the same questions",
        "",
        "Every pair of systems over the questions both finished (a debate without an answer counts as wrong): "
        "the discordant questions, McNemar's exact two-sided test on them, and a paired bootstrap 95% interval "
        f"of the accuracy difference A - B in percentage points ({RESAMPLES:,} resamples of the questions, "
        "seeded). The p-values are not corrected for the number of pairs.",
    ]
    if any(r.run is not None for _, rows in tables for r in rows):
        lines += ["", "A study run several times: one row per pair and run, over that run's questions."]
    for title, rows in tables:
        if not rows:
            continue
        by_run = any(r.run is not None for r in rows)
        lines += [
            "",
            f"{title}:",
            "",
            "| A vs B | " + ("run | " if by_run else "") + "paired questions | A right, B wrong | A wrong, B right "
            "| accuracy A - B, points (95% CI) | McNemar exact p |",
            "|---|---|---|---|---|---|" + ("---|" if by_run else ""),
        ]
        lines += [
            f"| {r.a} vs {r.b} | " + (f"{r.run} | " if by_run else "") + f"{r.n} | {r.a_only} | {r.b_only} "
            f"| {_points(r.difference)} ({_points(r.low)} to {_points(r.high)}) | {_p(r.p_value)} |"
            for r in rows
        ]
    return lines
