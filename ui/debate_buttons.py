"""The top of the live tab: the debate's buttons, the status line and the notice under them.

What it does: ``build_buttons()`` lays out Start, Demo debate, Pause, Resume,
Step one turn and Stop in a row (and the host password, when the server
has one), then the status line and the notice (what
Start and Demo answer: a refusal, a question). ``app`` puts them above the
set-up form, so that Start and Demo debate are in view on a first visit
(the open form is taller than a laptop's screen, and on a phone it is
three screens long) and what they answer shows beside them.

What it does not do: wire the buttons (``live_panel`` does) or word the
status of a running debate (``live_stream``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from ui import render

READY = "Set up a debate below and press Start, or press Demo debate."


@dataclass
class DebateButtons:
    """The debate's buttons with the status line and the notice under them: the top of the live tab."""

    start: Any
    demo: Any
    pause: Any
    resume: Any
    step: Any
    stop: Any
    status: Any
    notice: Any
    password: Any  # the host password, shown when the server has one (``ui.classroom.HostGate``)


def build_buttons(*, password: bool = False) -> DebateButtons:
    """Start, Demo debate, Pause, Resume, Step one turn and Stop in a row (with the host password box when
    ``password``: the server has one), the status line and the notice.

    ``app`` lays them out above the set-up form, so that Start and Demo debate are in view on a first visit
    (the open form is taller than a laptop's screen), and what they answer with them."""
    with gr.Row(elem_id="live-controls"):
        start = gr.Button("Start debate", variant="primary", elem_id="start", min_width=120)
        demo = gr.Button("Demo debate", elem_id="demo", min_width=120)
        pause = gr.Button("Pause", elem_id="pause", interactive=False, min_width=80)
        resume = gr.Button("Resume", elem_id="resume", interactive=False, min_width=80)
        step = gr.Button("Step one turn", elem_id="step", interactive=False, min_width=100)
        stop = gr.Button("Stop", variant="stop", elem_id="stop", interactive=False, min_width=80)
        host_password = gr.Textbox(
            label="Host password", type="password", max_lines=1, max_length=1_000, visible=password,
            elem_id="host-password",
        )  # fmt: skip
    status = gr.HTML(render.status_html(READY), elem_id="status")
    notice = gr.HTML("", elem_id="notice")  # what Start and Demo say (a refusal, a question): not overwritten
    return DebateButtons(start, demo, pause, resume, step, stop, status, notice, host_password)
