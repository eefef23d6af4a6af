"""The statistics of repeated runs, checked against closed forms and tabled values (scipy is not a dependency).

Student's t CDF has closed forms for one degree of freedom (Cauchy) and two; its two-sided critical values are
tabled; with many degrees of freedom it is the normal distribution. The paired t-test matches a worked example,
and Parliament's British against Congress (t = 4.70 over 27 runs) reads p < 0.001 as the paper says.
"""

from __future__ import annotations

import math

import pytest

from experiments.statistics import (
    incomplete_beta,
    paired_t,
    sample_sd,
    spread,
    standard_error,
    t_cdf,
    t_two_sided_p,
)


@pytest.mark.parametrize("t", [-40.0, -3.0, -0.5, 0.0, 0.7, 1.0, 5.0, 250.0])
def test_the_t_cdf_equals_its_closed_forms_for_one_and_two_degrees_of_freedom(t):
    assert t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-13)
    assert t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-13)


@pytest.mark.parametrize(
    ("critical", "df", "p"),
    [
        (12.706204736174698, 1, 0.05),
        (4.302652729749464, 2, 0.05),
        (2.570581835636314, 5, 0.05),
        (2.228138851986274, 10, 0.05),
        (3.169272672616952, 10, 0.01),
        (2.055529438642871, 26, 0.05),
        (2.778714533329683, 26, 0.01),
        (1.983971518523551, 100, 0.05),
    ],
)
def test_two_sided_p_values_at_tabled_critical_values(critical, df, p):
    assert t_two_sided_p(critical, df) == pytest.approx(p, rel=1e-9)
    assert t_two_sided_p(-critical, df) == pytest.approx(p, rel=1e-9)


def test_many_degrees_of_freedom_approach_the_normal_distribution_and_the_extremes_hold():
    for z in (-2.5, -1.96, 0.3, 1.0, 3.0):
        assert t_cdf(z, 1e7) == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)), abs=1e-6)
    assert t_cdf(math.inf, 3) == 1.0 and t_cdf(-math.inf, 3) == 0.0 and t_two_sided_p(0.0, 4) == 1.0
    assert 0 < t_two_sided_p(40.0, 26) < 1e-20
    with pytest.raises(ValueError):
        t_cdf(1.0, 0)


def test_the_incomplete_beta_function_is_symmetric_and_matches_its_closed_forms():
    for x in (0.01, 0.2, 0.5, 0.77, 0.99):
        assert incomplete_beta(x, 1, 1) == pytest.approx(x, abs=1e-14)  # the uniform law
        assert incomplete_beta(x, 2, 1) == pytest.approx(x * x, abs=1e-14)
        assert incomplete_beta(x, 2.5, 7.0) == pytest.approx(1 - incomplete_beta(1 - x, 7.0, 2.5), abs=1e-13)
    assert incomplete_beta(0.0, 3, 4) == 0.0 and incomplete_beta(1.0, 3, 4) == 1.0


def test_mean_sd_and_standard_error_of_runs():
    runs = [0.62, 0.66, 0.61, 0.65]
    assert sample_sd(runs) == pytest.approx(math.sqrt(sum((v - 0.635) ** 2 for v in runs) / 3))
    assert standard_error(runs) == pytest.approx(sample_sd(runs) / 2)
    summary = spread(runs)
    assert summary.se_text(100) == "63.5 ± 1.2" and summary.sd_text(100) == "63.5 ± 2.4"
    assert spread([0.5]).se_text(100) == "50.0" and spread([0.5]).sd == 0.0  # one run: no spread to show


def test_the_paired_t_test_of_runs():
    # differences 0.10, 0.15, 0.05: mean 0.10, SD 0.05, SE 0.05 / sqrt(3), t = 2 sqrt(3), df 2
    test = paired_t([0.60, 0.70, 0.65], [0.50, 0.55, 0.60])
    assert (test.n, test.df) == (3, 2)
    assert test.difference == pytest.approx(0.10) and test.t == pytest.approx(2 * math.sqrt(3))
    assert test.p == pytest.approx(1 - 2 * math.sqrt(3) / math.sqrt(2 + 12), rel=1e-9)  # df 2's closed form
    assert paired_t([0.7, 0.8], [0.6, 0.7]).t is None  # the same difference in every run: undefined
    assert paired_t([0.7], [0.6]).p is None  # one run: undefined
    with pytest.raises(ValueError):
        paired_t([0.1, 0.2], [0.1])


def test_parliaments_british_against_congress_reads_as_the_paper():
    # t = 4.70 with 27 paired runs (26 degrees of freedom): "t = 4.70, p < 0.001"
    assert t_two_sided_p(4.70, 26) < 0.001
    assert t_two_sided_p(4.70, 26) == pytest.approx(7.42e-5, rel=1e-2)
