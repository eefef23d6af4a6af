"""The Analysis tab: an experiment's tables and figures, as its report has them.

What it does: lists the experiments in the store, and for the one chosen
asks the study kind that handles it (``experiments.extensions.StudyKind``:
the harness's comparison, or a plugin's study through
``register_study_kinds``) for its view, and shows its text, its plotly
figures (at most twelve) and the list of its debates (ids to open in the
Replay tab); it offers the kind's full report folder (markdown, HTML and PNG
figures, CSVs) as a zip download. The token grid slider is handed to the
kind for the figures it draws over public tokens. For a paper study the
text is Tables V-X and the figures Figures 1-9; for a comparison, its
``report.md``.

What it does not do: run studies (``python -m experiments`` does) or
compute anything itself (the study kinds do).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from experiments import extensions

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
        step = gr.Slider(5, 100, value=extensions.DEFAULT_STEP, step=5, label="Trajectory grid (tokens)", scale=2)
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
        if record is None:
            return [f"**{extensions.no_such_experiment(store, experiment_id).args[0]}**", *hidden, []]
        kind = extensions.study_kind_for(record)
        if kind is None:
            return [f"**experiment {experiment_id!r} is of a kind no plugin shows**", *hidden, []]
        try:
            view = kind.view(store, record, int(grid))
        except KeyError as error:
            return [f"**{error.args[0]}**", *hidden, []]
        shown = [gr.update(visible=True, value=figure) for figure in list(view.figures)[:MAX_FIGURES]]
        return [view.markdown, *shown, *hidden[len(shown) :], [list(row) for row in view.debates]]

    def report_zip(experiment_id: str | None, grid: float) -> str | None:
        if not experiment_id:
            return None
        record = store.experiments.get(experiment_id)
        if record is None:
            gr.Warning(f"no experiment {experiment_id!r} in the store")
            return None
        kind = extensions.study_kind_for(record)
        if kind is None:
            gr.Warning(f"experiment {experiment_id!r} is of a kind no plugin reports")
            return None
        folder = Path(tempfile.mkdtemp(prefix="debate-report-"))
        kind.write(store, record, folder / experiment_id, extensions.ReportOptions(png=True, step=int(grid)))
        return shutil.make_archive(str(folder / f"report-{experiment_id}"), "zip", folder, experiment_id)

    outputs = [summary, *plots, debates]
    refresh.click(listing, outputs=[chosen, summary])
    show.click(display, inputs=[chosen, step], outputs=outputs)
    chosen.input(display, inputs=[chosen, step], outputs=outputs)
    step.release(display, inputs=[chosen, step], outputs=outputs)
    download.click(report_zip, inputs=[chosen, step], outputs=files)
    return AnalysisPanel(listing, [chosen, summary], refreshed, chosen)
