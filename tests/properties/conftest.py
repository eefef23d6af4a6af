"""Hypothesis settings for the property tests: a bounded, reproducible run in CI; many more with ``make fuzz``.

``HYPOTHESIS_PROFILE=fuzz`` (what ``make fuzz`` sets) runs thousands of examples per property
with fresh randomness; the default ``ci`` profile runs a few dozen, derandomized so that CI
is reproducible. Neither has a deadline: work is bounded by turns and tokens, not time.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
settings.register_profile("ci", max_examples=25, derandomize=True, print_blob=True, **_COMMON)
settings.register_profile("fuzz", max_examples=int(os.environ.get("FUZZ_EXAMPLES", "1000")), **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
