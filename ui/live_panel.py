"""The live tab: start a debate, watch it unit by unit, control it, take a seat and interrupt.

What it does: lays out the transcript, budget, plans, charts, result and,
for a debate that answers in rounds (ACE, SID), the answers per round, and
for a debate driven by self signals (SID) the confidence gauges and what
each agent read (shown only once such events come) next to the
controls (start, demo debate, pause, resume, step one turn, stop,
pace, audience mode, discarded units) and, for a seated person, the live
controls of their role, with where their intent stands (a badge,
``seat_state``): for a debater with plans (``floor``) an always-visible
answer, an urgency, **Interrupt** (key ``i``), **Raise hand** (key ``h``)
and **Just listen** (key ``l``); for a critic (``point``) a point in one
sentence and **Point of information** (key ``p`` focuses it); for a
moderator (``interrupt``) a large **Interrupt** (key ``i``) that cuts the
speaker off at the next chunk, and **Just listen** (key ``l``). Only when
the debate needs the person's words (their initial answer, their utterance
once they hold the floor, a vote), the form for them (``seat_form``) opens,
with a countdown when a timeout applies. Updates are pushed (``live_stream``):
each disclosure reaches the page as soon as the engine makes it.

Starting folds the set-up away; starting while a debate runs asks for a
second press; a page that is reloaded re-attaches to its debate (``?live=``
in the address), and a page that goes away lets its debate stop after a
grace period.

What it does not do: render HTML itself (``render``, ``charts``) or run the
debate (``session``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import gradio as gr

from debate_core.errors import BackendError, ConfigError, HumanInputError
from debate_core.protocols.kimura.demo import demo_config
from ui import charts, render, seat_form
from ui.live_stream import TRANSCRIPT_JS, LiveView, redraw_ended, stream
from ui.seat_form import build_seat_form
from ui.session import DEFAULT_GRACE_S, EMBEDDED, EMBEDDED_LLAMACPP, SCRIPTED, SERVER, LiveSession, backend_for, find
from ui.setup_panel import BROWSER_MAX_CHARS, NO_HUMAN, FormError, SetupForm, config_from_form

CONFIRM_S = 10.0
# Run once when the page loads: keyboard shortcuts for the live controls (unless the person is typing),
# and the address follows the live debate (?live=ID, so a reload re-attaches to it).
PAGE_JS = """
() => {
  if (window.__debateKeys) return;
  window.__debateKeys = true;
  new MutationObserver(() => {
    const shown = document.querySelector('#status .status[data-debate]');
    const id = shown && shown.dataset.debate;
    if (id && new URLSearchParams(location.search).get('live') !== id) {
      history.replaceState(null, '', '?live=' + encodeURIComponent(id));
    }
  }).observe(document.body, {subtree: true, childList: true});
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
    const box = document.querySelector('#point-text textarea, #point-text input');
    if (event.key.toLowerCase() === 'p' && box && box.offsetParent !== null) {
      event.preventDefault(); box.focus(); return;  // type the point, then Enter raises it
    }
    const ids = {i: ['interrupt', 'interrupt-now'], h: ['raise-hand'], l: ['lower-hand', 'interrupt-withdraw']};
    const button = (ids[event.key.toLowerCase()] || []).map((id) => document.getElementById(id))
      .find((found) => found && found.offsetParent !== null);
    if (button) { event.preventDefault(); button.click(); }
  });
}
"""
FOCUS_WORDS_JS = "() => { setTimeout(() => document.querySelector('#seat-text-0 textarea')?.focus(), 50); }"


def _empty() -> Any:
    from ui.view_model import DebateView

    return DebateView()


def _page_gone(live: LiveSession | None) -> None:
    if live is not None:
        live.detach()


def _toggle(name: str, live: LiveSession | None, on: bool) -> list[Any]:
    """Apply a display toggle; once the debate has ended, redraw what it changes."""
    if live is None:
        return [gr.skip(), gr.skip()]
    live.set_display(**{name: on})
    return redraw_ended(live)


def build_live(form: SetupForm, setup_box: Any, store: Any, *, grace_s: float = DEFAULT_GRACE_S) -> LivePanel:
    """The live tab (under the set-up accordion ``setup_box``, which folds away on Start)."""
    # Gradio deletes a page's state when the page is gone (closed tab, lost connection): detach then.
    session = gr.State(None, delete_callback=_page_gone)
    confirm = gr.State(0.0)
    with gr.Row(elem_id="live-controls"):
        start = gr.Button("Start debate", variant="primary", elem_id="start", min_width=120)
        demo = gr.Button("Demo debate", elem_id="demo", min_width=120)
        pause = gr.Button("Pause", elem_id="pause", interactive=False, min_width=80)
        resume = gr.Button("Resume", elem_id="resume", interactive=False, min_width=80)
        step = gr.Button("Step one turn", elem_id="step", interactive=False, min_width=100)
        stop = gr.Button("Stop", variant="stop", elem_id="stop", interactive=False, min_width=80)
    with gr.Row():
        audience = gr.Checkbox(label="Audience mode (large text, no private thoughts)", elem_id="audience")
        discarded = gr.Checkbox(label="Show discarded units", elem_id="show-discarded")
    status = gr.HTML(
        render.status_html("Set up a debate above and press Start, or press Demo debate."), elem_id="status"
    )
    notice = gr.HTML("", elem_id="notice")  # what Start and Demo say (a refusal, a question): not overwritten
    with gr.Row(elem_id="live-main"):
        with gr.Column(scale=3, min_width=320):
            question = gr.HTML(render.question_html(_empty()), elem_id="question")
            budget = gr.HTML(render.budget_html(_empty()), elem_id="budget")
            gr.HTML(render.transcript_html(_empty()), elem_id="transcript-panel")
            delta = gr.JSON(None, visible="hidden", elem_id="transcript-delta", elem_classes=["delta"])
            result = gr.HTML("", elem_id="result")
        with gr.Column(scale=2, min_width=300):
            with gr.Group(visible=False, elem_id="live-seat") as controls:
                seat_state = gr.HTML("", elem_id="seat-state")
                with gr.Column(visible=False, elem_id="floor-controls") as floor_controls:
                    answer = gr.Radio([], label="Your answer (always yours to change)", elem_id="seat-answer")
                    urgency = gr.Slider(
                        0, 9, value=9, step=1, label="Urgency when you ask for the floor", elem_id="seat-urgency"
                    )
                    with gr.Row():
                        interrupt = gr.Button("Interrupt (i)", variant="stop", elem_id="interrupt", min_width=120)
                        raise_hand = gr.Button("Raise hand (h)", elem_id="raise-hand", min_width=100)
                        lower_hand = gr.Button("Just listen (l)", elem_id="lower-hand", min_width=100)
                with gr.Column(visible=False, elem_id="point-controls") as point_controls:
                    point_text = gr.Textbox(
                        label="Your point, in one sentence", max_length=BROWSER_MAX_CHARS, elem_id="point-text"
                    )
                    with gr.Row():
                        point = gr.Button("Point of information (p)", variant="stop", elem_id="point", min_width=160)
                        withdraw = gr.Button("Withdraw", elem_id="point-withdraw", min_width=100)
                    point_message = gr.HTML("", elem_id="point-message")
                # a moderator's one control between votes: cut the speaker off at the next chunk
                with gr.Row(visible=False, elem_id="interrupt-controls") as interrupt_controls:
                    cut = gr.Button("Interrupt (i)", variant="stop", elem_id="interrupt-now", min_width=160, scale=3)
                    uncut = gr.Button("Just listen (l)", elem_id="interrupt-withdraw", min_width=100, scale=1)
            countdown = gr.HTML("", elem_id="countdown")
            words = build_seat_form()
            rounds = gr.HTML("", elem_id="rounds")
            confidence = gr.HTML("", elem_id="confidence")
            reading = gr.HTML("", elem_id="reading")
            with gr.Column(elem_id="plan-panels") as plan_panels:
                plans = gr.HTML(render.plans_html(_empty()), elem_id="plans")
                urgency_plot = gr.Plot(charts.urgency_figure(_empty()), elem_id="urgency-plot")
    with gr.Row(elem_id="live-plots"):
        trajectory = gr.Plot(charts.trajectory_figure(_empty()), elem_id="trajectory-plot")
        with gr.Column(elem_id="history-box") as history_box:
            history = gr.Plot(charts.floor_history_figure(_empty()), elem_id="history-plot")
    view = LiveView(
        status, question, budget, delta, plans, result, rounds, confidence, reading,
        urgency_plot, trajectory, history,
        controls, floor_controls, point_controls, interrupt_controls, seat_state, answer, countdown, words,
        pause, resume, step, stop, (plan_panels, history_box),
    )  # fmt: skip

    def launch(current: LiveSession | None, armed: float, make: Any) -> tuple[Any, float, str, Any]:
        running = current is not None and not current.done
        if running and not time.monotonic() < armed:
            note = "A debate is running. Press again within 10 s to stop it and start a new one."
            return current, time.monotonic() + CONFIRM_S, _notice(note), gr.skip()
        try:
            live = make()
        except (FormError, ConfigError, BackendError) as error:  # BackendError: a server that does not answer
            return current, 0.0, _notice(f"Cannot start: {error}", bad=True), gr.skip()
        if current is not None and running:
            current.stop()
        return live, 0.0, "", gr.update(open=False)

    def on_start(current: LiveSession | None, armed: float, *values: Any) -> tuple[Any, ...]:
        def make() -> LiveSession:
            fields = dict(zip(form.names(), values, strict=True))
            config = config_from_form(fields)
            backend_choice, model, human = fields["backend"], fields["model"], fields["human"]
            if backend_choice == SERVER and not (model or "").strip():
                raise FormError("type the server's address and model name, e.g. http://127.0.0.1:8000/v1 llama-8b")
            if backend_choice not in (SCRIPTED, EMBEDDED, EMBEDDED_LLAMACPP) and not (model or "").strip():
                raise FormError("type a model id or a local path, or choose another model")
            seat = None if human == NO_HUMAN else human
            timed = seat and fields["human_pacing"] == "advance on a timer"
            return LiveSession(
                config,
                backend_for(backend_choice, config, model or ""),
                store=store,
                human=seat,
                human_timeout_s=float(fields["human_seconds"]) if timed else None,
                pace_s=float(fields["pace"]),
                grace_s=grace_s,
            ).start()

        return launch(current, armed, make)

    def on_demo(current: LiveSession | None, armed: float) -> tuple[Any, ...]:
        def make() -> LiveSession:
            config = demo_config(seed=int(time.time()) % 1000)
            backend = backend_for(SCRIPTED, config)
            return LiveSession(config, backend, store=store, pace_s=1.0, grace_s=grace_s).start()

        return launch(current, armed, make)

    def watch(live: LiveSession | None) -> Any:
        yield from stream(live, view)

    launched = [session, confirm, notice, setup_box]
    for button, handler, inputs in (
        (start, on_start, [session, confirm, *form.inputs()]),
        (demo, on_demo, [session, confirm]),
    ):
        button.click(handler, inputs=inputs, outputs=launched)
    # Every new session gets its own stream, started once the session exists.
    session.change(watch, inputs=session, outputs=view.outputs(), concurrency_limit=None, show_progress="hidden")
    pause.click(lambda s: s and s.pause(), inputs=session)
    resume.click(lambda s: s and s.resume(), inputs=session)
    step.click(lambda s: s and s.step(), inputs=session)
    stop.click(lambda s: s and s.stop(), inputs=session)
    form.pace.change(lambda s, v: s and s.set_pace(v), inputs=[session, form.pace])
    audience.change(None, inputs=audience, js="(on) => { document.body.classList.toggle('audience', on); }")
    for toggle, name in ((audience, "audience"), (discarded, "discarded")):
        toggle.change(functools.partial(_toggle, name), inputs=[session, toggle], outputs=[view.delta, view.plans])
    delta.change(None, inputs=delta, js=TRANSCRIPT_JS)
    interrupt.click(lambda s, u: s and s.interrupt(int(u)), inputs=[session, urgency])
    raise_hand.click(lambda s, u: s and s.raise_hand(int(u)), inputs=[session, urgency])
    lower_hand.click(lambda s: s and s.lower_hand(), inputs=session)
    withdraw.click(lambda s: s and s.lower_hand(), inputs=session)
    cut.click(lambda s: s and s.interrupt(), inputs=session)
    uncut.click(lambda s: s and s.lower_hand(), inputs=session)

    def raise_point(live: LiveSession | None, text: str) -> list[Any]:
        refused = live.point(text) if live is not None else "No debate is running."
        if refused:
            return [gr.skip(), _notice(refused, bad=True)]
        return ["", ""]

    for trigger in (point.click, point_text.submit):
        trigger(raise_point, inputs=[session, point_text], outputs=[point_text, point_message])
    answer.change(lambda s, a: s and s.choose_answer(a), inputs=[session, answer])
    words.prompt.change(None, js=FOCUS_WORDS_JS)

    def submit(live: LiveSession | None, *slots: Any) -> str:
        request = live.channel.pending(timeout_s=0) if live is not None and live.channel is not None else None
        if live is None or live.channel is None or request is None:
            return '<span class="muted">Nothing is waiting for you right now.</span>'
        try:
            live.channel.submit(request.request_id, seat_form.values(request, list(slots)))
        except (HumanInputError, ValueError) as error:
            return f'<span class="bad">Not sent: {render.escape(str(error))}</span>'
        return f'<span class="ok">Sent your {render.escape(request.kind.replace("_", " "))}.</span>'

    words.submit.click(submit, inputs=[session, *words.inputs()], outputs=words.message)

    def reattach(request: gr.Request) -> tuple[Any, Any]:
        """A reloaded page (``?live=ID``) watches its debate again, if it is still here."""
        debate_id = request.query_params.get("live") if request is not None else None
        live = find(debate_id) if debate_id else None
        if live is None:
            return gr.skip(), gr.skip()
        return live, gr.update(open=False)

    return LivePanel(session, reattach, [session, setup_box])


def _notice(text: str, *, bad: bool = False) -> str:
    return f'<div class="notice{" bad" if bad else ""}" role="alert">{render.escape(text)}</div>'


@dataclass
class LivePanel:
    """What ``app`` wires at page load: re-attaching a reloaded page to its debate."""

    session: Any
    reattach: Any
    reattach_outputs: list[Any]
