"""The live tab: start a debate, watch it sentence by sentence, control it, take a seat.

What it does: lays out the transcript, budget, plans, charts and result next
to the controls (start, pause, resume, step one turn, stop, pace, audience
mode, discarded sentences) and the human seat panel, and wires them to a
``LiveSession`` kept per browser session. A timer polls the session twice a
second and redraws only when something changed. The seat panel shows the
request the engine is waiting for (an initial answer, a plan with the actions
allowed now, or an utterance) and submits through the session's channel;
refused input (empty, too long, not allowed now) is explained in the panel.

What it does not do: render HTML itself (``render``, ``charts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from debate_core.errors import HumanInputError
from debate_core.human import HumanRequest, RequestType
from ui import charts, render
from ui.session import EMBEDDED, SCRIPTED, LiveSession, backend_for
from ui.setup_panel import NO_HUMAN, FormError, SetupForm, config_from_form

MAX_HUMAN_CHARS = 2_000


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
    seat_box: Any
    seat_prompt: Any
    seat_action: Any
    seat_urgency: Any
    seat_answer: Any
    seat_text: Any
    seat_message: Any

    def outputs(self) -> list[Any]:
        return list(self.__dict__.values())


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
            with gr.Group(visible=False, elem_id="seat") as seat_box:
                seat_prompt = gr.Markdown("", elem_id="seat-prompt")
                seat_action = gr.Radio(["listen"], value="listen", label="Action", elem_id="seat-action")
                seat_urgency = gr.Slider(0, 9, value=5, step=1, label="Urgency", elem_id="seat-urgency")
                seat_answer = gr.Dropdown([], label="Your answer", allow_custom_value=True, elem_id="seat-answer")
                seat_text = gr.Textbox(
                    label="What you say (or your purpose / reason)",
                    lines=3,
                    max_length=MAX_HUMAN_CHARS + 500,
                    elem_id="seat-text",
                )
                seat_submit = gr.Button("Submit", variant="primary", elem_id="seat-submit")
                seat_message = gr.Markdown("", elem_id="seat-message")
            plans = gr.HTML(render.plans_html(_empty()), elem_id="plans")
            urgency = gr.Plot(charts.urgency_figure(_empty()), elem_id="urgency-plot")
    with gr.Row():
        trajectory = gr.Plot(charts.trajectory_figure(_empty()), elem_id="trajectory-plot")
        history = gr.Plot(charts.floor_history_figure(_empty()), elem_id="history-plot")
    panel = LivePanel(
        status,
        question,
        budget,
        transcript,
        plans,
        result,
        urgency,
        trajectory,
        history,
        seat_box,
        seat_prompt,
        seat_action,
        seat_urgency,
        seat_answer,
        seat_text,
        seat_message,
    )

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
        live = LiveSession(
            config,
            backend_for(backend_choice, config, model or ""),
            store=store,
            human=seat,
            human_timeout_s=timeout,
            pace_s=float(fields["pace"]),
        ).start()
        return live, f"Started debate `{live.debate_id[:8]}`."

    start.click(on_start, inputs=[session, *form.inputs()], outputs=[session, status])
    pause.click(lambda s: s and s.pause(), inputs=session)
    resume.click(lambda s: s and s.resume(), inputs=session)
    step.click(lambda s: s and s.step(), inputs=session)
    stop.click(lambda s: s and s.stop(), inputs=session)
    form.pace.change(lambda s, v: s and s.set_pace(v), inputs=[session, form.pace])

    timer = gr.Timer(0.5)
    timer.tick(_refresh, inputs=[session, drawn, audience, discarded], outputs=[drawn, *panel.outputs()])
    audience.change(None, inputs=audience, js="(on) => { document.body.classList.toggle('audience', on); }")
    for toggle in (audience, discarded):
        toggle.change(
            _refresh, inputs=[session, gr.State(None), audience, discarded], outputs=[drawn, *panel.outputs()]
        )
    seat_submit.click(
        _submit,
        inputs=[session, seat_action, seat_urgency, seat_answer, seat_text],
        outputs=[seat_message, seat_text],
    )


def _empty() -> Any:
    from ui.view_model import DebateView

    return DebateView()


def _request(live: LiveSession | None) -> HumanRequest | None:
    if live is None or live.channel is None or live.done:
        return None
    return live.channel.pending(timeout_s=0)


def _refresh(live: LiveSession | None, drawn: Any, audience: bool, discarded: bool) -> list[Any]:
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
    if key is not None and key == drawn:
        return [gr.skip()] * 17
    if live is None:
        return [key, *[gr.skip()] * 16]
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
    return values + _seat_updates(request, audience)


def _seat_updates(request: HumanRequest | None, audience: bool) -> list[Any]:
    if request is None:
        return [gr.update(visible=False), *[gr.skip()] * 6]
    view = request.view
    answers = list(view.question.labels) or ([view.current_answer] if view.current_answer else [])
    if request.type is RequestType.PLAN:
        holder = f"{view.floor_holder} holds the floor" if view.floor_holder else "nobody holds the floor"
        prompt = (
            f"### Turn {view.turn}: your move, {view.agent}\n{holder}; {view.tokens_left} tokens left. "
            "Choose an action and urgency (interrupt takes effect at the next turn)."
        )
        actions = [a.value for a in view.allowed]
        return [
            gr.update(visible=True),
            prompt,
            gr.update(choices=actions, value="listen", visible=True),
            gr.update(visible=True),
            gr.update(choices=answers, value=view.current_answer, visible=True),
            gr.update(label="Purpose (optional)", value=""),
            "",
        ]
    if request.type is RequestType.UTTERANCE:
        prompt = (
            f"### You have the floor, {view.agent}\nType what you say; it is disclosed one sentence per "
            "turn, and the others may interrupt you."
        )
        return [
            gr.update(visible=True),
            prompt,
            gr.update(visible=False),
            gr.update(visible=False),
            gr.update(visible=False),
            gr.update(label="What you say", value=""),
            "",
        ]
    prompt = f"### Before the debate, {view.agent}\nGive your initial answer and, if you like, a reason."
    return [
        gr.update(visible=True),
        prompt,
        gr.update(visible=False),
        gr.update(visible=False),
        gr.update(choices=answers, value=None, visible=True),
        gr.update(label="Your reason", value=""),
        "",
    ]


def _submit(live: LiveSession | None, action: str, urgency: float, answer: str | None, text: str) -> tuple[str, Any]:
    request = _request(live)
    if live is None or live.channel is None or request is None:
        return "Nothing is waiting for you right now.", gr.skip()
    try:
        if request.type is RequestType.PLAN:
            live.channel.submit_plan(
                request.request_id, action=action, urgency=int(urgency), answer=answer, purpose=text or ""
            )
            return f"Sent: **{action}** with urgency {int(urgency)}.", ""
        if request.type is RequestType.UTTERANCE:
            live.channel.submit_utterance(request.request_id, text or "")
            return "Said. Your sentences are disclosed one per turn.", ""
        if not answer:
            return "Choose an answer first.", gr.skip()
        live.channel.submit_initial(request.request_id, answer, text or "")
        return "Initial answer sent.", ""
    except HumanInputError as error:
        return f"**Not sent:** {error}", gr.skip()
