"""The live tab: start a debate, watch it sentence by sentence, control it, take a seat.

What it does: lays out the transcript, budget, plans, charts and result next
to the controls (start, pause, resume, step one turn, stop, pace, audience
mode, discarded sentences) and the human seat panel, and wires them to a
``LiveSession`` kept per browser session. A timer polls the session twice a
second and redraws only when something changed. The seat panel
(``seat_form``) shows whatever request the debate is waiting for, drawn from
its fields (for Kimura's protocol: an initial answer, a plan with the actions
allowed now, or an utterance), and submits through the session's channel;
refused input (empty, too long, not allowed now) is explained in the panel.

What it does not do: render HTML itself (``render``, ``charts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from debate_core.errors import ConfigError, HumanInputError
from debate_core.kernel.human import HumanRequest
from ui import charts, render, seat_form
from ui.seat_form import SeatForm, build_seat_form
from ui.session import EMBEDDED, SCRIPTED, LiveSession, backend_for
from ui.setup_panel import NO_HUMAN, FormError, SetupForm, config_from_form


@dataclass
class LivePanel:
    status: Any
    question: Any
    budget: Any
    transcript: Any
    plans: Any
    result: Any
    urgency: Any
    trajectory: Any
    history: Any
    seat: SeatForm

    def views(self) -> list[Any]:
        """The components drawn from the debate's view (everything but the seat)."""
        return [value for name, value in self.__dict__.items() if name != "seat"]

    def outputs(self) -> list[Any]:
        return [*self.views(), *self.seat.outputs()]


def build_live(form: SetupForm, store: Any) -> None:
    session = gr.State(None)
    drawn = gr.State(None)
    with gr.Row():
        start = gr.Button("Start debate", variant="primary", elem_id="start")
        pause = gr.Button("Pause", elem_id="pause")
        resume = gr.Button("Resume", elem_id="resume")
        step = gr.Button("Step one turn", elem_id="step")
        stop = gr.Button("Stop", variant="stop", elem_id="stop")
    with gr.Row():
        audience = gr.Checkbox(label="Audience mode (large text, no private thoughts)", elem_id="audience")
        discarded = gr.Checkbox(label="Show discarded sentences", elem_id="show-discarded")
    status = gr.Markdown("Set up a debate above and press **Start debate**.", elem_id="status")
    with gr.Row():
        with gr.Column(scale=3):
            question = gr.HTML(render.question_html(_empty()), elem_id="question")
            budget = gr.HTML(render.budget_html(_empty()), elem_id="budget")
            transcript = gr.HTML(render.transcript_html(_empty()), elem_id="transcript-panel")
            result = gr.HTML("", elem_id="result")
        with gr.Column(scale=2):
            seat = build_seat_form()
            plans = gr.HTML(render.plans_html(_empty()), elem_id="plans")
            urgency = gr.Plot(charts.urgency_figure(_empty()), elem_id="urgency-plot")
    with gr.Row():
        trajectory = gr.Plot(charts.trajectory_figure(_empty()), elem_id="trajectory-plot")
        history = gr.Plot(charts.floor_history_figure(_empty()), elem_id="history-plot")
    panel = LivePanel(status, question, budget, transcript, plans, result, urgency, trajectory, history, seat)

    def on_start(current: LiveSession | None, *values: Any) -> tuple[Any, str]:
        fields = dict(zip(form.names(), values, strict=True))
        if current is not None and not current.done:
            current.stop()
        try:
            config = config_from_form(fields)
        except FormError as error:
            return current, f"**Cannot start:** {error}"
        backend_choice, model, human = fields["backend"], fields["model"], fields["human"]
        if backend_choice not in (SCRIPTED, EMBEDDED) and not (model or "").strip():
            return current, "**Cannot start:** type a model id or a local path, or choose another model."
        seat = None if human == NO_HUMAN else human
        timed = seat and fields["human_pacing"] == "advance on a timer"
        timeout = float(fields["human_seconds"]) if timed else None
        try:
            live = LiveSession(
                config,
                backend_for(backend_choice, config, model or ""),
                store=store,
                human=seat,
                human_timeout_s=timeout,
                pace_s=float(fields["pace"]),
            ).start()
        except ConfigError as error:
            return current, f"**Cannot start:** {error}"
        return live, f"Started debate `{live.debate_id[:8]}`."

    start.click(on_start, inputs=[session, *form.inputs()], outputs=[session, status])
    pause.click(lambda s: s and s.pause(), inputs=session)
    resume.click(lambda s: s and s.resume(), inputs=session)
    step.click(lambda s: s and s.step(), inputs=session)
    stop.click(lambda s: s and s.stop(), inputs=session)
    form.pace.change(lambda s, v: s and s.set_pace(v), inputs=[session, form.pace])

    def refresh(live: LiveSession | None, drawn: Any, audience: bool, discarded: bool) -> list[Any]:
        return _refresh(panel, live, drawn, audience, discarded)

    def submit(live: LiveSession | None, *slots: Any) -> str:
        return _submit(live, list(slots))

    timer = gr.Timer(0.5)
    timer.tick(refresh, inputs=[session, drawn, audience, discarded], outputs=[drawn, *panel.outputs()])
    audience.change(None, inputs=audience, js="(on) => { document.body.classList.toggle('audience', on); }")
    for toggle in (audience, discarded):
        toggle.change(refresh, inputs=[session, gr.State(None), audience, discarded], outputs=[drawn, *panel.outputs()])
    seat.submit.click(submit, inputs=[session, *seat.inputs()], outputs=seat.message)


def _empty() -> Any:
    from ui.view_model import DebateView

    return DebateView()


def _request(live: LiveSession | None) -> HumanRequest | None:
    if live is None or live.channel is None or live.done:
        return None
    return live.channel.pending(timeout_s=0)


def _refresh(panel: LivePanel, live: LiveSession | None, drawn: Any, audience: bool, discarded: bool) -> list[Any]:
    request = _request(live)
    key = None
    if live is not None:
        key = (
            live.debate_id,
            live.view.events,
            live.status,
            audience,
            discarded,
            request.request_id if request else None,
        )
    skip_all = [gr.skip()] * len(panel.outputs())
    if key is not None and key == drawn:
        return [gr.skip(), *skip_all]
    if live is None:
        return [key, *skip_all]
    with live.lock:
        view = live.view
        status = f"**{live.status}** · debate `{live.debate_id[:8]}`"
        if live.error:
            status += f" · error: {live.error}"
        values = [
            key,
            status,
            render.question_html(view),
            render.budget_html(view),
            render.transcript_html(view, show_discarded=discarded),
            render.plans_html(view, audience=audience),
            render.result_html(view),
            charts.urgency_figure(view),
            charts.trajectory_figure(view),
            charts.floor_history_figure(view),
        ]
    seat = seat_form.updates(request, panel.seat)
    if request is not None and drawn is not None and len(drawn) > 5 and drawn[5] == request.request_id:
        seat = [gr.skip()] * len(seat)  # the same request: keep what the person is typing
    return values + seat


def _submit(live: LiveSession | None, slots: list[Any]) -> str:
    request = _request(live)
    if live is None or live.channel is None or request is None:
        return "Nothing is waiting for you right now."
    try:
        live.channel.submit(request.request_id, seat_form.values(request, slots))
    except (HumanInputError, ValueError) as error:
        return f"**Not sent:** {error}"
    return f"Sent your {request.kind.replace('_', ' ')}."
