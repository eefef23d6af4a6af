"""The classroom on the live tab: who each page is, joining, the audience's poll and hands; the host's part beside.

What it does: ``build_classroom(session, tokens)`` lays out, under the
debate, what each role of a live debate's room (``classroom_live``) sees,
and wires its handlers (``classroom_actions``):

* the **host** (the page whose browser holds the host's token): the join
  code, link and QR code, the roster and the controls over seats and polls
  (``classroom_host``);
* a page **without a seat** (opened with ``?join=CODE`` or the live link): a
  display name, the seats the host opened, *Take the seat* and *Join the
  audience*;
* a **seated** person: who they are, *Leave the seat* (their seat's live
  controls and form are the live panel's, for their seat only);
* the **audience**: the open poll's choices and *Vote* (which says when the
  poll has closed, and is then disabled), *Raise my hand* with the seat it
  asks for (any seat by default) and *Lower my hand*; every page sees the
  poll's tally.

A ``gr.Timer`` refreshes each page about once a second (``refresh``): it is
the page's heartbeat (``Room.heartbeat``, which also applies lapsed grace
periods) and redraws only what changed. Every handler passes the token its
own request brought (this browser's storage, ``gr.BrowserState``) to the
room, which decides; nothing the page says about who it is counts, so a
request without a token, or with a wrong one, is refused with a sentence and
changes nothing. A token the room gives (joining, taking a seat) is kept in
the browser's storage, never in the address: a reload in that browser
re-attaches, another browser with the same link is audience. ``record_html``
draws a stored classroom record for the replay.

What it does not do: run the debate or decide who may act (``classroom_live``,
``ui.classroom``), or draw the debate itself (``live_stream``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from ui import render
from ui.classroom import ClassroomRecord, Identity, PollResult, Room, html_name
from ui.classroom.people import SeatState
from ui.classroom_actions import ANY_SEAT, HANDLERS, join_audience, take_seat
from ui.classroom_host import HostControls, base_url, build_host, host_updates
from ui.classroom_live import classroom_of
from ui.page_access import Page, token_for

__all__ = ["HANDLERS", "ClassroomPanel", "base_url", "build_classroom", "join_audience", "record_html", "refresh"]
__all__ += ["take_seat", "tally_html"]

HEARTBEAT_S = 1.0


# -- drawing -----------------------------------------------------------------------------------------
def me_html(identity: Identity, room: Room) -> str:
    """Who this page is in the room, and any notice for it (said once)."""
    notice = f" {render.escape(identity.notice)}" if identity.notice else ""
    if room.closed:
        return f'<p class="muted">The debate has ended; its classroom is closed.{notice}</p>'
    name = html_name(identity.name or "")
    if identity.host and identity.seat:
        text = f"You are the host, and you hold {html_name(identity.seat)}'s seat."
    elif identity.host:
        text = "You are the host."
    elif identity.seat:
        text = f"You hold {html_name(identity.seat)}'s seat, as {name}."
    elif identity.person:
        text = f"You are in the audience, as {name}."
    else:
        text = "You are watching. Join to vote, raise your hand, or take a seat the host opened."
    return f'<p id="classroom-me-text">{text}{notice}</p>'


def tally_html(result: PollResult | None) -> str:
    """A poll's tally, drawn beside the agents' answers: a bar per choice."""
    if result is None:
        return ""
    total = max(1, result.total)
    bars = "".join(
        f'<li data-choice="{html_name(choice)}"><span class="choice">{html_name(choice)}</span> '
        f'<span class="bar" style="display:inline-block;height:0.8em;background:#7a9;'
        f'width:{round(100 * count / total)}px"></span> <span class="count">{count}</span></li>'
        for choice, count in zip(result.choices, result.counts, strict=True)
    )
    state = "open" if result.open else "closed"
    label = html_name(result.label or result.key)
    return (
        f'<div class="poll" id="poll-tally" data-poll="{html_name(result.key)}" data-state="{state}">'
        f"<p>The audience's poll: {label} ({state}, {result.total} vote{'' if result.total == 1 else 's'})</p>"
        f"<ul>{''.join(bars)}</ul></div>"
    )


def record_html(kept: Any, turn: int) -> str:
    """A stored classroom record (``Store.classroom``) as the replay shows it at ``turn``: who held which seat
    (display names only) and every poll opened by then, with its tally; "" for a debate no class joined, or a
    record that does not read (it came from a file: checked where it enters)."""
    if not kept:
        return ""
    try:
        record = ClassroomRecord.model_validate(kept)
    except ValueError:
        return '<p class="bad">The classroom record of this debate could not be read.</p>'
    now = record.holders_at(turn)
    held = "".join(
        f'<li data-seat="{html_name(h.agent)}">{html_name(h.name)} held {html_name(h.agent)}\'s seat from turn '
        f"{h.from_turn}" + (f" to turn {h.to_turn}" if h.to_turn is not None else "")
        + (f" ({html_name(h.ended.value)}; then {'a model' if h.then == 'model' else 'its turns passed'})"
           if h.ended is not None and h.then is not None else "")
        + (" · <strong>now</strong>" if now.get(h.agent) == h.name else "")
        + "</li>"
        for h in record.seats
    )  # fmt: skip
    polls = "".join(tally_html(poll) for poll in record.polls_until(turn))
    return (
        f'<div class="classroom-record" id="classroom-record"><p>The class in this debate</p>'
        f"<ul>{held or '<li>Nobody took a seat.</li>'}</ul>{polls}</div>"
    )


@dataclass
class ClassroomPanel:
    """The classroom's components; ``outputs`` is the order ``refresh`` updates them in."""

    box: Any
    me: Any
    host: HostControls
    join_box: Any
    name: Any
    open_pick: Any
    take: Any
    join: Any
    leave: Any
    poll: Any
    audience_box: Any
    vote_pick: Any
    vote: Any
    hand_seat: Any
    raise_hand: Any
    lower_hand: Any
    notice: Any
    timer: Any

    def outputs(self) -> list[Any]:
        host = self.host
        return [
            self.box, self.me, host.box, host.join_info, host.roster, host.seat_pick, host.hand_pick, self.join_box,
            self.name, self.open_pick, self.leave, self.poll, self.audience_box, self.vote_pick, host.member_pick,
            host.close_poll, self.hand_seat, self.vote,
        ]  # fmt: skip


# The keys ``refresh`` compares what it draws by, in the order of ``ClassroomPanel.outputs``.
KEYS = (
    "box", "me", "host", "join-info", "roster", "seats", "hands", "join-box", "name", "open", "leave", "poll",
    "audience", "vote", "members", "close-poll", "hand-seat", "vote-button",
)  # fmt: skip


def _changed(page: Page, key: str, value: Any, update: Any = None) -> Any:
    """``update`` (default: ``value``) when ``value`` differs from what this page was last sent, else a skip."""
    if page.drawn.get(key) == value:
        return gr.skip()
    page.drawn[key] = value
    return value if update is None else update


def refresh(page: Page | None, tokens: Any, request: gr.Request | None = None) -> list[Any]:
    """The page's heartbeat, and its classroom redrawn where it changed (see the module docstring)."""
    classroom = classroom_of(page.live.debate_id) if page is not None and not page.closed else None
    if page is None or classroom is None:  # no debate, or one without a classroom: nothing of it shows
        hidden = [gr.update(visible=False)] + [gr.skip()] * (len(KEYS) - 1)
        if page is not None:
            return [_changed(page, "box", False, hidden[0]), *hidden[1:]]
        return hidden
    room = classroom.room
    token = token_for(tokens, page.live.debate_id)
    page.token = token
    identity = room.identify(token) if room.closed else room.heartbeat(token)
    joined = not identity.watching
    host = identity.host and not room.closed
    seated = identity.seat is not None
    open_seats = [s.agent for s in room.roster() if s.state is SeatState.OPEN]
    poll = room.tally()
    held = room.record().polls
    latest = poll or (held[-1] if held else None)
    audience = joined and not identity.host and not seated and not room.closed
    joinable = not seated and not identity.host and not room.closed
    if "base" not in page.drawn and request is not None:  # the address the page was opened with, once
        page.drawn["base"] = base_url(getattr(request, "headers", None))
    link = room.join_link(page.drawn.get("base") or base_url(None))
    voting = latest is not None and latest.open
    choices = list(latest.choices) if latest is not None else []
    mine = room.my_vote(token, latest.key) if latest is not None and audience else None
    asked = [(ANY_SEAT.capitalize(), ANY_SEAT)] + [(s.agent, s.agent) for s in room.roster()] if audience else []
    words = "Vote" if voting or latest is None else "The poll has closed"
    drawn: dict[str, tuple[Any, Any]] = {
        "box": (True, gr.update(visible=True)),
        "me": (me_html(identity, room),) * 2,
        **host_updates(room, host, link, poll),
        "join-box": (joinable, gr.update(visible=joinable)),
        "name": (not joined, gr.update(visible=not joined)),
        "open": (open_seats, gr.update(choices=open_seats, value=open_seats[0] if open_seats else None)),
        "leave": (seated and not identity.host, gr.update(visible=seated and not identity.host)),
        "poll": (tally_html(latest),) * 2,
        "audience": (audience, gr.update(visible=audience)),
        "vote": ((tuple(choices), mine, voting), gr.update(choices=choices, value=mine, interactive=voting)),
        "hand-seat": (asked, gr.update(choices=asked, value=ANY_SEAT if asked else None)),
        "vote-button": (words, gr.update(value=words, interactive=voting)),
    }
    return [_changed(page, key, *drawn[key]) for key in KEYS]


def build_classroom(session: Any, tokens: Any) -> ClassroomPanel:
    """The classroom's components (hidden until the page shows a classroom debate), wired to ``session`` (the
    page's ``Page``) and ``tokens`` (this browser's storage)."""
    with gr.Group(visible=False, elem_id="classroom") as box:
        me = gr.HTML("", elem_id="classroom-me")
        notice = gr.HTML("", elem_id="classroom-notice")
        host = build_host()
        with gr.Group(visible=False, elem_id="classroom-join") as join_box:
            name = gr.Textbox(label="Your name", max_lines=1, max_length=200, elem_id="join-name")
            open_pick = gr.Dropdown([], label="Open seats", elem_id="join-seat-pick", allow_custom_value=True)
            with gr.Row():
                take = gr.Button("Take the seat", variant="primary", elem_id="take-seat")
                join = gr.Button("Join the audience", elem_id="join-audience")
        leave = gr.Button("Leave the seat", visible=False, elem_id="leave-seat")
        poll = gr.HTML("", elem_id="poll")
        with gr.Group(visible=False, elem_id="classroom-audience") as audience_box:
            vote_pick = gr.Radio([], label="Your vote", elem_id="vote-pick")
            vote = gr.Button("Vote", elem_id="vote")
            with gr.Row():
                hand_seat = gr.Dropdown(
                    [], label="The seat you ask for", elem_id="hand-seat-pick", allow_custom_value=True
                )
                raise_hand = gr.Button("Raise my hand", elem_id="audience-raise-hand")
                lower_hand = gr.Button("Lower my hand", elem_id="audience-lower-hand")
    timer = gr.Timer(HEARTBEAT_S)
    panel = ClassroomPanel(
        box, me, host, join_box, name, open_pick, take, join, leave, poll, audience_box, vote_pick, vote, hand_seat,
        raise_hand, lower_hand, notice, timer,
    )  # fmt: skip
    quiet: dict[str, Any] = {"show_progress": "hidden"}
    # not queued: a heartbeat must not wait behind the debate's streams, and shows no progress
    timer.tick(
        refresh, inputs=[session, tokens], outputs=panel.outputs(), api_visibility="private", queue=False, **quiet
    )
    session.change(refresh, inputs=[session, tokens], outputs=panel.outputs(), api_visibility="private", **quiet)
    take.click(
        take_seat, inputs=[session, tokens, name, open_pick], outputs=[tokens, notice],
        api_name="classroom_take_seat", **quiet,
    )  # fmt: skip
    join.click(
        join_audience, inputs=[session, tokens, name], outputs=[tokens, notice],
        api_name="classroom_join", **quiet,
    )  # fmt: skip
    wiring: tuple[tuple[Any, str, list[Any]], ...] = (
        (leave, "classroom_leave_seat", []),
        (vote, "classroom_vote", [vote_pick]),
        (raise_hand, "classroom_raise_hand", [hand_seat]),
        (lower_hand, "classroom_lower_hand", []),
        (host.open_seat, "classroom_open_seat", [host.seat_pick, host.fallback]),
        (host.free_seat, "classroom_free_seat", [host.seat_pick, host.fallback]),
        (host.assign, "classroom_assign", [host.seat_pick, host.hand_pick]),
        (host.give, "classroom_give_seat", [host.seat_pick, host.member_pick]),
        (host.close_poll, "classroom_close_poll", []),
    )
    for button, api, values in wiring:
        button.click(HANDLERS[api], inputs=[session, tokens, *values], outputs=notice, api_name=api, **quiet)
    return panel
