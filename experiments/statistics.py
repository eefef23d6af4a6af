"""Summary statistics of repeated runs: mean, standard deviation, standard error, Student's t.

What it does: ``spread(values)`` gives the mean, the sample standard
deviation (n - 1 in the denominator), the standard error of the mean (SD /
sqrt(n)) and n of a list of numbers, and prints as ``63.3 ± 1.4`` (the SE:
``Spread.se_text``) or with the SD (``Spread.sd_text``), so a report states
which one it shows. ``paired_t(a, b)`` is the paired t-test of two equally long
lists (the same runs of two systems): the mean difference A - B, its standard
error, t, the degrees of freedom (n - 1) and the two-sided p-value from
Student's t distribution. ``t_cdf(t, df)`` is that distribution's CDF, written
here through the regularized incomplete beta function
(``incomplete_beta``: Lentz's continued fraction, as in Numerical Recipes,
with ``math.lgamma``), so the harness needs no scipy; the tests check it
against closed forms (one and two degrees of freedom) and tabled values.

Parliament's Table 1 reports mean ± standard error over 27 runs and a paired
t-test between protocols; HandRaiser's and ACE's tables report mean ±
standard deviation over three trials. Both read their numbers from here.

What it does not do: decide what a run or a value is (the reports do),
correct for multiple comparisons, or read the store.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

EPSILON = 3e-16  # the continued fraction's relative tolerance
TINY = 1e-300  # keeps Lentz's method off a zero denominator
MAX_ITERATIONS = 500
SAME = 1e-12  # a spread of paired differences this small (relative) is rounding: the differences are equal


def mean(values: Sequence[float]) -> float:
    """The arithmetic mean (0.0 for no values)."""
    return math.fsum(values) / len(values) if values else 0.0


def sample_sd(values: Sequence[float]) -> float:
    """The sample standard deviation (n - 1 in the denominator); 0.0 for fewer than two values."""
    if len(values) < 2:
        return 0.0
    centre = mean(values)
    return math.sqrt(math.fsum((v - centre) ** 2 for v in values) / (len(values) - 1))


def standard_error(values: Sequence[float]) -> float:
    """The standard error of the mean, SD / sqrt(n); 0.0 for fewer than two values."""
    return sample_sd(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0


@dataclass(frozen=True)
class Spread:
    """A list of numbers summarised: its mean, sample SD, standard error of the mean, and n."""

    mean: float
    sd: float
    se: float
    n: int

    def se_text(self, scale: float = 1.0, digits: int = 1) -> str:
        """``mean ± SE`` (scaled, e.g. 100 for percent); the mean alone for a single value."""
        return self._text(self.se, scale, digits)

    def sd_text(self, scale: float = 1.0, digits: int = 1) -> str:
        """``mean ± SD`` (scaled); the mean alone for a single value."""
        return self._text(self.sd, scale, digits)

    def _text(self, error: float, scale: float, digits: int) -> str:
        shown = f"{scale * self.mean:,.{digits}f}"
        return shown if self.n < 2 else f"{shown} ± {scale * error:,.{digits}f}"


def spread(values: Sequence[float]) -> Spread:
    """Mean, sample SD, SE and n of ``values``."""
    listed = list(values)
    return Spread(mean(listed), sample_sd(listed), standard_error(listed), len(listed))


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for 0 <= x <= 1 and a, b > 0."""
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must lie in [0, 1], got {x}")
    if a <= 0 or b <= 0:
        raise ValueError("a and b must be positive")
    if x in (0.0, 1.0):
        return x
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1) / (a + b + 2):  # the fraction converges fast here; else use the symmetry
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of the incomplete beta function, by the modified Lentz method."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > TINY else TINY)
    result = d
    for m in range(1, MAX_ITERATIONS + 1):
        m2 = 2 * m
        for numerator in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > TINY else TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > TINY else TINY
            result *= d * c
        if abs(d * c - 1.0) < EPSILON:
            return result
    raise ArithmeticError(f"the incomplete beta fraction did not converge (x={x}, a={a}, b={b})")


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t distribution with ``df`` degrees of freedom (df > 0)."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2, 0.5)  # P(T > |t|)
    return 1.0 - tail if t > 0 else tail


def t_two_sided_p(t: float, df: float) -> float:
    """The two-sided p-value of a t statistic: P(|T| >= |t|)."""
    if math.isinf(t):
        return 0.0
    return min(1.0, incomplete_beta(df / (df + t * t), df / 2, 0.5))


@dataclass(frozen=True)
class PairedT:
    """A paired t-test of A against B over ``n`` pairs: the mean difference A - B and its standard error,
    t and its degrees of freedom, and the two-sided p-value. ``t`` and ``p`` are None when the test is
    undefined: fewer than two pairs, or the same difference in every pair (no spread to test against)."""

    n: int
    difference: float
    se: float
    t: float | None
    df: int
    p: float | None


def paired_t(a: Sequence[float], b: Sequence[float]) -> PairedT:
    """The paired t-test of ``a`` against ``b`` (the i-th values are a pair)."""
    if len(a) != len(b):
        raise ValueError(f"a paired test needs equally many values ({len(a)} and {len(b)})")
    differences = [x - y for x, y in zip(a, b, strict=True)]
    n = len(differences)
    centre, se = mean(differences), standard_error(differences)
    if n < 2 or se <= SAME * max(1.0, abs(centre)):  # equal differences, up to rounding (0.7 - 0.6, 0.8 - 0.7)
        return PairedT(n, centre, se, None, max(n - 1, 0), None)
    t = centre / se
    return PairedT(n, centre, se, t, n - 1, t_two_sided_p(t, n - 1))
