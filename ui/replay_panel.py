"""The replay tab: find a stored debate, play it back turn by turn, export it, import one.

What it does: lists stored debates as soon as the page opens (filter by
question text and status; a debate still being recorded elsewhere shows as
running), loads one, and shows it at any point of its history with a slider
over turns and a play / pause timer (Play lets go of itself at the last
turn; pressed there, it plays again from turn 0), through the same renderers
as the live view (question, discarded units, plans, answers per round, SID's confidence
gauges and what each agent read included; the plan panels are hidden for a
debate that made no plans, as in the live view), and, for a debate a class
joined, who held which seat and the audience's polls as they stood at that
turn (the store's classroom record, ``classroom_panel.record_html``). JSON and CSV exports are
offered as downloads; a transcript file can be imported from the page, with
the same all-or-nothing checks as ``python -m storage import``. A page opened
with ``?debate=ID`` (the link the live view offers) opens that debate here.
The **Source** list reads the app's own store or a study committed under
``docs/studies`` (``ui.studies``, read-only: an import always goes to the
app's store); the Analysis tab's **Replay its debates** sets it.

What it does not do: change stored debates (importing adds one, to the app's
store).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from debate_core.events import Event, PlansMade
from debate_core.protocols.registry import uses_budget
from debate_core.status import DebateStatus
from storage.transcript import TranscriptError
from storage.transfer import safe_file_name
from ui import charts, render, web_plugins
from ui.classroom_panel import record_html
from ui.studies import APP, StudyLibrary
from ui.view_model import DebateView

STATUSES = ["any", *(status.value for status in DebateStatus)]
LIST_LIMIT = 200


@dataclass
class ReplayPanel:
    """What ``app`` wires at page load: the list, and the debate a ``?debate=`` link names; ``source``: the store
    listed (set by the Analysis tab's Replay its debates)."""

    open_link: Callable[..., list[Any]]
    link_outputs: list[Any]
    source: Any = None


def _turn_slider(last_turn: int) -> Any:
    # One update sets range and value together, with the value inside the range: a long debate
    # followed by a short one never leaves the old value above the new maximum.
    return gr.update(minimum=0, maximum=max(1, last_turn), value=last_turn)


def play_from(play: bool, events: list[Event], turn: float | None) -> tuple[Any, Any]:
    """Play pressed (or released): the timer on (off), and, pressed at the last turn, the slider back to turn 0."""
    last = events[-1].turn if events else 0
    restart = bool(play) and bool(events) and int(turn or 0) >= last
    return gr.Timer(active=bool(play)), (0 if restart else gr.skip())


def advance(events: list[Event], turn: float | None, play: bool) -> tuple[Any, Any]:
    """A tick while playing: the next turn, and Play released once the last turn is shown."""
    if not play or not events:
        return gr.skip(), gr.skip()
    last = events[-1].turn
    shown = min(last, int(turn or 0) + 1)
    return shown, (False if shown >= last else gr.skip())


def build_replay(store: Any, library: StudyLibrary | None = None) -> ReplayPanel:
    library = library if library is not None else StudyLibrary(store)
    loaded = gr.State([])
    source = gr.Dropdown(
        library.choices(debates_only=True),
        value=APP,
        label="Source",
        info="The app's own debates, or a study committed under docs/studies (read-only)",
        elem_id="replay-source",
    )
    with gr.Row():
        text = gr.Textbox(label="Question contains", scale=3, elem_id="replay-filter", max_length=500)
        status = gr.Dropdown(STATUSES, value="any", label="Status", scale=1, elem_id="replay-status")
        refresh = gr.Button("Refresh list", scale=1, elem_id="replay-refresh")
        upload = gr.UploadButton(
            "Import a transcript (JSON)", file_types=[".json"], scale=1, elem_id="replay-import", size="md"
        )
    imported = gr.HTML("", elem_id="replay-import-message")
    table = gr.Dataframe(
        headers=["id", "created (UTC)", "status", "protocol", "answer", "tokens", "question"],
        interactive=False,
        elem_id="replay-list",
        wrap=True,
        max_height=320,
    )
    with gr.Row():
        chosen = gr.Dropdown([], label="Debate", scale=3, elem_id="replay-choice", allow_custom_value=True)
        load = gr.Button("Open", variant="primary", scale=1, elem_id="replay-open")
    with gr.Row():
        position = gr.Slider(0, 1, value=0, step=1, label="Turn", elem_id="replay-turn", scale=4)
        playing = gr.Checkbox(label="Play", value=False, elem_id="replay-play", scale=1)
        show_discarded = gr.Checkbox(label="Show discarded units", value=True, scale=1)
        show_private = gr.Checkbox(
            label="Show private decisions (researcher view)", value=False, scale=1, elem_id="replay-private"
        )
    with gr.Row():
        with gr.Column(scale=3, min_width=300):
            question = gr.HTML(elem_id="replay-question")
            budget = gr.HTML(elem_id="replay-budget")
            transcript = gr.HTML(elem_id="replay-transcript")
            result = gr.HTML(elem_id="replay-result")
        with gr.Column(scale=2, min_width=280):
            rounds = gr.HTML(elem_id="replay-rounds")
            classroom = gr.HTML(elem_id="replay-classroom")  # who held which seat, the audience's polls
            panels = [gr.HTML(elem_id=f"replay-{panel.name}") for panel in web_plugins.panels()]
            plans = gr.HTML(elem_id="replay-plans")
            urgency = gr.Plot(elem_id="replay-urgency", show_label=False)
    trajectory = gr.Plot(elem_id="replay-trajectory", show_label=False)
    with gr.Row():
        export_json = gr.Button("Export JSON", elem_id="replay-export-json")
        export_csv = gr.Button("Export CSV", elem_id="replay-export-csv")
        files = gr.File(label="Downloads", file_count="multiple", interactive=False, elem_id="replay-files")

    def listing(
        words: str | None, state: str, selected: str | None = None, where: str | None = APP
    ) -> tuple[list[list[Any]], Any]:
        try:
            reading = library.store(where)
        except (KeyError, OSError) as error:
            gr.Warning(str(error.args[0] if error.args else error))
            return [], gr.update(choices=[], value=None)
        rows = reading.list_debates(text=words or None, status=None if state == "any" else state, limit=LIST_LIMIT)
        data = [
            [
                r.id[:12],
                r.created_at.strftime("%Y-%m-%d %H:%M"),
                r.status,
                f"{r.protocol}/{r.variant}" if r.variant else r.protocol,
                (r.final_answer or "-") + {True: " ✓", False: " ✗", None: ""}[r.correct],
                f"{r.public_tokens}/{r.token_budget}" if uses_budget(r.protocol) else str(r.public_tokens),
                r.question[:120],
            ]
            for r in rows
        ]
        choices = [(f"{r.id[:8]} · {r.status} · {r.question[:60]}", r.id) for r in rows]
        ids = [r.id for r in rows]
        value = selected if selected in ids else (ids[0] if ids else None)
        return data, gr.update(choices=choices, value=value)

    def open_debate(debate_id: str | None, where: str | None = APP) -> tuple[list[Event], Any]:
        if not debate_id:
            return [], gr.skip()
        try:
            reading = library.store(where)
            events = reading.events(reading.find(debate_id))
        except KeyError as error:
            gr.Warning(str(error.args[0]) if error.args else f"no debate {debate_id!r}")
            return [], gr.skip()
        return events, _turn_slider(events[-1].turn if events else 0)

    def draw(events: list[Event], turn: float, discarded: bool, private: bool) -> list[Any]:
        last = events[-1].turn if events else 0
        upto = min(max(0, int(turn or 0)), last)
        view = DebateView.from_events([e for e in events if e.turn <= upto])
        planned = not events or any(isinstance(e, PlansMade) for e in events)  # as live: no plan panels without plans
        return [
            render.question_html(view) if events else "",
            render.budget_html(view),
            render.transcript_html(view, show_discarded=discarded, element_id="replay-transcript-box", private=private),
            render.result_html(view),
            render.rounds_html(view),
            record_html(store.classroom(view.debate_id) if events and view.debate_id else None, upto),
            *web_plugins.panel_html(view).values(),
            gr.update(value=render.plans_html(view), visible=planned),
            gr.update(value=charts.urgency_figure(view), visible=planned),
            charts.trajectory_figure(view),
        ]

    outputs = [question, budget, transcript, result, rounds, classroom, *panels, plans, urgency, trajectory]
    drawing = [loaded, position, show_discarded, show_private]
    listed = [text, status, chosen, source]
    refresh.click(listing, inputs=listed, outputs=[table, chosen])
    text.submit(listing, inputs=listed, outputs=[table, chosen])
    status.change(listing, inputs=listed, outputs=[table, chosen])
    source.change(listing, inputs=listed, outputs=[table, chosen])  # chosen here, or by the Analysis tab
    load.click(open_debate, inputs=[chosen, source], outputs=[loaded, position]).then(
        draw, inputs=drawing, outputs=outputs
    )
    position.release(draw, inputs=drawing, outputs=outputs)
    show_discarded.change(draw, inputs=drawing, outputs=outputs)
    show_private.change(draw, inputs=drawing, outputs=outputs)

    # The timer ticks only while Play is on: a tick reads the slider, and one that read a long debate's
    # turn just after a short debate set the maximum lower was refused ("Value 34 is greater than maximum").
    timer = gr.Timer(0.8, active=False)
    playing.change(play_from, inputs=[playing, loaded, position], outputs=[timer, position], show_progress="hidden")
    timer.tick(advance, inputs=[loaded, position, playing], outputs=[position, playing], show_progress="hidden")
    position.change(draw, inputs=drawing, outputs=outputs, show_progress="hidden")

    def exports(debate_id: str | None, kind: str, where: str | None = APP) -> list[str]:
        if not debate_id:
            return []
        try:
            reading = library.store(where)
        except KeyError as error:
            gr.Warning(str(error.args[0]))
            return []
        folder = Path(tempfile.mkdtemp(prefix="debate-export-"))
        if kind == "json":
            return [str(reading.export_json(debate_id, folder / safe_file_name(f"debate-{debate_id}", ".json")))]
        return [str(p) for p in reading.export_csv([debate_id], folder)]

    export_json.click(lambda d, w: exports(d, "json", w), inputs=[chosen, source], outputs=files)
    export_csv.click(lambda d, w: exports(d, "csv", w), inputs=[chosen, source], outputs=files)

    def import_file(path: str | None, words: str, state: str) -> list[Any]:
        """A transcript into the app's store (never a committed study): the list then shows the app's store."""
        if not path:
            return [gr.skip()] * 4
        try:
            imported = store.import_transcript(path)
        except TranscriptError as error:
            note = f'<span class="bad">Not imported (nothing was written): {render.escape(str(error))}</span>'
            return [note, gr.skip(), gr.skip(), gr.skip()]
        debate_id = imported.debate_id
        note = f'<span class="ok">Imported debate {render.escape(debate_id)}. Press Open to play it back.</span>'
        if imported.classroom_problem is not None:  # the debate is in; its malformed classroom part is not
            why = render.escape(imported.classroom_problem)
            note += f' <span class="bad">Its classroom record was left out: {why}</span>'
        return [note, *listing("", "any", debate_id), APP]

    upload.upload(
        import_file,
        inputs=[upload, text, status],
        outputs=[imported, table, chosen, source],
        show_progress="hidden",
    )

    def open_link(request: gr.Request) -> list[Any]:
        """At page load: the list, and, for ``?debate=ID``, this tab with that debate open."""
        asked = request.query_params.get("debate") if request is not None else None
        debate_id = None
        if asked:
            try:
                debate_id = store.find(asked)
            except KeyError:
                gr.Warning(f"no stored debate {asked[:64]!r}")
        data, choice = listing("", "any", debate_id)
        if debate_id is None:
            return [gr.skip(), data, choice, gr.skip(), gr.skip(), *[gr.skip()] * len(outputs)]
        events, slider = open_debate(debate_id)
        last = events[-1].turn if events else 0
        return [gr.Tabs(selected="replay"), data, choice, events, slider, *draw(events, last, True, False)]

    return ReplayPanel(open_link, [table, chosen, loaded, position, *outputs], source)
