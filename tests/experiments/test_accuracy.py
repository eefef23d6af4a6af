"""Accuracy with its n and Wilson interval (experiments.accuracy), as every study report prints it."""

from __future__ import annotations

import pytest

from experiments.accuracy import Accuracy, wilson


def test_wilson_interval_and_accuracy():
    low, high = wilson(5, 10)
    assert round(low, 4) == 0.2366 and round(high, 4) == 0.7634
    assert wilson(0, 0) == (0.0, 0.0)
    assert wilson(10, 10)[1] == pytest.approx(1.0) and wilson(0, 10)[0] == pytest.approx(0.0)
    assert str(Accuracy(3, 4)).startswith("75.0% (n=4, 95% CI")
