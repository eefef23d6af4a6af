"""The replay tab: find a stored debate, play it back turn by turn, export it.

What it does: lists stored debates (filter by question text and status; a
debate still being recorded elsewhere shows as running), loads one, and shows
it at any point of its history with a slider over turns and a play / pause
timer, through the same renderers as the live view (discarded sentences and
plans included). JSON and CSV exports are offered as downloads.

What it does not do: change stored debates.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import gradio as gr

from debate_core.events import Event
from debate_core.protocols.registry import uses_budget
from debate_core.status import DebateStatus
from storage.transfer import safe_file_name
from ui import charts, render
from ui.view_model import DebateView

STATUSES = ["any", *(status.value for status in DebateStatus)]


def build_replay(store: Any) -> None:
    loaded = gr.State([])
    with gr.Row():
        text = gr.Textbox(label="Question contains", scale=3, elem_id="replay-filter")
        status = gr.Dropdown(STATUSES, value="any", label="Status", scale=1, elem_id="replay-status")
        refresh = gr.Button("Refresh list", scale=1, elem_id="replay-refresh")
    table = gr.Dataframe(
        headers=["id", "created (UTC)", "status", "protocol", "answer", "tokens", "question"],
        interactive=False,
        elem_id="replay-list",
        wrap=True,
    )
    with gr.Row():
        chosen = gr.Dropdown([], label="Debate", scale=3, elem_id="replay-choice", allow_custom_value=True)
        load = gr.Button("Open", variant="primary", scale=1, elem_id="replay-open")
    with gr.Row():
        position = gr.Slider(0, 1, value=0, step=1, label="Turn", elem_id="replay-turn", scale=4)
        playing = gr.Checkbox(label="Play", value=False, elem_id="replay-play", scale=1)
        show_discarded = gr.Checkbox(label="Show discarded sentences", value=True, scale=1)
    with gr.Row():
        with gr.Column(scale=3):
            budget = gr.HTML(elem_id="replay-budget")
            transcript = gr.HTML(elem_id="replay-transcript")
            result = gr.HTML(elem_id="replay-result")
        with gr.Column(scale=2):
            plans = gr.HTML(elem_id="replay-plans")
            urgency = gr.Plot(elem_id="replay-urgency")
    trajectory = gr.Plot(elem_id="replay-trajectory")
    with gr.Row():
        export_json = gr.Button("Export JSON", elem_id="replay-export-json")
        export_csv = gr.Button("Export CSV", elem_id="replay-export-csv")
        files = gr.File(label="Downloads", file_count="multiple", interactive=False, elem_id="replay-files")

    def listing(words: str, state: str) -> tuple[list[list[Any]], Any]:
        rows = store.list_debates(text=words or None, status=None if state == "any" else state, limit=200)
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
        return data, gr.update(choices=choices, value=choices[0][1] if choices else None)

    def open_debate(debate_id: str | None) -> tuple[list[Event], Any]:
        if not debate_id:
            return [], gr.update()
        events = store.events(debate_id)
        last_turn = events[-1].turn if events else 0
        return events, gr.update(minimum=0, maximum=max(1, last_turn), value=last_turn)

    def draw(events: list[Event], turn: float, discarded: bool) -> list[Any]:
        view = DebateView.from_events([e for e in events if e.turn <= int(turn)])
        return [
            render.budget_html(view),
            render.transcript_html(view, show_discarded=discarded),
            render.result_html(view),
            render.plans_html(view),
            charts.urgency_figure(view),
            charts.trajectory_figure(view),
        ]

    outputs = [budget, transcript, result, plans, urgency, trajectory]
    refresh.click(listing, inputs=[text, status], outputs=[table, chosen])
    text.submit(listing, inputs=[text, status], outputs=[table, chosen])
    load.click(open_debate, inputs=chosen, outputs=[loaded, position]).then(
        draw, inputs=[loaded, position, show_discarded], outputs=outputs
    )
    position.release(draw, inputs=[loaded, position, show_discarded], outputs=outputs)
    show_discarded.change(draw, inputs=[loaded, position, show_discarded], outputs=outputs)

    def advance(events: list[Event], turn: float, play: bool) -> Any:
        if not play or not events:
            return gr.skip()
        last = events[-1].turn
        return min(last, int(turn) + 1) if int(turn) < last else gr.skip()

    timer = gr.Timer(0.8)
    timer.tick(advance, inputs=[loaded, position, playing], outputs=position)
    position.change(draw, inputs=[loaded, position, show_discarded], outputs=outputs)

    def exports(debate_id: str | None, kind: str) -> list[str]:
        if not debate_id:
            return []
        folder = Path(tempfile.mkdtemp(prefix="debate-export-"))
        if kind == "json":
            return [str(store.export_json(debate_id, folder / safe_file_name(f"debate-{debate_id}", ".json")))]
        return [str(p) for p in store.export_csv([debate_id], folder)]

    export_json.click(lambda d: exports(d, "json"), inputs=chosen, outputs=files)
    export_csv.click(lambda d: exports(d, "csv"), inputs=chosen, outputs=files)
