"""The baselines family's own tests (collected by pytest, not shipped in the wheel)."""
