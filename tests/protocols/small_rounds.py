"""Judged rounds with parameters for a small model: a protocol that names ``small_model_params``, for tests.

Its defaults stay ``JudgedRounds``' (three rounds); for a small model it recommends one round (a tiny
model loses the thread after one). It stands for any protocol in the tests of the generic mechanism
(``tests/test_small_model_params.py``, the set-up form's in ``tests/test_ui_view.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from tests.protocols.judged_rounds import JudgedRounds


class SmallRounds(JudgedRounds):
    """Judged rounds, one round for a small model."""

    name = "small-rounds"
    small_model_params: ClassVar[Mapping[str, Any]] = {"rounds": 1}
