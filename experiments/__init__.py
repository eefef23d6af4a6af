"""Reproducing the paper's evaluation (Sections IV-VI): run a study, write its report.

This package sits beside ``debate_core`` and ``storage`` (it records debates
in the store and reads them back), so the engine stays a pure library:
``mmlu`` (the data), ``pool`` and ``pool_generation`` (conditioned initial
states), ``spec`` (what defines a study), ``runner`` (resumable, concurrent
runs with cross-debate batching through ``coalescing``), ``metrics`` and
``analysis`` (the numbers), ``figures``, ``images`` and ``report`` (the
output), ``scripted`` (a model-free stand-in) and ``cli``
(``python -m experiments run | report | list``).
"""
