"""Repeated runs of one comparison: how a repeat is named, and its report section (mean ± SE, paired t-tests).

What it does: a comparison run with ``repeats`` N asks every system the same
questions N times, each repeat with its own seed. Repeat 0 is the study as a
single run has it (the same debate ids, seeds and cells); repeat r > 0 is
stored under the cell key ``<question key>#r<r>`` (``run_key``), which
``split_run_key`` and ``repeat_of`` read back, so the cells table, the
``experiment_runs`` rows the plugins' sections receive and ``debates.csv``
(its ``repeat`` column) all tell the repeats apart while the question key
stays the question's.

``per_run(found)`` gives each system's values per repeat (accuracy over its
finished debates of that run, accuracy with free-form answers scored by
containment, tokens in all), and ``section(found, systems, repeats)`` writes
the report's part: per system (overall and per data set) the mean ± standard
error over runs (and the SD), and for every two systems the paired t-test
across runs (paired by repeat: the mean difference, t, its degrees of
freedom, the two-sided p-value; ``statistics.paired_t``). ``by_repeat(runs)``
groups a plugin's run records by repeat for its own tables (mean ± SD over
trials, as some papers report).

What it does not do: run anything (``compare``), read the store, or replace
the per-run paired tests on questions (``paired``: McNemar and the bootstrap,
one row per run).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Protocol, TypeVar

from experiments.statistics import PairedT, Spread, paired_t, spread

REPEAT_MARK = "#r"
R = TypeVar("R")


def run_key(question_key: str, repeat: int) -> str:
    """The cell key of a question in repeat ``repeat`` (repeat 0: the question key itself)."""
    if repeat < 0:
        raise ValueError(f"a repeat is 0 or more, got {repeat}")
    return question_key if repeat == 0 else f"{question_key}{REPEAT_MARK}{repeat}"


def split_run_key(key: str) -> tuple[str, int]:
    """(question key, repeat) of a cell key written by ``run_key``."""
    base, mark, tail = key.rpartition(REPEAT_MARK)
    if mark and base and tail.isdigit():
        return base, int(tail)
    return key, 0


class _Keyed(Protocol):
    @property
    def question_key(self) -> str: ...


def repeat_of(run: _Keyed) -> int:
    """The repeat of a run record (``storage.experiments.RunRecord``): 0 for a study without repeats."""
    return split_run_key(run.question_key)[1]


def by_repeat(runs: Iterable[R], key: str = "question_key") -> dict[int, list[R]]:
    """Records grouped by their repeat (read from their ``key`` attribute), in repeat order."""
    grouped: dict[int, list[R]] = {}
    for run in runs:
        grouped.setdefault(split_run_key(getattr(run, key))[1], []).append(run)
    return dict(sorted(grouped.items()))


class Scored(Protocol):
    """What the section reads of a debate's outcome (``compare_report.Outcome``)."""

    @property
    def system(self) -> str: ...
    @property
    def dataset(self) -> str: ...
    @property
    def repeat(self) -> int: ...
    @property
    def correct(self) -> bool: ...
    @property
    def contained(self) -> bool: ...
    @property
    def total_tokens(self) -> int: ...
    @property
    def free_form(self) -> bool: ...


MEASURES = ("accuracy", "contained", "tokens")


def per_run(found: Sequence[Scored], dataset: str = "all") -> dict[str, dict[int, dict[str, float]]]:
    """Per system, per repeat: ``accuracy`` and ``contained`` (fractions of its finished debates in that run)
    and ``tokens`` (prompt and generated, all its debates of the run); ``dataset`` "all" or one data set."""
    grouped: dict[str, dict[int, list[Scored]]] = {}
    for o in found:
        if dataset in ("all", o.dataset):
            grouped.setdefault(o.system, {}).setdefault(o.repeat, []).append(o)
    return {
        system: {
            repeat: {
                "accuracy": sum(o.correct for o in mine) / len(mine),
                "contained": sum(o.contained for o in mine) / len(mine),
                "tokens": float(sum(o.total_tokens for o in mine)),
            }
            for repeat, mine in sorted(runs.items())
        }
        for system, runs in grouped.items()
    }


def spreads(values: dict[int, dict[str, float]], measure: str) -> Spread:
    """A system's ``measure`` over its runs."""
    return spread([run[measure] for run in values.values()])


def paired_tests(
    systems: Sequence[str], values: dict[str, dict[int, dict[str, float]]], measure: str = "accuracy"
) -> list[tuple[str, str, PairedT]]:
    """Every pair of systems (A before B, in the study's order), paired by the repeats both have."""
    tests = []
    for a, b in combinations(systems, 2):
        mine, theirs = values.get(a, {}), values.get(b, {})
        shared = sorted(set(mine) & set(theirs))
        if shared:
            tests.append((a, b, paired_t([mine[r][measure] for r in shared], [theirs[r][measure] for r in shared])))
    return tests


def _p(value: float | None) -> str:
    if value is None:
        return "-"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _t(test: PairedT) -> str:
    if test.t is not None:
        return f"{test.t:.2f}"
    return "- (one run)" if test.n < 2 else "- (the same difference in every run)"


def section(found: Sequence[Scored], systems: Sequence[str], repeats: int) -> list[str]:
    """The report's section on repeated runs (nothing for a study of one run)."""
    if repeats < 2 or not found:
        return []
    free = any(o.free_form for o in found)
    datasets = sorted({o.dataset for o in found})
    lines = [
        "",
        f"## Across runs: mean ± standard error over {repeats} runs",
        "",
        "Every run (repeat) asks every system the same questions, each run with its own seed (run 0 with the "
        "study's seed, as a study of one run; run r with a seed derived from it and r), so sampling differs "
        "between runs; at temperature 0 only the seeded choices do (tie-breaks, random policies). A system's "
        "accuracy in a run is over its finished debates of that run (no answer counts as wrong); ± is the "
        "standard error of the mean over runs (the runs' SD / sqrt(runs)); tokens are the run's prompt and "
        "generated tokens in all.",
        "",
        "| dataset | system | runs | accuracy %, mean ± SE | SD |"
        + (" containment %, mean ± SE |" if free else "")
        + " tokens per run, mean ± SE |",
        "|---|---|---|---|---|" + ("---|" if free else "") + "---|",
    ]
    for dataset in ["all", *datasets] if len(datasets) > 1 else ["all"]:
        values = per_run(found, dataset)
        for system in systems:
            if system not in values:
                continue
            accuracy = spreads(values[system], "accuracy")
            row = f"| {dataset} | {system} | {accuracy.n} | {accuracy.se_text(100)} | {100 * accuracy.sd:.1f} |"
            if free:
                row += f" {spreads(values[system], 'contained').se_text(100)} |"
            lines.append(row + f" {spreads(values[system], 'tokens').se_text(1, 0)} |")
    values = per_run(found)
    tables = [("By the accuracy above (the engine's scoring)", "accuracy")]
    if free:
        tables.append(("With free-form answers scored by containment (multiple-choice by label)", "contained"))
    lines += [
        "",
        "### Paired t-test across runs",
        "",
        "Every pair of systems, paired by run (over all data sets): the mean over runs of the accuracy "
        "difference A - B with its standard error, t = mean / SE with runs - 1 degrees of freedom, and the "
        "two-sided p-value from Student's t distribution. The p-values are not corrected for the number of pairs.",
    ]
    for title, measure in tables:
        tests = paired_tests(systems, values, measure)
        if not tests:
            continue
        lines += [
            "",
            f"{title}:",
            "",
            "| A vs B | runs | accuracy A - B, points (mean ± SE) | t | df | two-sided p |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {a} vs {b} | {test.n} | {100 * test.difference:+.1f} ± {100 * test.se:.1f} | {_t(test)} "
            f"| {test.df} | {_p(test.p)} |"
            for a, b, test in tests
        ]
    return lines
