"""The live tab's control handlers: each acts only for the request that brought the right token.

What it does: ``control(what, act)`` makes the handler of one control: the
debate's (pause, resume, step, stop, pace) act only when the request brought
the debate's owner token (in a classroom, the host's: ``page_access.guard``);
a seat's (``SeatAct``: the live-control buttons, the always-visible answer)
act on the seat the request's own token holds (``page_access.guard_seat``),
never one the page names. ``CONTROLS`` lists them by api name;
``raise_point`` (a button that takes words) and ``submit_words`` (the seat's
words form) are guarded the same way. A refusal is a notice for the page
(``notice_html``) and changes nothing.

What it does not do: lay out or wire components (``live_panel``) or run the
debate (``session``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from debate_core.errors import HumanInputError
from ui import render, seat_form, seat_words, web_plugins
from ui.page_access import Page, Refused, guard, guard_seat
from ui.session import MAX_URGENCY


def notice_html(text: str, *, bad: bool = False) -> str:
    return f'<div class="notice{" bad" if bad else ""}" role="alert">{render.escape(text)}</div>'


class SeatAct:
    """A control's action on a seat: ``act(live, agent, *values)``, for the seat the request's token holds."""

    def __init__(self, act: Callable[..., Any]) -> None:
        self.act = act

    def __call__(self, live: Any, agent: str, *values: Any) -> Any:
        return self.act(live, agent, *values)


def control(what: str, act: Callable[..., Any]) -> Callable[..., Any]:
    """The handler of one control: ``act(live, *values)`` runs only when the request brought the debate's token
    (``page_access.guard``); otherwise the notice says why not and nothing changes. ``what``: the action, as
    the refusal says it ("pause it"). A seat's control (``SeatAct``) runs ``act(live, agent, *values)`` for the
    seat the request's own token holds (``page_access.guard_seat``), never one the page names."""
    seat = isinstance(act, SeatAct)

    def handler(page: Page | None, tokens: Any, *values: Any) -> Any:
        try:
            if seat:
                live, agent = guard_seat(page, tokens, what)
                values = (agent, *values)
            else:
                live = guard(page, tokens, what)
        except Refused as refused:
            return notice_html(str(refused), bad=True)
        try:
            act(live, *values)
        except HumanInputError as error:  # a value the live controls refuse (the channel checks every one)
            return notice_html(str(error), bad=True)
        return gr.skip()

    return handler


def _act(press: web_plugins.Press) -> Callable[..., Any]:
    """What a live-control button does to its seat (through ``control``, so only for the seat's holder)."""
    if press.urgency:
        return SeatAct(lambda live, agent, urgency=MAX_URGENCY: live.press(press, urgency, agent=agent))  # bounded
    return SeatAct(lambda live, agent: live.press(press, agent=agent))


def controls() -> dict[str, tuple[str, Callable[..., Any]]]:
    """The controls: (api name, what a refusal says, the action on the session): the page's own, then every
    button of the registered live controls but those that take words (``raise_point``). Those of a seat
    (``SeatAct``) take the seat's agent after the session."""
    found: dict[str, tuple[str, Callable[..., Any]]] = {
        "pause": ("pause it", lambda live: live.pause()),
        "resume": ("resume it", lambda live: live.resume()),
        "step": ("run it one turn", lambda live: live.step()),
        "stop": ("stop it", lambda live: live.stop()),
        "pace": ("change its pace (your setting applies to a debate you start)", lambda live, v: live.set_pace(v)),
        "choose_answer": (
            "choose the seat's answer",
            SeatAct(lambda live, agent, answer: live.choose_answer(answer, agent=agent)),
        ),
    }
    for spec in web_plugins.live_controls():
        for press in spec.buttons:
            if not press.text:
                found[press.name] = (press.refusal, _act(press))
    return found


CONTROLS = controls()


def raise_point(page: Page | None, tokens: Any, text: str, name: str = "point") -> list[Any]:
    """A button that takes words (the text box's point, ``Press.text``): armed, or why not."""
    press = web_plugins.press_named(name)
    try:
        live, agent = guard_seat(page, tokens, press.refusal if press is not None else "raise a point")
        refused = live.press(press, text=text, agent=agent) if press is not None else "This debate takes no words here."
    except Refused as refusal:
        refused = str(refusal)
    if refused:
        return [gr.skip(), notice_html(refused, bad=True)]
    return ["", ""]


def submit_words(page: Page | None, tokens: Any, *slots: Any) -> str:
    """The seated person's words (``seat_form``) to what the debate waits for, or why not."""
    try:
        live, agent = guard_seat(page, tokens, "answer for the seat")
    except Refused as refused:
        return f'<span class="bad">Not sent: {render.escape(str(refused))}</span>'
    channel = live.channel_of(agent)
    request = channel.pending(timeout_s=0) if channel is not None else None
    if channel is None or request is None:
        return '<span class="muted">Nothing is waiting for you right now.</span>'
    try:
        channel.submit(request.request_id, seat_form.values(request, list(slots)))
    except (HumanInputError, ValueError) as error:
        return f'<span class="bad">Not sent: {render.escape(str(error))}</span>'
    return f'<span class="ok">{render.escape(seat_words.sent(request))}</span>'
