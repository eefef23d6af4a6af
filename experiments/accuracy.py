"""An accuracy with its confidence interval: the number every study report prints.

What it does: ``wilson`` gives the Wilson score interval of a proportion
(95% by default), and ``Accuracy`` carries a count of correct answers with
its n, its value and that interval, printed as ``40.0% (n=5, 95% CI
11.8-76.9)``. Every report uses it: the comparison report, each protocol's
study sections, a paper study's tables.

What it does not do: decide what counts as correct (the reports do) or read
the store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (0, 0 when n is 0)."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Accuracy:
    correct: int
    n: int

    @property
    def value(self) -> float:
        return self.correct / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.correct, self.n)

    def __str__(self) -> str:
        low, high = self.interval
        return f"{100 * self.value:.1f}% (n={self.n}, 95% CI {100 * low:.1f}-{100 * high:.1f})"
