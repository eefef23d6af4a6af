"""The study harness: comparisons of protocols on shared data sets, their reports, and the plugins' studies.

This package sits beside ``debate_core`` and ``storage`` (it records debates
in the store and reads them back), so the engine stays a pure library. It is
generic: ``compare`` and ``compare_cli`` (a comparison of systems, resumable
across workers through ``workers``), ``compare_report``, ``compare_view``,
``paired`` and ``scoring`` (its report), the shared data sets (``mmlu``,
``strategyqa``, ``bbh``, ``gsm8k``, ``gpqa``, ``hotpotqa``, registered by
``datasets``), ``accuracy`` and ``progress`` (shared by every study),
``extensions`` (what plugins bring: commands, report sections, data sets,
study kinds, study preparations) and ``cli`` (``python -m experiments``).
A protocol's own study lives in its package (Kimura's paper study:
``protocols/kimura/study/``) and comes in through the plugin hooks.
"""
