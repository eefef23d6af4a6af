"""A two-sided Mann–Whitney U test in plain Python: do two groups of numbers come from one distribution?

What it does: ``mann_whitney(x, y)`` ranks the pooled values (tied values
share their mean rank), takes U of ``x`` (its rank sum less n_x(n_x + 1)/2)
and returns a ``Test``: the sizes, U, and the two-sided p-value. The p-value
is exact where no value is tied and the groups are small (n_x n_y <= 400:
the count of rank arrangements under the null hypothesis, by the usual
recursion), otherwise the normal approximation with the tie correction of
the variance and a continuity correction of 0.5, as statistics packages
compute it. ``stars(p)`` marks a p-value the way the SID paper's Fig. 2(c)
does (``*`` below 0.05, ``**`` below 0.01, ``***`` below 0.001).

SID's report uses it for the first answers' confidence statistics, right
against wrong: the paper shows significance stars (Fig. 2(c), Fig. 7) and
names no test, so this one, which assumes no distribution, is the report's.

What it does not do: decide whether groups are large enough to test (the
caller says so), correct for several tests, or read debates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

EXACT_MAX = 400  # n_x * n_y up to which a tie-free test is exact


@dataclass(frozen=True)
class Test:
    """A Mann–Whitney U test: the groups' sizes, U of the first group, the two-sided p-value, and how p was got."""

    n_x: int
    n_y: int
    u: float
    p: float
    exact: bool


def _ranks(values: Sequence[float]) -> list[float]:
    """Each value's rank among ``values`` (1-based), tied values sharing the mean of their ranks."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


@cache
def _arrangements(n_x: int, n_y: int) -> tuple[int, ...]:
    """How many of the orderings of n_x + n_y distinct values give each U (0..n_x n_y) to the first group."""
    if n_x == 0 or n_y == 0:
        return (1,)
    with_y_last = _arrangements(n_x, n_y - 1)  # the largest value is y's: it adds nothing to x's U
    with_x_last = _arrangements(n_x - 1, n_y)  # the largest value is x's: it beats all n_y of y
    counts = [0] * (n_x * n_y + 1)
    for u, c in enumerate(with_y_last):
        counts[u] += c
    for u, c in enumerate(with_x_last):
        counts[u + n_y] += c
    return tuple(counts)


def mann_whitney(x: Sequence[float], y: Sequence[float]) -> Test:
    """The two-sided Mann–Whitney U test of ``x`` against ``y`` (see the module docstring); both must be non-empty."""
    n_x, n_y = len(x), len(y)
    if not n_x or not n_y:
        raise ValueError("a Mann–Whitney test needs a value in each group")
    pooled = [*x, *y]
    ranks = _ranks(pooled)
    u = sum(ranks[:n_x]) - n_x * (n_x + 1) / 2
    tied = len(set(pooled)) < len(pooled)
    if not tied and n_x * n_y <= EXACT_MAX:
        counts = _arrangements(n_x, n_y)
        low = int(min(u, n_x * n_y - u))
        p = min(1.0, 2 * sum(counts[: low + 1]) / math.comb(n_x + n_y, n_x))
        return Test(n_x, n_y, u, p, exact=True)
    n = n_x + n_y
    groups: dict[float, int] = {}
    for value in pooled:
        groups[value] = groups.get(value, 0) + 1
    correction = sum(t**3 - t for t in groups.values()) / (n * (n - 1))
    variance = n_x * n_y / 12 * ((n + 1) - correction)
    if variance <= 0:  # every value the same: nothing tells the groups apart
        return Test(n_x, n_y, u, 1.0, exact=False)
    z = max(0.0, abs(u - n_x * n_y / 2) - 0.5) / math.sqrt(variance)
    return Test(n_x, n_y, u, min(1.0, math.erfc(z / math.sqrt(2))), exact=False)


def stars(p: float) -> str:
    """Fig. 2(c)'s marks: ``***`` p < 0.001, ``**`` p < 0.01, ``*`` p < 0.05, else nothing."""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


__all__ = ["EXACT_MAX", "Test", "mann_whitney", "stars"]
