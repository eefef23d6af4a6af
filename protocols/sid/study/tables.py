"""SID's Table 1 and Table 3 in the paper's shape, each cell the mean ± standard error over a study's repeats.

What it does: ``results(store, runs)`` reads every finished debate of a
comparison (any system: the baselines family's rows sit beside SID's) into
a ``Result``: its system, its column (a MATH subset, from the ``math`` data
set's subject or a ``math_<subset>`` data set; ``mmlu_pro``; else the data
set's name), its repeat, and whether it was right (a free-form answer
scored as the report's normalized match, ``scoring.exact_match``: MATH's
LaTeX compared as ``math_equal`` does; a multiple-choice one as the engine
scored it). Then:

* ``table_one(found, systems)``: the paper's Table 1 (accuracy %, rows CoT,
  IO, SBP, Self-Consistency, Self-Contrast, MAD, DMAD, SID-v, SID-c in its
  order and any other system after them; columns the seven MATH subsets,
  MMLU-Pro and any other data set the study ran, then Avg): each cell the
  accuracy in each repeat, then its mean ± SE over repeats; Avg the mean
  over the row's columns taken in each repeat, then its mean ± SE;
* ``table_three(found, debates, systems)``: the paper's Table 3 (accuracy %
  and token ratio against ``sid/mad``, the paper's count, ``report``), each
  the value in each repeat, then its mean ± SE over repeats.

A single run prints the mean alone. Row labels are the paper's; a system
with parameters (``sid/sid_c:classifier=...``) keeps its label, its
parameters in parentheses.

What it does not do: run debates (``commands``, ``compare``) or write
files (the report).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from debate_core.events import DebateStarted
from experiments import scoring
from experiments.repeats import split_run_key
from experiments.statistics import mean, spread
from experiments.workers import finished_debates
from protocols.sid.study.report import SidDebate, token_ratio
from storage import Store
from storage.experiments import RunRecord

MATH_COLUMNS = (
    ("algebra", "Alg."),
    ("counting_and_probability", "C&P"),
    ("geometry", "Geo."),
    ("intermediate_algebra", "Int.A."),
    ("number_theory", "Num"),
    ("prealgebra", "Pre.A"),
    ("precalculus", "Pre.C."),
)
COLUMNS = (*MATH_COLUMNS, ("mmlu_pro", "MMLUpro"))
TABLE_ONE = (
    ("baselines/cot", "COT"),
    ("baselines/io", "IO"),
    ("baselines/step_back", "SBP"),
    ("baselines/self_consistency", "Self-Consistency"),
    ("baselines/self_contrast", "Self-Contrast"),
    ("sid/mad", "MAD"),
    ("baselines/dmad", "DMAD"),
    ("sid/sid", "SID-v"),
    ("sid/sid_c", "SID-c"),
)
TABLE_THREE = (
    ("sid/cot", "Baseline Single-round CoT"),
    ("sid/mad", "Baseline MAD"),
    ("sid/compress", "Baseline MAD + Compression"),
    ("sid/sid", "Baseline MAD + Compression + Early Exit (SID)"),
    ("sid/no_expand", "SID w/o Semantic Preservation"),
    ("sid/summary", "SID w/o Early Exit w/ Token-level Summary"),
)
PAPER_ONE = "LLaMA3.1-8B: MAD 39.50 avg (MMLUpro 41), SID-v 43.88 (47), SID-c 44.00 (47); CoT 38.13, IO 38.75"
PAPER_THREE = (
    "MMLU-Pro, LLaMA3.1-8B: single-round CoT 37.67 / 0.17; MAD 39.50 / 1.00; + compression 41.67 / 0.73; "
    "+ early exit 46.83 / 0.53; w/o semantic preservation 34.50 / 0.46; w/ token-level summary 39.50 / 0.68"
)


@dataclass(frozen=True)
class Result:
    system: str
    column: str
    repeat: int
    right: bool


def column_of(dataset: str, subject: str) -> str:
    """A question's column: its MATH subset, ``mmlu_pro``, or its data set's name."""
    if dataset == "math":
        return subject
    return dataset.removeprefix("math_") if dataset.startswith("math_") else dataset


def results(store: Store, runs: Sequence[RunRecord]) -> list[Result]:
    found = []
    for run, events, end in finished_debates(store, runs, lambda system: True):
        start = events[0]
        free = isinstance(start, DebateStarted) and not start.config.question.options
        gold = start.config.question.answer if isinstance(start, DebateStarted) else None
        right = scoring.exact_match(end.final_answer, gold) if free else bool(end.correct)
        found.append(
            Result(run.condition, column_of(run.setting, run.subject), split_run_key(run.question_key)[1], right)
        )
    return found


def label(system: str, labels: Sequence[tuple[str, str]]) -> str:
    """The paper's name of ``system``, its parameters after it; the system itself where the paper has none."""
    base, _, tail = system.partition(":")
    name = dict(labels).get(base, base)
    return f"{name} ({tail})" if tail else name


def ordered(systems: Sequence[str], labels: Sequence[tuple[str, str]]) -> list[str]:
    """``systems`` in the paper's row order, the others after them in theirs."""
    rank = {base: i for i, (base, _) in enumerate(labels)}
    return sorted(systems, key=lambda s: (rank.get(s.partition(":")[0], len(rank)), systems.index(s)))


def _accuracy(found: Sequence[Result]) -> float:
    return sum(r.right for r in found) / len(found)


def table_one(found: Sequence[Result], systems: Sequence[str]) -> list[str]:
    """The paper's Table 1 (see the module docstring); empty without a result."""
    present = [s for s in systems if any(r.system == s for r in found)]
    if not present:
        return []
    ran = {r.column for r in found}
    columns = [c for c in COLUMNS if c[0] in ran] + [(c, c) for c in sorted(ran - {c for c, _ in COLUMNS})]
    repeats = sorted({r.repeat for r in found})
    several = len(repeats) > 1
    lines = [
        "",
        "## SID: the paper's Table 1 (accuracy %" + (", mean ± SE over runs)" if several else ")"),
        "",
        "| method | " + " | ".join(name for _, name in columns) + " | Avg |",
        "|---|" + "---|" * (len(columns) + 1),
    ]
    for system in ordered(present, TABLE_ONE):
        cells, averages = [], []
        for repeat in repeats:
            values = []
            for column, _ in columns:
                mine = [r for r in found if r.system == system and r.column == column and r.repeat == repeat]
                if mine:
                    values.append(_accuracy(mine))
            if values:
                averages.append(mean(values))
        for column, _ in columns:
            per_run = [
                _accuracy(mine)
                for repeat in repeats
                if (mine := [r for r in found if r.system == system and r.column == column and r.repeat == repeat])
            ]
            cells.append(spread(per_run).se_text(100) if per_run else "-")
        average = spread(averages).se_text(100) if averages else "-"
        lines.append(f"| {label(system, TABLE_ONE)} | " + " | ".join(cells) + f" | {average} |")
    lines += [
        "",
        "Avg is the mean over the row's columns, taken in each run. MATH's answers are scored as the report's "
        "normalized match (LaTeX compared as MATH answers); the paper uses MATH's official exact match.",
        "",
        f"The paper: {PAPER_ONE}.",
    ]
    return lines


def table_three(found: Sequence[Result], debates: Sequence[SidDebate], systems: Sequence[str]) -> list[str]:
    """The paper's Table 3 (see the module docstring); empty without a ``sid/`` result."""
    present = [s for s in systems if s.startswith("sid/") and any(r.system == s for r in found)]
    if not present:
        return []
    repeats = sorted({r.repeat for r in found})
    several = len(repeats) > 1
    lines = [
        "",
        "## SID: the paper's Table 3 (accuracy % and token ratio against sid/mad"
        + (", mean ± SE over runs)" if several else ")"),
        "",
        "| method | accuracy | token ratio |",
        "|---|---|---|",
    ]
    for system in ordered(present, TABLE_THREE):
        accuracy, ratio = [], []
        for repeat in repeats:
            mine = [r for r in found if r.system == system and r.repeat == repeat]
            if mine:
                accuracy.append(_accuracy(mine))
            run = [d for d in debates if split_run_key(d.question_key)[1] == repeat]
            value = token_ratio(run, system)
            if value is not None:
                ratio.append(value)
        acc_text = spread(accuracy).se_text(100) if accuracy else "-"
        ratio_text = spread(ratio).se_text(1, 2) if ratio else "-"
        lines.append(f"| {label(system, TABLE_THREE)} | {acc_text} | {ratio_text} |")
    lines += [
        "",
        "The token ratio counts the debate's own prompt and generated tokens against MAD's on the same questions "
        "(the cost table above has the side requests: the attention probes' prefill and the summaries).",
        "",
        f"The paper: {PAPER_THREE}.",
    ]
    return lines
