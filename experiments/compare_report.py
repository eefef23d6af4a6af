"""A comparison study's results: accuracy, cost and behaviour per system, and its report.

What it does: reads a comparison's finished debates (``compare_outcomes``:
one ``Outcome`` each, re-exported here). ``summarise`` gives per system
(overall and per dataset) accuracy with n and a 95% Wilson interval, mean
costs, and drift against the control on the same questions (the
chain-of-thought baseline a plugin declares with ``ReportSection.control``):
how often a debate lost a question CoT had right, and won one CoT had wrong.
``free_form`` scores the free-form questions (HotpotQA, GSM8K, BBH's
free-form tasks) two more ways beside the engine's exact scoring: normalized
exact match and containment (``scoring``); a multiple-choice question is
scored by its label only. The report also compares every pair of systems on
their shared questions (``paired``: discordant counts, McNemar's exact test, a
paired bootstrap interval; one row per run in a study run several times),
and, for a study of several runs, gives mean ± standard error over runs and a
paired t-test across runs (``repeats``). The header states the temperature
each system sampled at (the shared one, or each protocol's study
temperature) and the sentence segmenter, with the unit each system's
debates recorded, and warns when the study's specification does not record
its systems' parameters (``compare_setup``); "Models" names the model of
each agent or role that did not run on the default one (``--model-for``, a
variant's own seated model: ``compare_models``). ``full_markdown`` adds how the
debates ended (``compare_endings``), each system's parameters and any that
differ between its debates (``compare_setup``), and every plugin's own
section and figures
(``register_report_sections``, in plugin order); ``write_report`` writes
``report.md``, the figures and ``debates.csv`` (one row per finished debate,
its repeat, end reason and segmenter included).

Tokens are what our backend computed, each call counted once (a protocol's
section says where its paper counted otherwise).

What it does not do: run debates (``compare``), draw figures itself, or know
any protocol (the plugins' sections do).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from experiments import compare_endings, compare_models, compare_setup, extensions, paired, repeats
from experiments.accuracy import Accuracy
from experiments.compare import KIND, CompareSpec, system_parts
from experiments.compare_outcomes import Outcome, outcomes, records_mistakes
from experiments.images import export_png
from experiments.statistics import mean

__all__ = [
    "KIND",
    "Outcome",
    "drift",
    "free_form",
    "full_markdown",
    "outcomes",
    "pairs",
    "records_mistakes",
    "report_markdown",
    "summarise",
    "write_report",
]
from storage import Store


def control_system(spec: CompareSpec) -> str | None:
    """The control the report compares every other system against: the first a plugin declares
    (``ReportSection.control``) that the study ran; ``None`` without one."""
    declared = [s.control for s in extensions.report_sections() if s.control]
    return next((system for system in declared if system in spec.systems), None)


@dataclass(frozen=True)
class Row:
    system: str
    dataset: str
    accuracy: Accuracy
    unanswered: int
    prompt_tokens: float
    generated_tokens: float
    total_tokens: float
    wall_s: float
    wall_total_s: float
    interventions: float
    mistakes: float


def _mean(values: Iterable[float]) -> float:
    return mean(list(values))


def summarise(spec: CompareSpec, found: Sequence[Outcome]) -> list[Row]:
    """One row per system overall ("all"), then per dataset."""
    rows = []
    datasets = ["all", *sorted({o.dataset for o in found})]
    for dataset in datasets:
        for system in spec.systems:
            mine = [o for o in found if o.system == system and dataset in ("all", o.dataset)]
            rows.append(
                Row(
                    system,
                    dataset,
                    Accuracy(sum(o.correct for o in mine), len(mine)),
                    sum(not o.answered for o in mine),
                    _mean(o.prompt_tokens for o in mine),
                    _mean(o.generated_tokens for o in mine),
                    _mean(o.total_tokens for o in mine),
                    _mean(o.wall_s for o in mine),
                    sum(o.wall_s for o in mine),
                    _mean(o.interventions for o in mine),
                    _mean(o.mistakes for o in mine),
                )
            )
    return rows


@dataclass(frozen=True)
class FreeFormRow:
    """A system's free-form questions of one dataset, scored three ways."""

    system: str
    dataset: str
    exact: Accuracy  # the engine's scoring (``DebateEnded.correct``)
    normalized: Accuracy  # normalized exact match
    contained: Accuracy  # containment


def free_form(spec: CompareSpec, found: Sequence[Outcome]) -> list[FreeFormRow]:
    """Per dataset with free-form questions (and "all" when there are several), per system; empty without any."""
    free = [o for o in found if o.free_form]
    datasets = sorted({o.dataset for o in free})
    rows = []
    for dataset in ["all", *datasets] if len(datasets) > 1 else datasets:
        for system in spec.systems:
            mine = [o for o in free if o.system == system and dataset in ("all", o.dataset)]
            if mine:
                rows.append(
                    FreeFormRow(
                        system,
                        dataset,
                        Accuracy(sum(o.correct for o in mine), len(mine)),
                        Accuracy(sum(o.normalized_exact for o in mine), len(mine)),
                        Accuracy(sum(o.contained for o in mine), len(mine)),
                    )
                )
    return rows


def pairs(spec: CompareSpec, found: Sequence[Outcome], *, contained: bool = False) -> list[paired.Paired]:
    """Every pair of systems on their shared questions, by the engine's scoring, or with ``contained`` the
    free-form questions by containment (multiple-choice ones by their label all the same); with repeats,
    one row per pair and run (its questions of that run; ``Paired.run``)."""
    by_run: dict[int, dict[str, dict[str, bool]]] = {}
    for o in found:
        by_run.setdefault(o.repeat, {}).setdefault(o.system, {})[o.question_key] = (
            o.contained if contained else o.correct
        )
    rows = []
    for run, right in sorted(by_run.items()):
        seed = spec.seed if run == 0 else f"{spec.seed}|run {run}"
        found_rows = paired.compare_pairs(spec.systems, right, seed=seed)
        rows += [row if spec.repeats == 1 else replace(row, run=run) for row in found_rows]
    return sorted(rows, key=lambda r: (spec.systems.index(r.a), spec.systems.index(r.b), r.run or 0))


def _free_form_lines(spec: CompareSpec, found: Sequence[Outcome]) -> list[str]:
    rows = free_form(spec, found)
    if not rows:
        return []
    lines = [
        "",
        "## Free-form answers, scored three ways",
        "",
        "Questions without options (HotpotQA, GSM8K, BBH's free-form tasks). *Exact* is the accuracy above (the "
        "engine's: case-insensitive, a final full stop aside, plain numbers by value); *normalized exact match* "
        "lower-cases and removes punctuation and the articles a, an, the (SQuAD's normalization, numbers kept "
        "whole); *containment* counts an answer that contains the normalized gold answer as whole words (the "
        "debate paper's scoring of HotpotQA). Multiple-choice questions are scored by their option label only.",
        "",
        "| dataset | system | exact (n, 95% CI) | normalized exact match | containment |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {r.dataset} | {r.system} | {r.exact} | {r.normalized} | {r.contained} |" for r in rows]
    return lines


@dataclass(frozen=True)
class Drift:
    system: str
    paired: int
    lost: int  # CoT right, this system wrong
    won: int  # CoT wrong, this system right


def drift(spec: CompareSpec, found: Sequence[Outcome]) -> list[Drift]:
    """Against the control system (``control_system``) on the same questions (empty without it)."""
    name = control_system(spec)
    control = {(o.question_key, o.repeat): o.correct for o in found if o.system == name}
    if not control:
        return []
    result = []
    for system in spec.systems:
        if system == name:
            continue
        pairs = [
            (control[(o.question_key, o.repeat)], o.correct)
            for o in found
            if o.system == system and (o.question_key, o.repeat) in control
        ]
        lost = sum(1 for cot, mine in pairs if cot and not mine)
        won = sum(1 for cot, mine in pairs if mine and not cot)
        result.append(Drift(system, len(pairs), lost, won))
    return result


def _questions(spec: CompareSpec) -> str:
    parts = [f"{spec.mmlu} MMLU", f"{spec.strategyqa} StrategyQA"]
    if spec.bbh:
        parts.append(f"{spec.bbh} per BIG-Bench task ({', '.join(spec.bbh_tasks)})")
    if spec.gsm8k:
        parts.append(f"{spec.gsm8k} GSM8K")
    if spec.gpqa:
        parts.append(f"{spec.gpqa} GPQA Diamond")
    if spec.hotpotqa:
        where = "in the question" if spec.hotpotqa_context == "question" else "as the question's context"
        parts.append(f"{spec.hotpotqa} HotpotQA (distractor, its paragraphs {where})")
    parts += [f"{n} {name}" for name, n in spec.datasets.items() if n]
    return ", ".join(parts) + " questions"


def _temperature(value: float | None) -> str:
    if value is None:  # what the backend does with a request that names no temperature
        return "the backend's default (a server's own, none sent; 1.0, the OpenAI API's, in process)"
    return f"{value:g}"


def _temperatures(spec: CompareSpec) -> str:
    """The temperature each system sampled at: the shared one, else each protocol's study temperature."""
    if spec.temperature is not None:
        return f"temperature {spec.temperature:g} for every system"
    found = {system: _temperature(spec.temperature_for(system)) for system in spec.systems}
    per_protocol: dict[str, set[str]] = {}
    for system, value in found.items():
        per_protocol.setdefault(system_parts(system)[0], set()).add(value)
    by: dict[str, list[str]] = {}
    for system, value in found.items():  # a protocol's name where its systems agree, else each system's
        protocol = system_parts(system)[0]
        by.setdefault(value, []).append(protocol if len(per_protocol[protocol]) == 1 else system)
    if len(by) == 1:
        return f"temperature {next(iter(by))} for every system, its protocol's study temperature (its paper's)"
    shown = "; ".join(f"{value} for {', '.join(dict.fromkeys(names))}" for value, names in by.items())
    return f"temperature per protocol, its study temperature (its paper's): {shown}"


def report_markdown(spec: CompareSpec, model_id: str, found: Sequence[Outcome]) -> str:
    rows = summarise(spec, found)
    free = any(o.free_form for o in found)
    lines = [
        f"# Comparison study `{spec.experiment_id}`",
        "",
        f"Model `{model_id}`; systems {', '.join(f'`{s}`' for s in spec.systems)}; "
        f"{_questions(spec)} (seed {spec.seed}"
        + (f"; {spec.repeats} runs, each with its own seed" if spec.repeats > 1 else "")
        + f"); {_temperatures(spec)}; {compare_setup.segmenter_text(spec, found)}; at most {spec.max_new_tokens} "
        "new tokens per call. Every system of a "
        "question runs with the same seed"
        + (" in each run" if spec.repeats > 1 else "")
        + ". Accuracy is the engine's exact scoring (option labels; free-form answers "
        "case-insensitively, numbers by value)"
        + ("; free-form questions are also scored by normalized exact match and containment below." if free else "."),
        *compare_setup.not_recorded(spec),
        *compare_models.section(spec, model_id),
        "",
        f"{len(found)} finished debates.",
        "",
        "## Accuracy and cost per system",
        "",
        "| dataset | system | accuracy (n, 95% CI) | no answer | prompt tokens | generated tokens "
        "| total tokens | s per debate | s in all | points/questions | model mistakes |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.dataset} | {row.system} | {row.accuracy} | {row.unanswered} | {row.prompt_tokens:,.0f} "
            f"| {row.generated_tokens:,.0f} | {row.total_tokens:,.0f} | {row.wall_s:.1f} | {row.wall_total_s:.0f} "
            f"| {row.interventions:.2f} | {row.mistakes:.2f} |"
        )
    drifts = drift(spec, found)
    if drifts:
        lines += [
            "",
            f"## Against the CoT control (`{control_system(spec)}`) on the same questions",
            "",
            "| system | paired questions | lost (CoT right, debate wrong) | won (CoT wrong, debate right) |",
            "|---|---|---|---|",
        ]
        lines += [f"| {d.system} | {d.paired} | {d.lost} | {d.won} |" for d in drifts]
    lines += _free_form_lines(spec, found)
    tables = [("By the accuracy above (the engine's scoring)", pairs(spec, found))]
    if free:
        tables.append(
            (
                "With free-form answers scored by containment (multiple-choice by label)",
                pairs(spec, found, contained=True),
            )
        )
    lines += paired.section(tables)
    lines += repeats.section(found, spec.systems, spec.repeats)
    lines += [
        "",
        "Tokens are what the backend computed, each call counted once (prompt tokens include cached ones).",
        "",
    ]
    return "\n".join(lines)


def full_markdown(
    store: Store, experiment_id: str, spec: CompareSpec, model_id: str, found: Sequence[Outcome]
) -> tuple[str, list[tuple[str, Any]]]:
    """The report's text with every plugin's own section (``register_report_sections``), in plugin order, and
    their figures as (file stem, plotly figure)."""
    text = report_markdown(spec, model_id, found)
    runs = store.experiments.runs(experiment_id)
    ended = compare_endings.section(compare_endings.endings(store, runs), spec.systems)
    text += "\n".join([*ended, "", ""]) if ended else ""
    text += "\n".join([*compare_setup.section(store, spec, runs), "", ""])
    drawn: list[tuple[str, Any]] = []
    for section in extensions.report_sections():
        if section.build is None:
            continue
        built = section.build(store, runs, spec.systems)
        text += "\n".join(built.lines)
        drawn += built.figures
    return text, drawn


def write_report(store: Store, experiment_id: str, out: Path) -> Path:
    spec, found = outcomes(store, experiment_id)
    record = store.experiments.get(experiment_id)
    assert record is not None
    out.mkdir(parents=True, exist_ok=True)
    text, drawn = full_markdown(store, experiment_id, spec, record.model_id, found)
    if drawn:
        for stem, figure in drawn:
            figure.write_html(out / f"{stem}.html", include_plotlyjs="cdn")
        why = export_png([(figure, out / f"{stem}.png") for stem, figure in drawn])
        links = ", ".join(f"[{stem}]({stem}.html)" + ("" if why else f" ([png]({stem}.png))") for stem, _ in drawn)
        text += f"\nFigures: {links}.\n" + (f"(No PNGs: {why}.)\n" if why else "")
    (out / "report.md").write_text(text, encoding="utf-8")
    with open(out / "debates.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        names = [*Outcome.__dataclass_fields__, "normalized_exact", "contained"]
        writer.writerow(names)
        for outcome in found:
            writer.writerow([getattr(outcome, name) for name in names])
    return out / "report.md"
