"""ACE's section of a comparison report: accuracy per task, the paper's Tables 1 and 2, acts, rounds, tokens.

What it does: ``ace_debates(store, runs, systems)`` folds every finished debate
of an ``ace/...`` system into an ``AceDebate`` (its task: the BIG-Bench task,
or the dataset for MMLU and StrategyQA; whether it was right; how many
rounds it ran and whether the observer stopped it; the acts each debater
chose per round; the tokens the backend computed). ``section(debates,
systems, others)`` writes the report's markdown:

* accuracy per task and system, with n and a 95% Wilson interval;
* the paper's Table 1 (``tables.table_one``), when the study ran full ACE
  and another of its systems (PAR, and the baselines family's RPD, RTC and
  TAR, whose results come in ``others``) on BBH: BBH's 23 tasks in the
  paper's categories with their averages, logical deduction and tracking
  shuffled objects as the means of their subtasks;
* the ablation table in the shape of the paper's Table 2
  (``tables.table_two``: rows without Analyze, without Compose, without
  Execute, full ACE, and the parallel baseline; columns TSO as the mean of
  3, 5 and 7 objects, DU, PIA, GS, any other task, then their unweighted
  mean), in percent; in a study run several times (``compare --repeats``)
  each cell of either table is the mean ± standard deviation over runs of the
  run's accuracy, as the paper's Tables 1-2 report "the mean and standard
  deviation" (the SD, not the standard error; ``experiments.statistics``,
  shared with every report), and a mean over tasks is taken per run first;
* acts chosen per round (how often each act of the library was picked);
* rounds until the end (mean, and the distribution), how each debate ended
  (the observer's stop, as the paper; a round cap: ``max_rounds``, or the
  ``rounds`` of ``no_analyze`` and the baseline; the safety net
  ``guard_rounds``, end reason ``max_turns``), and how the final answer
  was decided (agreed, the observer's pick, the majority);
* tokens per debate (prompt, generated, total; mean per system).

``report_section`` adds the rounds sweep of the paper's Fig. 4 (``sweep``: its
table and figure) when the study ran a method at several numbers of rounds.

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
from experiments.statistics import mean
from experiments.workers import finished_debates
from protocols.ace.events import ActionComposed
from protocols.ace.study import sweep, tables
from protocols.ace.study.tables import task_of
from storage import Store
from storage.experiments import RunRecord

PREFIX = "ace/"
_ENDINGS = (
    "The paper's debates end when the observer says so; *at the round cap*: a cap set with `max_rounds` (and"
    " the `rounds` that `no_analyze`, which has no observer, and the parallel baseline run); *at the safety net*:"
    " no cap was set and the observer never stopped, so `guard_rounds` ended the debate (`max_turns`)."
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


def section(debates: Sequence[AceDebate], systems: Sequence[str], others: Sequence[tables.Scored] = ()) -> list[str]:
    """The ACE section's markdown lines (empty without an ``ace/`` system); ``others``: the results of the
    other protocols' systems that Table 1 sets beside ACE (``tables.scored``)."""
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
    lines += tables.table_one([*debates, *others], systems) + tables.table_two(debates, present)
    lines += _acts(debates, present) + _rounds(debates, present)
    lines += _tokens(debates, present)
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
    """ACE's part of a comparison report (``register_report_sections``): its tables, and the rounds sweep's
    table and figure when the study is a sweep."""
    debates, others = study_results(store, runs, systems)
    lines = section(debates, systems, others)
    swept = sweep.points([*debates, *others], systems)
    if swept is None:
        return Section(lines)
    return Section([*lines, *sweep.section(swept, ace_rounds(debates))], [(sweep.FIGURE, sweep.figure(swept))])


def study_results(
    store: Store, runs: Sequence[RunRecord], systems: Sequence[str]
) -> tuple[list[AceDebate], list[tables.Result]]:
    """ACE's debates, and the results of the other protocols' systems its tables and sweep set beside them
    (Table 1's RPD, RTC, TAR; a swept baseline)."""
    wanted = [s for s in systems if not s.startswith(PREFIX)]
    wanted = [s for s in wanted if s in dict(tables.TABLE_ONE) or sweep.rounds_of(s) is not None]
    return ace_debates(store, runs, systems), tables.scored(store, runs, wanted) if wanted else []


def ace_rounds(debates: Sequence[AceDebate]) -> dict[tuple[str, int], float]:
    """The mean rounds ACE's debates ran under each cap of a sweep, by (method, cap)."""
    ran: dict[tuple[str, int], list[int]] = defaultdict(list)
    for d in debates:
        found = sweep.rounds_of(d.system)
        if found is not None and sweep.ROUND_PARAMETER[found[0]][2] == "at most":
            ran[found].append(d.rounds)
    return {key: mean(values) for key, values in ran.items()}


REPORT_SECTION = ReportSection("ace", report_section)
