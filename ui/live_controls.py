"""The one generic widget that draws a registered set of live controls (``web_plugins.LiveControls``).

What it does: ``control_group(spec, first)`` lays out, hidden until the seated
person's page shows it, the set's always-visible answer, urgency slider,
text box, buttons and message, as its spec declares (``firsts`` says which
set keeps the page's ``seat-answer`` / ``seat-urgency`` element ids), and
returns them as a ``ControlGroup`` for ``live_panel`` to wire.

What it does not do: wire the buttons to the session (``live_panel`` does,
each through the owner-token check) or know any protocol's controls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from ui import web_plugins
from ui.session import MAX_URGENCY
from ui.setup_panel import BROWSER_MAX_CHARS


@dataclass
class ControlGroup:
    """One registered live-control set as drawn: its box and the components its spec declares."""

    spec: web_plugins.LiveControls
    box: Any
    buttons: list[Any]
    answer: Any = None
    urgency: Any = None
    text: Any = None
    message: Any = None


def firsts(specs: tuple[web_plugins.LiveControls, ...]) -> list[tuple[bool, web_plugins.LiveControls]]:
    """Each set, and whether it is the first to show an answer or a slider (which keep the page's element ids)."""
    answered = slid = False
    found = []
    for spec in specs:
        found.append((not (spec.answer and answered) and not (spec.urgency and slid), spec))
        answered, slid = answered or spec.answer, slid or spec.urgency
    return found


def control_group(spec: web_plugins.LiveControls, first: bool) -> ControlGroup:
    """The one generic widget: a set's answer, urgency slider, text box, buttons and message, hidden until its
    seated person's page shows it (``live_stream``)."""
    prefix = "seat" if first else spec.name
    with gr.Column(visible=False, elem_id=f"{spec.name}-controls") as box:
        answer = urgency = text = message = None
        if spec.answer:
            answer = gr.Radio([], label="Your answer (always yours to change)", elem_id=f"{prefix}-answer")
        if spec.urgency:
            urgency = gr.Slider(
                0, MAX_URGENCY, value=MAX_URGENCY, step=1, label="Urgency when you ask for the floor",
                elem_id=f"{prefix}-urgency",
            )  # fmt: skip
        if spec.text is not None:
            text = gr.Textbox(label=spec.text.label, max_length=BROWSER_MAX_CHARS, elem_id=spec.text.elem_id)
        with gr.Row():
            buttons = [
                gr.Button(p.label, variant=p.variant, elem_id=p.elem_id, min_width=p.min_width, scale=p.scale)  # type: ignore[arg-type]
                for p in spec.buttons
            ]
        if spec.text is not None:
            message = gr.HTML("", elem_id=spec.text.message_id or f"{spec.name}-message")
    return ControlGroup(spec, box, buttons, answer, urgency, text, message)
