"""Reproducing the paper's evaluation (Sections IV-VI): MMLU data, conditioned
initial states, and the event-level metrics.

This package sits beside ``debate_core`` and ``storage`` (it reads debates from
the store), so the engine stays a pure library. Present so far: ``mmlu``
(the data), ``pool`` (conditioned initial states) and ``metrics`` (accuracy
with confidence intervals, interruption and completion effects, token bins).
"""
