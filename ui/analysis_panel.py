"""The Analysis tab: an experiment's tables and figures, as the report has them.

What it does: lists the experiments in the store, and for the one chosen
shows the report's text (what was run, Tables V-X, Figure 9's bins, counts
and costs, definitions), the same plotly figures the report writes (Figures
1-9 and final accuracy), the list of its debates (ids to open in the Replay
tab), and offers the full report folder (markdown, HTML and PNG figures,
CSVs) as a zip download. For a comparison study the text is its
``report.md`` (``compare_report.full_markdown``): accuracy and cost per
system, drift against CoT, free-form answers scored three ways, the paired
comparison of every two systems (McNemar, bootstrap interval) and each
protocol's own sections.

What it does not do: run studies (``python -m experiments run`` does) or
compute anything itself (``experiments.analysis`` and ``experiments.figures``).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from experiments import compare_report
from experiments.analysis import DEFAULT_STEP, load_study, trajectories
from experiments.figures import CONDITION_NAMES, SETTING_NAMES, study_figures
from experiments.report import markdown, write_report

MAX_FIGURES = 12
EMPTY = "No experiment yet. Run one with `python -m experiments run --experiment ID` (see docs/experiments.md)."
CHOOSE = "Choose an experiment above and press **Show** for its tables and figures."


@dataclass
class AnalysisPanel:
    """What ``app`` wires: the list at page load (with the note under it), and a refresh on tab select."""

    load: Callable[[], Any]
    load_outputs: list[Any]
    refresh: Callable[[str | None], Any]
    choice: Any


def build_analysis(store: Any) -> AnalysisPanel:
    """The tab's components and its page-load wiring."""
    with gr.Row():
        chosen = gr.Dropdown([], label="Experiment", scale=3, elem_id="analysis-choice", allow_custom_value=True)
        step = gr.Slider(5, 100, value=DEFAULT_STEP, step=5, label="Trajectory grid (tokens)", scale=2)
        refresh = gr.Button("Refresh list", scale=1, elem_id="analysis-refresh")
        show = gr.Button("Show", variant="primary", scale=1, elem_id="analysis-show")
    summary = gr.Markdown(EMPTY, elem_id="analysis-summary")
    plots = []
    for row in range(0, MAX_FIGURES, 2):
        with gr.Row():
            plots += [gr.Plot(visible=False, elem_id=f"analysis-figure-{i}") for i in (row, row + 1)]
    debates = gr.Dataframe(
        headers=["debate id", "question", "subject", "setting", "condition", "final", "correct"],
        interactive=False,
        elem_id="analysis-debates",
        wrap=True,
        label="Debates (open one in the Replay tab by its id)",
    )
    with gr.Row():
        download = gr.Button("Download the report (zip)", elem_id="analysis-download")
        files = gr.File(label="Report", interactive=False, elem_id="analysis-files")

    def listing() -> tuple[Any, Any]:
        records = store.experiments.all()
        choices = [(f"{r.id} · {r.model_id[:40]}", r.id) for r in records]
        note = CHOOSE if choices else EMPTY
        return gr.update(choices=choices, value=choices[0][1] if choices else None), note

    def refreshed(current: str | None) -> Any:
        """The list again, keeping the experiment shown (tab select must not reset what is on screen)."""
        choices = [(f"{r.id} · {r.model_id[:40]}", r.id) for r in store.experiments.all()]
        ids = [value for _, value in choices]
        return gr.update(choices=choices, value=current if current in ids else (ids[0] if ids else None))

    def display(experiment_id: str | None, grid: float) -> list[Any]:
        hidden = [gr.update(visible=False, value=None)] * MAX_FIGURES
        if not experiment_id:
            return [EMPTY, *hidden, []]
        record = store.experiments.get(experiment_id)
        if record is not None and record.spec.get("kind") == compare_report.KIND:
            text, rows = _comparison(experiment_id, record.model_id)
            return [text, *hidden, rows]
        try:
            data = load_study(store, experiment_id)
        except KeyError as error:
            return [f"**{error.args[0]}**", *hidden, []]
        paths = trajectories(data, int(grid))
        figures = study_figures(data, int(grid), paths)[:MAX_FIGURES]
        text = markdown(data, [], set(), [], int(grid), paths)
        shown = [gr.update(visible=True, value=f.figure) for f in figures]
        rows = [
            [
                d.run.debate_id,
                d.started.config.question.text[:100],
                d.run.subject,
                SETTING_NAMES[d.setting],
                CONDITION_NAMES[d.condition],
                d.ended.final_answer or "-",
                "yes" if d.ended.correct else "no",
            ]
            for d in data.debates
        ]
        return [text, *shown, *hidden[len(shown) :], rows]

    def _comparison(experiment_id: str, model_id: str) -> list[Any]:
        """A comparison study (``python -m experiments compare``): its tables and its debates."""
        spec, found = compare_report.outcomes(store, experiment_id)
        rows = []
        for outcome in found:
            debate = store.debate(outcome.debate_id)
            rows.append(
                [
                    outcome.debate_id, debate.question[:100], outcome.dataset, "-", outcome.system,
                    debate.final_answer or "-", "yes" if outcome.correct else "no",
                ]
            )  # fmt: skip
        return [compare_report.full_markdown(store, experiment_id, spec, model_id, found)[0], rows]

    def report_zip(experiment_id: str | None, grid: float) -> str | None:
        if not experiment_id:
            return None
        record = store.experiments.get(experiment_id)
        if record is None:
            gr.Warning(f"no experiment {experiment_id!r} in the store")
            return None
        folder = Path(tempfile.mkdtemp(prefix="debate-report-"))
        if record.spec.get("kind") == compare_report.KIND:
            compare_report.write_report(store, experiment_id, folder / experiment_id)
        else:
            write_report(store, experiment_id, folder / experiment_id, png=True, step=int(grid))
        return shutil.make_archive(str(folder / f"report-{experiment_id}"), "zip", folder, experiment_id)

    outputs = [summary, *plots, debates]
    refresh.click(listing, outputs=[chosen, summary])
    show.click(display, inputs=[chosen, step], outputs=outputs)
    chosen.input(display, inputs=[chosen, step], outputs=outputs)
    step.release(display, inputs=[chosen, step], outputs=outputs)
    download.click(report_zip, inputs=[chosen, step], outputs=files)
    return AnalysisPanel(listing, [chosen, summary], refreshed, chosen)
