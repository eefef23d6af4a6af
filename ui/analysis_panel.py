"""The Analysis tab: an experiment's tables and figures, as its report has them.

What it does: lists the experiments in the store, and for the one chosen
asks the study kind that handles it (``experiments.extensions.StudyKind``:
the harness's comparison, or a plugin's study through
``register_study_kinds``) for its view, and shows its text, its plotly
figures (at most twelve, on a transparent background that follows the
page's light or dark theme) and the list of its debates (ids to open in the
Replay tab); it offers the kind's full report folder (markdown, HTML and PNG
figures, CSVs) as a zip download. The token grid slider is handed to the
kind for the figures it draws over public tokens. For a paper study the
text is Tables V-X and the figures Figures 1-9; for a comparison, its
``report.md``.

The **Source** list offers, beside the app's own store, every study
committed under ``docs/studies`` (``ui.studies``): choosing one shows its
committed ``report.md`` and lists its experiments, opened read-only in place
(its database decompressed once into a cache folder), so its tables,
figures and debates are browsed like the app's own; **Replay its debates**
opens the Replay tab on the same source.

What it does not do: run studies (``python -m experiments`` does),
compute anything itself (the study kinds do) or write to a committed study.
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
from ui.studies import APP, StudyLibrary

MAX_FIGURES = 12
EMPTY = "No experiment yet. Run one with `python -m experiments run --experiment ID` (see docs/experiments.md)."
CHOOSE = "Choose an experiment above and press **Show** for its tables and figures."


def _on_page(figure: Any) -> Any:
    """A copy of a plotly figure, drawn for the page (``charts.on_page``: light and dark mode); anything else as is."""
    import plotly.graph_objects as go

    from ui.charts import on_page

    return on_page(go.Figure(figure)) if isinstance(figure, go.Figure) else figure


@dataclass
class AnalysisPanel:
    """What ``app`` wires: the list at page load (with the note under it), a refresh on tab select, and the
    button that opens the Replay tab on the source shown here (``replay`` with ``source`` as its input)."""

    load: Callable[[], Any]
    load_outputs: list[Any]
    refresh: Callable[[str | None, str | None], Any]
    choice: Any
    source: Any
    replay: Any


def build_analysis(store: Any, library: StudyLibrary | None = None) -> AnalysisPanel:
    """The tab's components and its page-load wiring (``library``: the app's store and the committed studies)."""
    library = library if library is not None else StudyLibrary(store)
    with gr.Row():
        source = gr.Dropdown(
            library.choices(),
            value=APP,
            label="Source",
            info="The app's own store, or a study committed under docs/studies (opened read-only)",
            scale=3,
            elem_id="analysis-source",
        )
        replay = gr.Button("Replay its debates", scale=1, elem_id="analysis-replay")
    study_note = gr.Markdown("", elem_id="analysis-study")
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

    def experiments(where: str | None) -> list[tuple[str, str]]:
        return [(f"{r.id} · {r.model_id[:40]}", r.id) for r in library.store(where).experiments.all()]

    def listing(where: str | None = APP) -> tuple[Any, Any]:
        choices = experiments(where)
        note = CHOOSE if choices else EMPTY
        return gr.update(choices=choices, value=choices[0][1] if choices else None), note

    def refreshed(current: str | None, where: str | None = APP) -> Any:
        """The list again, keeping the experiment shown (tab select must not reset what is on screen)."""
        try:
            choices = experiments(where)
        except KeyError:
            return gr.skip()
        ids = [value for _, value in choices]
        return gr.update(choices=choices, value=current if current in ids else (ids[0] if ids else None))

    def source_chosen(where: str | None) -> list[Any]:
        """Another source: its experiments, and for a committed study its committed report (read-only)."""
        hidden = [gr.update(visible=False, value=None)] * MAX_FIGURES
        try:
            study = library.study(where)
            if study is not None and study.database is None:
                note = f"**Committed study `{study.name}`**: only its report is committed, no debates to open."
                return [gr.update(choices=[], value=None), "", note, *hidden, [], gr.update(interactive=False)]
            chosen_update, summary_text = listing(where)
        except (KeyError, OSError) as error:  # an unknown name, or a cache folder it cannot write
            return [gr.skip(), "", f"**{error.args[0] if error.args else error}**", *hidden, [], gr.skip()]
        if study is None:
            return [chosen_update, "", summary_text, *hidden, [], gr.update(interactive=True)]
        note = (
            f"**Committed study `{study.name}`**, opened read-only from `docs/studies/{study.name}`: its "
            "committed report is below. Choose an experiment and press **Show** for the tables and figures "
            "computed from its database, or **Replay its debates**."
        )
        return [chosen_update, note, library.report(where), *hidden, [], gr.update(interactive=True)]

    def display(experiment_id: str | None, grid: float, where: str | None = APP) -> list[Any]:
        hidden = [gr.update(visible=False, value=None)] * MAX_FIGURES
        if not experiment_id:
            return [EMPTY, *hidden, []]
        try:
            store = library.store(where)
        except KeyError as error:
            return [f"**{error.args[0]}**", *hidden, []]
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
        # a copy of each, on the page's transparent background (dark mode); the report keeps its own
        shown = [gr.update(visible=True, value=_on_page(figure)) for figure in list(view.figures)[:MAX_FIGURES]]
        return [view.markdown, *shown, *hidden[len(shown) :], [list(row) for row in view.debates]]

    def report_zip(experiment_id: str | None, grid: float, where: str | None = APP) -> str | None:
        if not experiment_id:
            return None
        try:
            store = library.store(where)
        except KeyError as error:
            gr.Warning(str(error.args[0]))
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
    shown = [chosen, step, source]
    source.input(source_chosen, inputs=source, outputs=[chosen, study_note, *outputs, replay])
    refresh.click(listing, inputs=source, outputs=[chosen, summary])
    show.click(display, inputs=shown, outputs=outputs)
    chosen.input(display, inputs=shown, outputs=outputs)
    step.release(display, inputs=shown, outputs=outputs)
    download.click(report_zip, inputs=shown, outputs=files)
    return AnalysisPanel(listing, [chosen, summary], refreshed, chosen, source, replay)
