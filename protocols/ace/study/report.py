"""ACE's section of a comparison report: accuracy per task, the ablation table, acts, rounds and tokens.

What it does: ``ace_debates(store, runs, systems)`` folds every finished debate
of an ``ace/...`` system into an ``AceDebate`` (its task: the BIG-Bench task,
or the dataset for MMLU and StrategyQA; whether it was right; how many
rounds it ran and whether the observer stopped it; the acts each debater
chose per round; the tokens the backend computed). ``section(debates,
systems)`` writes the report's markdown:

* accuracy per task and system, with n and a 95% Wilson interval;
* the ablation table in the shape of the paper's Table 2 (rows: without
  Analyze, without Compose, without Execute, full ACE, and the parallel
  baseline; columns: the tasks, then their unweighted mean), in percent; in
  a study run several times (``compare --repeats``) each cell is the mean ±
  standard deviation over runs of the run's accuracy, as the paper's Tables
  1-2 report "the mean and standard deviation" (the SD, not the standard
  error; ``experiments.statistics``, shared with every report), and the mean
  over tasks is taken per run first;
* acts chosen per round (how often each act of the library was picked);
* rounds until the end (mean, and the distribution), how each debate ended
  (the observer's stop, as the paper; a round cap: ``max_rounds``, or the
  ``rounds`` of ``no_analyze`` and the baseline; the safety net
  ``guard_rounds``, end reason ``max_turns``), and how the final answer
  was decided (agreed, the observer's pick, the majority);
* tokens per debate (prompt, generated, total; mean per system).

What it does not do: run debates (``compare``) or write files (``compare_report``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from debate_core.events import EndReason, PhaseStarted
from experiments.accuracy import Accuracy
from experiments.extensions import ReportSection, Section
from experiments.repeats import repeat_of
from experiments.statistics import mean, spread
from experiments.workers import finished_debates
from protocols.ace.events import ActionComposed
from storage import Store
from storage.experiments import RunRecord

PREFIX = "ace/"
_ENDINGS = (
    "The paper's debates end when the observer says so; *at the round cap*: a cap set with `max_rounds` (and"
    " the `rounds` that `no_analyze`, which has no observer, and the parallel baseline run); *at the safety net*:"
    " no cap was set and the observer never stopped, so `guard_rounds` ended the debate (`max_turns`)."
)
ROWS = (
    ("ace/no_analyze", "w/o Analyze (compose with no auxiliary information)"),
    ("ace/no_compose", "w/o Compose (acts drawn at random)"),
    ("ace/no_execute", "w/o Execute (answer given while composing)"),
    ("ace/ace", "full A+C+E"),
    ("ace/parallel", "parallel debate (Du et al.), baseline"),
)


@dataclass(frozen=True)
class AceDebate:
    system: str
    task: str
    correct: bool
    rounds: int
    reason: str  # the end reason: observer_stop, rounds (a cap), max_turns (the safety net), ...
    rule: str
    acts: tuple[tuple[int, tuple[str, ...]], ...] = field(default=())
    prompt_tokens: int = 0
    generated_tokens: int = 0
    repeat: int = 0  # the run, in a study run several times

    @property
    def observer_stop(self) -> bool:
        return self.reason == EndReason.OBSERVER_STOP.value

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.generated_tokens


def task_of(run: RunRecord) -> str:
    return run.subject if run.setting == "bbh" else run.setting


def base_system(system: str) -> str:
    """``ace/ace:rounds=3`` -> ``ace/ace`` (the variant a row of Table 2 is about)."""
    return system.partition(":")[0]


def ace_debates(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[AceDebate]:
    wanted = {s for s in systems if s.startswith(PREFIX)}
    found = []
    for run, events, end in finished_debates(store, runs, wanted.__contains__):
        rounds = max((e.round or 1 for e in events if isinstance(e, PhaseStarted)), default=1)
        acts = tuple((e.round, e.acts) for e in events if isinstance(e, ActionComposed))
        found.append(
            AceDebate(
                system=run.condition,
                task=task_of(run),
                correct=bool(end.correct),
                rounds=rounds,
                reason=str(end.reason.value),
                rule=end.rule,
                acts=acts,
                prompt_tokens=end.stats.prompt_tokens,
                generated_tokens=end.stats.generated_tokens,
                repeat=repeat_of(run),
            )
        )
    return found


def _accuracy(debates: Sequence[AceDebate]) -> Accuracy:
    return Accuracy(sum(1 for d in debates if d.correct), len(debates))


def _percent(debates: Sequence[AceDebate]) -> str:
    """Accuracy in percent; with several runs, the mean ± SD of the runs' accuracies."""
    if not debates:
        return "-"
    return spread(list(_by_run(debates).values())).sd_text(100)


def _by_run(debates: Sequence[AceDebate]) -> dict[int, float]:
    """Accuracy per run."""
    runs: dict[int, list[AceDebate]] = defaultdict(list)
    for d in debates:
        runs[d.repeat].append(d)
    return {run: _accuracy(found).value for run, found in sorted(runs.items())}


def section(debates: Sequence[AceDebate], systems: Sequence[str]) -> list[str]:
    """The ACE section's markdown lines (empty without an ``ace/`` system)."""
    present = [s for s in systems if s.startswith(PREFIX) and any(d.system == s for d in debates)]
    if not present:
        return []
    tasks = sorted({d.task for d in debates})
    by: dict[tuple[str, str], list[AceDebate]] = defaultdict(list)
    for d in debates:
        by[(d.system, d.task)].append(d)
    lines = ["", "## ACE: accuracy per task (n, 95% CI)", "", "| task | " + " | ".join(present) + " |"]
    lines.append("|---" * (len(present) + 1) + "|")
    for task in tasks:
        cells = [str(_accuracy(by[(s, task)])) if by[(s, task)] else "-" for s in present]
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    lines += _table_two(by, present, tasks) + _acts(debates, present) + _rounds(debates, present)
    lines += _tokens(debates, present)
    return lines


def _table_two(by: dict[tuple[str, str], list[AceDebate]], present: list[str], tasks: list[str]) -> list[str]:
    several = len({d.repeat for found in by.values() for d in found}) > 1
    lines = [
        "",
        "## ACE: ablations in the shape of the paper's Table 2 (accuracy, %"
        + (", mean ± SD over runs" if several else "")
        + ")",
        "",
        "| variant | " + " | ".join(tasks) + " | mean over tasks |",
        "|---" * (len(tasks) + 2) + "|",
    ]
    order = [variant for variant, _ in ROWS]
    ranked = sorted(present, key=lambda s: order.index(base_system(s)) if base_system(s) in order else len(order))
    for system in ranked:  # the paper's order: the ablations, then the full method (and our baseline)
        label = dict(ROWS).get(base_system(system), system)
        if base_system(system) != system:
            label += f" (`{system}`)"
        scores = [by[(system, t)] for t in tasks]
        per_run: dict[int, list[float]] = defaultdict(list)  # the mean over tasks, taken in each run
        for found in scores:
            for run, value in _by_run(found).items():
                per_run[run].append(value)
        means = [mean(values) for values in per_run.values()]
        shown = spread(means).sd_text(100) if means else "-"
        lines.append(f"| {label} | " + " | ".join(_percent(s) for s in scores) + f" | {shown} |")
    lines += ["", "The paper (GPT-3.5-turbo, 4 BBH tasks): full ACE 37.1 / 71.0 / 70.1 / 32.9 on TSO / DU / PIA / GS."]
    return lines


def _acts(debates: Sequence[AceDebate], present: list[str]) -> list[str]:
    counted: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    names: set[str] = set()
    for d in debates:
        for round_, acts in d.acts:
            counted[(d.system, round_)].update(acts)
            names.update(acts)
    if not counted:
        return []
    order = sorted(names)
    lines = ["", "## ACE: acts chosen per round", "", "| system | round | " + " | ".join(order) + " |"]
    lines.append("|---" * (len(order) + 2) + "|")
    for system in present:
        for round_ in sorted(r for s, r in counted if s == system):
            row = counted[(system, round_)]
            lines.append(f"| {system} | {round_} | " + " | ".join(str(row[n]) for n in order) + " |")
    return lines


def _rounds(debates: Sequence[AceDebate], present: list[str]) -> list[str]:
    lines = [
        "",
        "## ACE: rounds until the end, and how the answer was decided",
        "",
        "| system | debates | mean rounds | stopped by the observer | at the round cap | at the safety net "
        "| rounds: debates | agreed | observer's pick | majority |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for system in present:
        mine = [d for d in debates if d.system == system]
        spread = Counter(d.rounds for d in mine)
        rules = Counter(d.rule for d in mine)
        shown = ", ".join(f"{r}: {spread[r]}" for r in sorted(spread))
        ends = Counter(d.reason for d in mine)
        lines.append(
            f"| {system} | {len(mine)} | {mean([d.rounds for d in mine]):.2f} | {ends[EndReason.OBSERVER_STOP.value]} "
            f"| {ends[EndReason.ROUNDS.value]} | {ends[EndReason.MAX_TURNS.value]} | {shown} "
            f"| {rules['consensus']} | {rules['judge']} | {rules['majority']} |"
        )
    return [*lines, "", _ENDINGS]


def _tokens(debates: Sequence[AceDebate], present: list[str]) -> list[str]:
    lines = [
        "",
        "## ACE: tokens per debate (mean; what the backend computed)",
        "",
        "| system | prompt | generated | total |",
        "|---|---|---|---|",
    ]
    for system in present:
        mine = [d for d in debates if d.system == system]
        prompt = mean([d.prompt_tokens for d in mine])
        generated = mean([d.generated_tokens for d in mine])
        lines.append(f"| {system} | {prompt:,.0f} | {generated:,.0f} | {prompt + generated:,.0f} |")
    return [*lines, ""]


def report_section(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> Section:
    """ACE's part of a comparison report (``register_report_sections``): its tables, no figure."""
    return Section(section(ace_debates(store, runs, systems), systems))


REPORT_SECTION = ReportSection("ace", report_section)
