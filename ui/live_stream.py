"""Pushing a live debate to the page: only what changed, as soon as it changes.

What it does: ``stream(page, view, outbox)`` is the (asynchronous) generator
behind the live tab. It awaits the session's next change
(``changed``: no server thread is held while it waits) and yields
an update for every component of the live view (``LiveView``), ``gr.skip()``
for those that did not change. Updates **merge**, they never queue: a page
is always sent the latest state, and while it has not taken its previous
update (Gradio still holds it, unwritten to a slow connection: ``page_outbox``)
nothing more is sent, so what changed meanwhile reaches it in one update.
An update costs the new sentence, not the debate: the drawing is shared by
every page of the debate and redone only for what changed (``live_cache``),
``Drawn`` remembers the lines the page holds, and the hidden ``delta``
component receives only the lines from the first one that changed (usually
the last: a speech that grew by a unit), which the page's script replaces or
appends (``page_scripts.TRANSCRIPT_JS``), keeping the reader's scroll position unless they
are at the bottom. A plot is sent only when the data behind it changed
(``charts.figure_keys``), at most once a ``CHARTS_EVERY_S``, after the text,
as the debate's shared build of it (``live_cache.FIGURE_EVERY_S``);
a plot that is redrawn keeps the reader's drag-zoom (``page_scripts.KEEP_ZOOM_JS``). A
countdown is refreshed every second while the debate waits for the person's
words.

The seated person's control group (the registered live-control set their
role stands by with, ``LiveSession.controls``) is shown, the others hidden,
with the badge of ``seat_state`` (its always-visible answer hidden while
the words form asks for the answer: one answer on the page at a time), and
the debate's controls (pause, resume, step, stop) with it, but only on a
page that holds the controls (``page_access.Page.owner``): a page that
watches shows the debate and a status line that says it watches (and who
is seated), and no control, no seat badge, no words form and no countdown. Each page has its
own display (audience mode, discarded units).

Every registered side panel (``web_plugins.panel_html``) is redrawn when it
changes; a panel of another protocol stays blank.

What it does not do: lay out components (``live_panel``), run the debate
(``session``) or word the seated person's badge (``seat_state``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass, field
from typing import Any

import gradio as gr

from debate_core.kernel.human import HumanRequest
from debate_core.log import logger
from ui import live_cache, render, seat_form
from ui.charts import FIGURES
from ui.classroom_live import seat_of
from ui.page_access import WATCHING, Page
from ui.page_outbox import Outbox
from ui.seat_form import SeatForm
from ui.seat_state import seat_state_html
from ui.session import LiveSession

# Charts follow the text, at most this often (each is sent only when its data changed).
CHARTS_EVERY_S = 1.0
# While a page has not taken its last update, how often to look again (what changes meanwhile is merged).
TAKEN_POLL_S = 0.02
_NONE = object()  # a figure key no page holds: the page has not been sent that figure yet
# A form's box is shown a second time this long after the form (see ``updates``).
FORM_AGAIN_S = 0.3
# While nothing happens, how often the page hears about a model loading or generating, and a countdown.
ACTIVITY_S = 0.5


# The text components ``updates`` yields first, in this order.
HEAD = ("status", "question", "budget", "delta", "plans", "result", "rounds")


@dataclass
class LiveView:
    """The components a live debate updates, in the order ``stream`` yields them."""

    status: Any
    question: Any
    budget: Any
    delta: Any
    plans: Any
    result: Any
    rounds: Any  # answers per round: empty for a debate that does not answer in rounds
    urgency: Any
    trajectory: Any
    history: Any
    controls: Any
    seat_state: Any
    countdown: Any
    form: SeatForm
    pause: Any
    resume: Any
    step: Any
    stop: Any
    plan_boxes: tuple[Any, ...] = ()  # what shows action plans: hidden for a protocol that makes none
    panels: dict[str, Any] = field(default_factory=dict)  # registered side panel name -> its component
    groups: dict[str, Any] = field(default_factory=dict)  # registered live-control set name -> its box
    answers: tuple[Any, ...] = ()  # the always-visible answers of the sets that show one

    def outputs(self) -> list[Any]:
        head = [*(getattr(self, name) for name in HEAD), *self.panels.values()]
        plots = [self.urgency, self.trajectory, self.history]
        seat = [
            self.controls, *self.groups.values(), self.seat_state, *self.answers, self.countdown,
            *self.form.outputs(),
        ]  # fmt: skip
        return [*head, *plots, *seat, self.pause, self.resume, self.step, self.stop, *self.plan_boxes]


@dataclass
class Drawn:
    """What the page shows now, so that only changes are sent."""

    lines: list[str] = field(default_factory=list)
    seq: int = 0
    texts: dict[str, str] = field(default_factory=dict)
    figures: dict[str, Hashable] = field(default_factory=dict)  # figure name -> the data key the page holds
    request_id: int | None = None
    form_at: float | None = None  # when the form was shown, until its box has been shown a second time
    answers_for: str | None = None
    buttons: tuple[bool, bool] | None = None
    charts_time: float = 0.0


def _changed(drawn: Drawn, key: str, value: str) -> Any:
    old = drawn.texts.get(key)
    if old is value or old == value:
        return gr.skip()
    drawn.texts[key] = value
    return value


def _pending(live: LiveSession, seat: str | None) -> HumanRequest | None:
    """What the debate waits for from the person in ``seat`` (shown only on the page that holds that seat)."""
    channel = live.channel_of(seat)
    if channel is None or live.done:
        return None
    return channel.pending(timeout_s=0)


def _countdown(request: HumanRequest | None) -> str:
    if request is None or request.deadline is None:
        return ""
    left = max(0, round(request.deadline - time.monotonic()))
    return f'<div class="countdown" role="timer">{left} s left, then it passes</div>'


def status_line(live: LiveSession, owner: bool = True, seat: str | None = None) -> str:
    """The debate's status line as a page shows it (what it does, whom the page seats or that it watches)."""
    busy = live.activity()
    text = f"{live.status}{f' ({busy})' if busy else ''} · debate {live.debate_id[:8]}"
    if seat and not live.done:
        role = live.view.roles.get(seat)
        text += f" · you are {seat}" + (f", the {role}" if role else "")
    elif live.human and not live.done and live.channel is not None:
        role = live.view.roles.get(live.human)
        text += f" · a person is {live.human}" + (f", the {role}" if role else "")
    if not owner and not seat:
        text += f" · {WATCHING}"
    return render.status_html(text, error=live.error, link=f"?debate={live.debate_id}", debate=live.debate_id)


def updates(
    live: LiveSession, drawn: Drawn, view: LiveView, *, plots: bool = True, page: Page | None = None
) -> list[Any]:
    """One update per ``view.outputs()`` component (``gr.skip()`` where nothing changed).

    With ``plots`` False the charts are left for a later update: text reaches the page first.
    ``page``: the page drawn, for its controls and display (None: the owner's page, default display).
    """
    owner = page is None or page.owner
    seat = live.human if page is None else page.seat  # the seat whose controls this page shows
    held = live.people.get(seat) if seat else None
    audience = page is not None and page.audience
    discarded = page is not None and page.discarded
    with live.lock:
        state = live.view
        cache = live_cache.shared(live)
        lines = cache.lines(state, discarded, live.version)
        first = live_cache.first_new(lines, drawn.lines)
        delta: Any = gr.skip()
        if first < len(lines) or len(lines) != len(drawn.lines):
            drawn.seq += 1
            delta = {"seq": drawn.seq, "from": first, "lines": lines[first:]}
            drawn.lines = lines
        texts = cache.texts(state, audience, live.version)
        head = [
            _changed(drawn, "status", status_line(live, owner, seat)),
            _changed(drawn, "question", texts["question"]),
            _changed(drawn, "budget", texts["budget"]),
            delta,
            _changed(drawn, "plans", texts["plans"]),
            _changed(drawn, "result", texts["result"]),
            _changed(drawn, "rounds", texts["rounds"]),
        ]
        head += [_changed(drawn, f"panel:{name}", texts.get(f"panel:{name}", "")) for name in view.panels]
        figures: list[Any] = [gr.skip()] * len(FIGURES)
        if plots:
            keys = cache.keys(state)
            settled = live.done or live.status == "paused"
            for index, name in enumerate(FIGURES):  # only a figure whose data changed: a redraw ends a drag-zoom
                if drawn.figures.get(name, _NONE) != keys[name]:
                    built, plot = cache.figure(name, state, settled)  # the shared build may be a little older
                    if drawn.figures.get(name, _NONE) != built:
                        drawn.figures[name] = built
                        figures[index] = plot
        seated = held is not None and held.channel is not None and not live.done
        controls = held.controls if held is not None else "none"
        answer: dict[str, Any] = {}  # what changes of the always-visible answers
        mine = state.initial.get(seat or "", (None, ""))[0]
        shown = f"{live.debate_id}:{seat}:{mine}"
        if seated and drawn.answers_for != shown and state.labels:
            drawn.answers_for = shown  # the choices once, and the person's initial answer once given
            answer.update(choices=list(state.labels), value=mine)
        badge = seat_state_html(held.state, held.urgency, controls) if held is not None else ""
        seat_state = _changed(drawn, "seat", badge)
        done = live.done
    request = _pending(live, seat)
    # One answer group at a time: the always-visible answer steps aside while the form asks for the answer.
    own = str(request is None or all(spec.name != "answer" for spec in request.fields))
    if drawn.texts.get("own answer") != own:
        drawn.texts["own answer"] = own
        answer["visible"] = own == "True"
    answers = [gr.update(**answer) if answer else gr.skip()] * len(view.answers)
    form: list[Any] = [gr.skip()] * len(view.form.outputs())
    request_id = request.request_id if request else None
    if request_id != drawn.request_id:
        drawn.request_id = request_id
        drawn.form_at = time.monotonic() if request is not None else None
        form = seat_form.updates(request, view.form)
    elif request is not None and drawn.form_at is not None and time.monotonic() - drawn.form_at >= FORM_AGAIN_S:
        # Gradio unmounts a hidden component and mounts it again when shown: a form hidden and shown within a
        # moment (an initial answer let pass, the floor won at once) could stay hidden, its box or a field. The
        # box and its fields are shown once more (no values: the fields keep what the person has entered).
        drawn.form_at = None
        form = seat_form.shown_again(request, view.form)
    buttons = (not done, owner)
    control: list[Any] = [gr.skip()] * 4
    if buttons != drawn.buttons:
        drawn.buttons = buttons
        control = [gr.update(interactive=not done, visible=owner) for _ in range(4)]
    groups: list[Any] = [gr.skip()] * (1 + len(view.groups))
    shown = f"{seated}:{controls}"
    if drawn.texts.get("controls") != shown:
        drawn.texts["controls"] = shown
        groups = [gr.update(visible=seated), *(gr.update(visible=controls == name) for name in view.groups)]
    seat_updates = [*groups, seat_state, *answers, _changed(drawn, "countdown", _countdown(request)), *form]
    # a protocol that has made no plan by its first turn makes none (Kimura's come at turn 0)
    planless = str(state.turn > 0 and not state.plans)
    boxes: list[Any] = [gr.skip()] * len(view.plan_boxes)
    if drawn.texts.get("planless") != planless:
        drawn.texts["planless"] = planless
        boxes = [gr.update(visible=planless == "False")] * len(view.plan_boxes)
    return [*head, *figures, *seat_updates, *control, *boxes]


def redraw_ended(page: Page | None) -> list[Any]:
    """The transcript and plans again, for a display toggle once the debate's stream has ended.

    While the debate runs, its ``stream`` redraws on the toggle; after the end nothing would.
    """
    if page is None or not page.live.done:
        return [gr.skip(), gr.skip()]
    live = page.live
    with live.lock:
        lines = render.transcript_lines(live.view, show_discarded=page.discarded)
        plans = render.plans_html(live.view, audience=page.audience)
    return [{"seq": time.monotonic_ns(), "from": 0, "lines": lines}, plans]


def _charts_behind(live: LiveSession, drawn: Drawn) -> bool:
    with live.lock:
        keys = live_cache.shared(live).keys(live.view)
    return any(drawn.figures.get(name, _NONE) != keys[name] for name in FIGURES)


async def changed(live: LiveSession, seen: int, timeout: float) -> int:
    """``LiveSession.wait_for_change`` for a coroutine: awaits, holding no thread (forty pages watching a debate
    must not hold forty of the server's threads), until the session's version differs from ``seen`` or
    ``timeout`` passes; returns it."""
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake() -> None:  # called from the debate's thread, under the session's lock
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody awaits any more
            loop.call_soon_threadsafe(woken.set)

    with live.lock:
        if live.version != seen:
            return live.version
        live.wakers.add(wake)
    try:
        await asyncio.wait_for(woken.wait(), timeout)
    except TimeoutError:
        pass
    finally:
        with live.lock:
            live.wakers.discard(wake)
    return live.version


async def _taken(page: Page, outbox: Outbox | None) -> bool:
    """Wait while the page has not taken its last update: what changes meanwhile is merged into the next one.
    False when the page is gone meanwhile (it never takes it): the stream ends then."""
    if outbox is None:
        return True
    waited = 0.0
    while outbox.unsent() > 0 and not page.closed:
        if outbox.gone():
            logger.info("debate %s: a page went away before it took its last update", page.live.debate_id)
            return False
        pause = 0.005 if waited < 0.05 else TAKEN_POLL_S
        await asyncio.sleep(pause)
        waited += pause
    return not outbox.gone()


async def stream(page: Page | None, view: LiveView, outbox: Outbox | None = None) -> AsyncIterator[list[Any]]:
    """Every change of ``page``'s debate as page updates, until the debate has ended and been drawn, or the
    page has moved on to another debate, or the page is gone (``outbox.gone``: a closed tab lets go of its
    debate at once, see ``page_outbox``).

    Always the latest state: the session's version is awaited (``changed``, no thread held while
    waiting), and while the page has not taken its previous update (``outbox``, see ``page_outbox``) nothing
    is sent, so the changes of that time reach it merged, in one update. The drawing runs in a worker thread
    (a figure takes milliseconds), shared with every other page of the debate (``live_cache``).
    """
    if page is None or page.closed:
        return
    live = page.live
    live.attach(page, controls=page.owner)
    drawn = Drawn()
    seen = -1
    busy = ""
    try:
        while not page.closed:
            behind = _charts_behind(live, drawn)
            wait = ACTIVITY_S
            if behind:  # wake when the charts come due
                wait = min(wait, max(0.0, drawn.charts_time + CHARTS_EVERY_S - time.monotonic()))
            version = await changed(live, seen, timeout=wait)
            if outbox is not None and outbox.gone():
                logger.info("debate %s: a page went away", live.debate_id)
                return  # nobody reads this page any more: it lets go of the debate (below)
            seat = seat_of(live, page.token)  # a seat taken, freed or lapsed: this page follows the room
            moved = seat != page.seat
            page.seat = seat
            counting = _pending(live, page.seat) is not None
            activity = live.activity()
            due = behind and time.monotonic() - drawn.charts_time >= CHARTS_EVERY_S
            if version == seen and not counting and activity == busy and not moved and not due:
                continue
            if not await _taken(page, outbox):
                return
            if version != seen or counting or activity != busy or moved:
                seen, busy = live.version, activity
                # the new sentence first: people wait for it (the charts follow, at most once a CHARTS_EVERY_S)
                yield await asyncio.to_thread(updates, live, drawn, view, plots=False, page=page)
            if _charts_behind(live, drawn) and time.monotonic() - drawn.charts_time >= CHARTS_EVERY_S:
                if not await _taken(page, outbox):
                    return
                drawn.charts_time = time.monotonic()
                yield await asyncio.to_thread(updates, live, drawn, view, page=page)
            if live.done and await changed(live, seen, timeout=0.05) == seen:
                yield await asyncio.to_thread(updates, live, drawn, view, page=page)
                return
    finally:
        if not live.done:
            live.detach(page)
