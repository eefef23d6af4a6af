"""The live tab: start a debate, watch it unit by unit, control it, take a seat and interrupt.

What it does: lays out the transcript, budget, plans, charts, result, the
answers per round for a debate that answers in rounds, and one component
per side panel the protocols' web plugins registered (``web_plugins.panels``:
SID's confidence gauges and what each agent read; blank for a debate of
another protocol) next to the controls (start, demo debate, pause, resume,
step one turn, stop: ``debate_buttons``, which ``app`` lays out above the
set-up; pace, audience mode, discarded units) and, for a seated
person, the live controls of their role, with where their intent stands (a
badge, ``seat_state``). The live controls are declared by the protocols
(``web_plugins.LiveControls``: Kimura's debater, Parliament's critic,
HandRaiser's moderator) and drawn by one generic widget (``live_controls.control_group``):
the always-visible answer, the urgency slider, the text box and the buttons
each set declares, with their keys (``page_scripts.page_js``). Only when
the debate needs the person's words (their initial answer, their utterance
once they hold the floor, a vote), the form for them (``seat_form``) opens,
with a countdown when a timeout applies; the page's script scrolls it into
view and focuses its first field. Updates are pushed (``live_stream``):
each disclosure reaches the page as soon as the engine makes it.

Start builds the backend from the set-up's Model choice and its models per
role (``backend_choice.page_models``: refused with a line that says why).
Starting folds the set-up away; starting while a debate runs asks for a
second press; a page that is reloaded re-attaches to its debate (``?live=``
in the address), and a page that goes away lets its debate stop after a
grace period.

Who may act (``page_access``; the handlers are ``live_handlers``): starting a debate puts its secret token in
this browser's storage (``gr.BrowserState``, never in the address); every
control's handler receives the token the request brought and acts only when
it is the debate's (``guard``), else it answers with a refusal and changes
nothing. Gradio's handlers are HTTP endpoints anyone can call, so the page's
hiding of controls is a courtesy, the check on the server is the rule. A page
that opens ``?live=ID`` without the token watches: the debate, no controls.

Every debate started here is a classroom (``classroom_live``,
``classroom_panel``): its starter is the host (their token is the debate's
owner token), every seat may be opened to people, and a page opened with the
join link (``?join=CODE``) may take an open seat or join the audience. A
seat's live controls and form act on the seat the request's own token holds
(``page_access.guard_seat``). With a host password (``gate``), Start and Demo
need it.

What it does not do: render HTML itself (``render``, ``charts``) or run the
debate (``session``).
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any

import gradio as gr

from debate_core.errors import BackendError, ConfigError
from ui import charts, render, web_plugins
from ui.backend_choice import model_box, page_models
from ui.classroom import ROOMS, HostGate
from ui.classroom_live import open_classroom
from ui.classroom_panel import build_classroom
from ui.debate_buttons import DebateButtons, build_buttons
from ui.form_words import FormError
from ui.live_controls import ControlGroup, control_group, firsts
from ui.live_handlers import CONTROLS, control, raise_point, submit_words
from ui.live_handlers import notice_html as _notice
from ui.live_stream import LiveView, redraw_ended, status_line, stream
from ui.page_access import Page, open_page, remember, token_for
from ui.page_outbox import outbox_of
from ui.page_scripts import TRANSCRIPT_JS
from ui.seat_form import build_seat_form
from ui.session import (
    DEFAULT_GRACE_S,
    EMBEDDED,
    EMBEDDED_LLAMACPP,
    SCRIPTED,
    SERVER,
    LiveSession,
    backend_for,
    find,
)
from ui.setup_config import config_from_form
from ui.setup_panel import NO_HUMAN, SetupForm

CONFIRM_S = 10.0
TOKENS_KEY = "debate-control-tokens"  # where this browser keeps the tokens of the debates it started


def _empty() -> Any:
    from ui.view_model import DebateView

    return DebateView()


def _page_gone(page: Page | None) -> None:
    if page is not None:
        page.close()


def _toggle(name: str, page: Page | None, on: bool) -> list[Any]:
    """Apply a display toggle to this page alone; once the debate has ended, redraw what it changes."""
    if page is None:
        return [gr.skip(), gr.skip()]
    setattr(page, name, bool(on))
    page.live.nudge()  # the page's stream redraws with it
    return redraw_ended(page)


def reattach_page(debate_id: str | None, tokens: Any) -> Page | None:
    """The page a reloaded (or shared) address ``?live=ID`` opens: with the controls when this browser holds the
    debate's token, else watching; None when the debate is not here."""
    live = find(debate_id) if debate_id else None
    return open_page(live, tokens) if live is not None else None


def build_live(
    form: SetupForm,
    setup_box: Any,
    store: Any,
    buttons: DebateButtons | None = None,
    *,
    grace_s: float = DEFAULT_GRACE_S,
    gate: HostGate | None = None,
) -> LivePanel:
    """The live tab under the set-up accordion ``setup_box``, which folds away on Start; ``buttons``: the
    debate's buttons laid out already (``build_buttons``; None: laid out here, under the set-up). ``gate``: the
    server's host password (only who types it may start a debate; none: anyone may)."""
    gate = gate if gate is not None else HostGate(None)
    # A page that is gone lets go of its debate when its stream sees it (``page_outbox``); Gradio deletes its state,
    # which detaches it too, an hour later (a page that moved on has let go already: that is harmless).
    session = gr.State(None, delete_callback=_page_gone)  # this page's ``Page``: its debate, kept on the server
    tokens = gr.BrowserState({}, storage_key=TOKENS_KEY)  # this browser's tokens: sent with every control
    confirm = gr.State(0.0)
    top = buttons if buttons is not None else build_buttons(password=gate.required)
    start, demo, pause, resume, step, stop = top.start, top.demo, top.pause, top.resume, top.step, top.stop
    status, notice, password = top.status, top.notice, top.password
    with gr.Row():
        audience = gr.Checkbox(label="Audience mode (large text, no private thoughts)", elem_id="audience")
        discarded = gr.Checkbox(label="Show discarded units", elem_id="show-discarded")
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
                groups = [control_group(spec, first) for first, spec in firsts(web_plugins.live_controls())]
            countdown = gr.HTML("", elem_id="countdown")
            words = build_seat_form()
            rounds = gr.HTML("", elem_id="rounds")
            build_classroom(session, tokens)  # the poll's tally beside the answers; joining; the host's roster
            panels = {panel.name: gr.HTML("", elem_id=panel.name) for panel in web_plugins.panels()}
            with gr.Column(elem_id="plan-panels") as plan_panels:
                plans = gr.HTML(render.plans_html(_empty()), elem_id="plans")
                urgency_plot = gr.Plot(charts.urgency_figure(_empty()), elem_id="urgency-plot", show_label=False)
    with gr.Row(elem_id="live-plots"):
        trajectory = gr.Plot(charts.trajectory_figure(_empty()), elem_id="trajectory-plot", show_label=False)
        with gr.Column(elem_id="history-box") as history_box:
            history = gr.Plot(charts.floor_history_figure(_empty()), elem_id="history-plot", show_label=False)
    view = LiveView(
        status, question, budget, delta, plans, result, rounds,
        urgency_plot, trajectory, history,
        controls, seat_state, countdown, words,
        pause, resume, step, stop, (plan_panels, history_box),
        panels=panels,
        groups={group.spec.name: group.box for group in groups},
        answers=tuple(group.answer for group in groups if group.answer is not None),
    )  # fmt: skip

    def launch(current: Page | None, armed: float, held: Any, make: Any, given: Any = None) -> tuple[Any, ...]:
        if not gate.allows(given):
            note = "Starting a debate on this server needs the host password."
            return current, 0.0, _notice(note, bad=True), gr.skip(), gr.skip(), gr.skip()
        # only a debate this browser started is stopped for the new one (a watched one runs on)
        mine = current is not None and current.live.owned_by(token_for(held, current.live.debate_id))
        running = mine and current is not None and not current.live.done
        if running and not time.monotonic() < armed:
            note = "A debate is running. Press again within 10 s to stop it and start a new one."
            return current, time.monotonic() + CONFIRM_S, _notice(note), gr.skip(), gr.skip(), gr.skip()
        try:
            live = make()
        except (FormError, ConfigError, BackendError) as error:  # BackendError: a server that does not answer
            return current, 0.0, _notice(f"Cannot start: {error}", bad=True), gr.skip(), gr.skip(), gr.skip()
        open_classroom(live, store, grace_s=grace_s)  # the starter is its host: their token holds the controls
        live.start()
        if current is not None:
            if running:
                current.live.stop()
            current.close()  # its stream ends: this page shows the new debate
        held = remember(held, live)
        # the status comes with Start's own answer: what the debate does first (a model loading, a server starting)
        # shows at once, however late the page's stream attaches on a busy server
        return open_page(live, held), 0.0, "", gr.update(open=False), held, status_line(live)

    def on_start(current: Page | None, armed: float, held: Any, given: Any, *values: Any) -> tuple[Any, ...]:
        def make() -> LiveSession:
            fields = dict(zip(form.names(), values, strict=True))
            config = config_from_form(fields)
            backend_choice, model, human = fields["backend"], model_box(fields["model"]), fields["human"]
            if backend_choice == SERVER and not (model or "").strip():
                raise FormError("type the server's address and model name, e.g. http://127.0.0.1:8000/v1 llama-8b")
            if backend_choice not in (SCRIPTED, EMBEDDED, EMBEDDED_LLAMACPP) and not (model or "").strip():
                raise FormError("type a model id or a local path, or choose another model")
            seat = None if human == NO_HUMAN else human
            timed = seat and fields["human_pacing"] == "advance on a timer"
            models = page_models(fields.get("models") or "", backend_choice, config)  # checked before any is made
            return LiveSession(
                config,
                backend_for(backend_choice, config, model or "", models),
                store=store,
                human=seat,
                human_timeout_s=float(fields["human_seconds"]) if timed else None,
                pace_s=float(fields["pace"]),
                grace_s=grace_s,
                shared=config.agent_names,  # every seat may be opened to people (a classroom)
            )

        return launch(current, armed, held, make, given)

    def on_demo(current: Page | None, armed: float, held: Any, given: Any) -> tuple[Any, ...]:
        def make() -> LiveSession:
            config = web_plugins.demo_config(seed=int(time.time()) % 1000)
            backend = backend_for(SCRIPTED, config)
            return LiveSession(config, backend, store=store, pace_s=1.0, grace_s=grace_s, shared=config.agent_names)

        return launch(current, armed, held, make, given)

    async def watch(page: Page | None, request: gr.Request) -> Any:
        async for update in stream(page, view, outbox_of(request)):
            yield update

    launched = [session, confirm, notice, setup_box, tokens, status]
    for button, handler, inputs in (
        (start, on_start, [session, confirm, tokens, password, *form.inputs()]),
        (demo, on_demo, [session, confirm, tokens, password]),
    ):
        # a message box never shows Gradio's "processing | 0.1s" in place of its words (here, or below)
        button.click(handler, inputs=inputs, outputs=launched, show_progress="hidden")
    # Every new session gets its own stream, started once the session exists.
    session.change(watch, inputs=session, outputs=view.outputs(), concurrency_limit=None, show_progress="hidden")

    def wire(trigger: Any, name: str, *values: Any) -> None:
        what, act = CONTROLS[name]
        trigger(
            control(what, act),
            inputs=[session, tokens, *values],
            outputs=notice,
            api_name=name,
            show_progress="hidden",
        )

    for button, name in ((pause, "pause"), (resume, "resume"), (step, "step"), (stop, "stop")):
        wire(button.click, name)
    wire(form.pace.change, "pace", form.pace)
    audience.change(None, inputs=audience, js="(on) => { document.body.classList.toggle('audience', on); }")
    for toggle, name in ((audience, "audience"), (discarded, "discarded")):
        toggle.change(
            functools.partial(_toggle, name),
            inputs=[session, toggle],
            outputs=[view.delta, view.plans],
            show_progress="hidden",
        )
    delta.change(None, inputs=delta, js=TRANSCRIPT_JS)
    for group in groups:
        for press, button in zip(group.spec.buttons, group.buttons, strict=True):
            if press.text:
                _wire_text(group, press.name, button.click, press.name, session, tokens)
            elif press.urgency and group.urgency is not None:
                wire(button.click, press.name, group.urgency)
            else:
                wire(button.click, press.name)
        if group.answer is not None:
            wire(group.answer.change, "choose_answer", group.answer)
        if group.text is not None and group.spec.text is not None:
            enter = group.spec.text
            _wire_text(group, enter.enter, group.text.submit, enter.enter_api, session, tokens)
    words.submit.click(
        submit_words,
        inputs=[session, tokens, *words.inputs()],
        outputs=words.message,
        api_name="submit_words",
        show_progress="hidden",
    )

    def reattach(held: Any, request: gr.Request) -> tuple[Any, Any]:
        """A reloaded or shared page (``?live=ID``, or a join link ``?join=CODE``) shows its debate, if it is
        still here: with the controls when this browser holds the debate's token, a seat's controls when it
        holds a seat's token, else watching (and, through a join link, free to join)."""
        query = dict(request.query_params) if request is not None else {}
        debate_id = query.get("live")
        joining = ROOMS.by_code(query.get("join")) if query.get("join") and not debate_id else None
        page = reattach_page(joining.debate_id if joining is not None else debate_id, held)
        if page is None:
            return gr.skip(), gr.skip()
        return page, gr.update(open=False)

    return LivePanel(session, reattach, [tokens], [session, setup_box])


def _wire_text(group: ControlGroup, name: str, trigger: Any, api_name: str, session: Any, tokens: Any) -> None:
    """A button that takes the text box's words (or Enter in the box): ``raise_point`` with the button's name."""

    def handler(page: Page | None, held: Any, text: str) -> list[Any]:
        return raise_point(page, held, text, name)

    trigger(
        handler,
        inputs=[session, tokens, group.text],
        outputs=[group.text, group.message],
        api_name=api_name,
        show_progress="hidden",
    )


@dataclass
class LivePanel:
    """What ``app`` wires at page load: re-attaching a reloaded page to its debate."""

    session: Any
    reattach: Any
    reattach_inputs: list[Any]
    reattach_outputs: list[Any]
