"""The classroom on the live tab: the host's join code, QR code and roster; joining; the audience's poll and hands.

What it does: ``build_classroom(session, tokens)`` lays out, under the
debate, what each role of a live debate's room (``classroom_live``) sees,
and wires its handlers:

* the **host** (the page whose browser holds the host's token): the join
  code, the join link (the address this page was opened with, ``?join=CODE``)
  and its QR code; the roster (each seat: who acts for it, its holder, whether
  they are connected, the grace left); buttons to open a seat to people (a
  model or a pass acting for it meanwhile), to free a seat (a model takes
  it, or its turns pass), and to give a seat to a raised hand;
* a page **without a seat** (opened with ``?join=CODE`` or the live link): a
  display name, the seats the host opened, *Take the seat* and *Join the
  audience*;
* a **seated** person: who they are, *Leave the seat* (their seat's live
  controls and form are the live panel's, for their seat only);
* the **audience**: the open poll's choices and *Vote*, *Raise my hand* and
  *Lower my hand*; every page sees the poll's tally.

A ``gr.Timer`` refreshes each page about once a second (``refresh``): it is
the page's heartbeat (``Room.heartbeat``, which also applies lapsed grace
periods) and redraws only what changed. Every handler passes the token its
own request brought (this browser's storage, ``gr.BrowserState``) to the
room, which decides; nothing the page says about who it is counts, so a
request without a token, or with a wrong one, is refused with a sentence and
changes nothing. A token the room gives (joining, taking a seat) is kept in
the browser's storage, never in the address: a reload in that browser
re-attaches, another browser with the same link is audience.

What it does not do: run the debate or decide who may act (``classroom_live``,
``ui.classroom``), or draw the debate itself (``live_stream``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import gradio as gr

from debate_core.log import logger
from ui import render
from ui.classroom import (
    ClassroomError,
    ClassroomRecord,
    Identity,
    PollResult,
    Room,
    html_name,
    join_qr_svg,
    qr_available,
)
from ui.classroom.people import Acting, SeatState
from ui.classroom_live import Classroom, classroom_of
from ui.page_access import Page, remember, token_for

HEARTBEAT_S = 1.0
FALLBACKS = [("a model takes its turns", "model"), ("its turns pass", "pass")]
_HOST = re.compile(r"^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")


def base_url(headers: Any) -> str:
    """The address this page was opened with, from its request's headers (a proxy's forwarded ones first), for
    the join link; a header that is not a host name is ignored (it comes from outside)."""
    found = {str(k).lower(): str(v) for k, v in dict(headers or {}).items()}
    origin = found.get("origin", "")
    proto = found.get("x-forwarded-proto", "").split(",")[0].strip()
    host = found.get("x-forwarded-host", "").split(",")[0].strip()
    if not host and origin.startswith(("http://", "https://")):
        proto, host = origin.split("://", 1)[0], origin.split("://", 1)[1].rstrip("/")
    host = host or found.get("host", "")
    if not _HOST.match(host):
        host = "127.0.0.1:7860"
    if proto not in ("http", "https"):
        proto = "http"
    root = os.environ.get("GRADIO_ROOT_PATH", "").strip("/")
    return f"{proto}://{host}" + (f"/{root}" if re.fullmatch(r"[A-Za-z0-9._\-/]+", root) else "")


def _ok(text: str) -> str:
    return f'<div class="notice" role="status">{render.escape(text)}</div>'


def _bad(text: str) -> str:
    return f'<div class="notice bad" role="alert">{render.escape(text)}</div>'


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


def join_html(room: Room, link: str) -> str:
    code = html_name(room.join_code)
    qr = ""
    if qr_available():
        try:
            qr = f'<div class="join-qr" id="join-qr" style="width:200px;max-width:100%">{join_qr_svg(link)}</div>'
        except Exception:  # a QR code is a convenience: the link and the code are shown anyway
            logger.exception("the join link's QR code could not be drawn")
    return (
        f'<div class="join"><p>Join code: <strong id="join-code">{code}</strong></p>'
        f'<p>Join link: <a id="join-link" href="{html_name(link)}" target="_blank">{html_name(link)}</a></p>{qr}</div>'
    )


def roster_html(room: Room) -> str:
    rows = []
    for seat in room.roster():
        acting = {Acting.PERSON: "a person", Acting.MODEL: "a model", Acting.PASS: "nobody (turns pass)"}[seat.acting]
        state = {SeatState.MODEL: "closed", SeatState.OPEN: "open", SeatState.HELD: "held"}[seat.state]
        holder = html_name(seat.holder) if seat.holder else ""
        if seat.connected is False:
            left = f", {seat.grace_left_s:.0f} s of grace left" if seat.grace_left_s is not None else ""
            holder += f' <span class="bad">(away{left})</span>'
        elif seat.connected:
            holder += ' <span class="ok">(connected)</span>'
        role = f" · {html_name(seat.role)}" if seat.role else ""
        rows.append(
            f'<tr data-seat="{html_name(seat.agent)}"><td>{html_name(seat.agent)}{role}</td><td>{state}</td>'
            f"<td>{acting}</td><td>{holder}</td></tr>"
        )
    members = [
        f"{html_name(m.name)}{' (host)' if m.host else ''}{' ✋' if m.hand_up else ''}"
        f"{'' if m.connected else ' (away)'}"
        for m in room.members()
    ]
    return (
        '<table class="roster" id="roster-table"><thead><tr><th>Seat</th><th>Open?</th><th>Acting</th>'
        f"<th>Held by</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f'<p class="muted" id="roster-members">Joined: {", ".join(members) or "nobody yet"}</p>'
    )


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
    """The classroom's components, in the order ``refresh`` updates them."""

    box: Any
    me: Any
    host_box: Any
    join_info: Any
    roster: Any
    seat_pick: Any
    fallback: Any
    open_seat: Any
    free_seat: Any
    hand_pick: Any
    assign: Any
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
    raise_hand: Any
    lower_hand: Any
    notice: Any
    timer: Any

    def outputs(self) -> list[Any]:
        return [
            self.box, self.me, self.host_box, self.join_info, self.roster, self.seat_pick, self.hand_pick,
            self.join_box, self.name, self.open_pick, self.leave, self.poll, self.audience_box, self.vote_pick,
        ]  # fmt: skip


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
        hidden = [gr.update(visible=False)] + [gr.skip()] * 13
        if page is not None:
            return _changed(page, "box", False, hidden[0]), *hidden[1:]  # type: ignore[return-value]
        return hidden
    room = classroom.room
    token = token_for(tokens, page.live.debate_id)
    page.token = token
    identity = room.identify(token) if room.closed else room.heartbeat(token)
    joined = not identity.watching
    host = identity.host and not room.closed
    seated = identity.seat is not None
    roster = room.roster()
    open_seats = [s.agent for s in roster if s.state is SeatState.OPEN]
    poll = room.tally()
    held = room.record().polls
    latest = poll or (held[-1] if held else None)
    audience = joined and not identity.host and not seated and not room.closed
    joinable = not seated and not identity.host and not room.closed
    if "base" not in page.drawn and request is not None:  # the address the page was opened with, once
        page.drawn["base"] = base_url(getattr(request, "headers", None))
    link = room.join_link(page.drawn.get("base") or base_url(None))
    hands = [(f"{m.name}{f' (asks for {m.hand_seat})' if m.hand_seat else ''}", m.id) for m in room.hands()]
    choices = list(poll.choices) if poll is not None and poll.open else []
    mine = room.my_vote(token, poll.key) if poll is not None and audience else None
    return [
        _changed(page, "box", True, gr.update(visible=True)),
        _changed(page, "me", me_html(identity, room)),
        _changed(page, "host", host, gr.update(visible=host)),
        _changed(page, "join-info", join_html(room, link) if host else ""),
        _changed(page, "roster", roster_html(room) if host else ""),
        _changed(page, "seats", [s.agent for s in roster], gr.update(choices=[s.agent for s in roster])),
        _changed(page, "hands", hands, gr.update(choices=hands, value=hands[0][1] if hands else None)),
        _changed(page, "join-box", joinable, gr.update(visible=joinable)),
        _changed(page, "name", not joined, gr.update(visible=not joined)),
        _changed(page, "open", open_seats, gr.update(choices=open_seats, value=open_seats[0] if open_seats else None)),
        _changed(page, "leave", seated and not identity.host, gr.update(visible=seated and not identity.host)),
        _changed(page, "poll", tally_html(latest)),
        _changed(page, "audience", audience, gr.update(visible=audience)),
        _changed(page, "vote", (tuple(choices), mine), gr.update(choices=choices, value=mine)),
    ]


# -- handlers: each passes the request's own token to the room ----------------------------------------------
def _room_of(page: Page | None) -> Classroom:
    classroom = classroom_of(page.live.debate_id) if page is not None and not page.closed else None
    if classroom is None:
        raise ClassroomError("This page shows no classroom debate.")
    return classroom


def _acted(page: Page | None, text: str) -> str:
    if page is not None:
        page.live.nudge()  # every page's stream re-reads who holds which seat
    return _ok(text)


def take_seat(page: Page | None, tokens: Any, name: str, agent: str) -> tuple[Any, str]:
    """Take the open seat ``agent``: as the audience member this browser already is, or as a new person named
    ``name``; the seat's token is kept in this browser."""
    try:
        classroom = _room_of(page)
        assert page is not None
        held = token_for(tokens, page.live.debate_id)
        known = held is not None and not classroom.room.identify(held).watching
        token = classroom.room.take_seat(agent, token=held) if known else classroom.room.take_seat(agent, name)
    except ClassroomError as error:
        return gr.skip(), _bad(str(error))
    page.token = token
    return remember(tokens, page.live, token), _acted(page, f"You hold {agent}'s seat.")


def join_audience(page: Page | None, tokens: Any, name: str) -> tuple[Any, str]:
    """Join the audience under ``name`` (to vote and raise a hand); the token is kept in this browser."""
    try:
        classroom = _room_of(page)
        assert page is not None
        held = token_for(tokens, page.live.debate_id)
        if held is not None and not classroom.room.identify(held).watching:
            return gr.skip(), _ok("You have joined already.")
        token = classroom.room.join(name)
    except ClassroomError as error:
        return gr.skip(), _bad(str(error))
    page.token = token
    return remember(tokens, page.live, token), _acted(page, "You are in the audience.")


def _with_token(act: Any, done: str) -> Any:
    """A handler whose room action takes only the request's token (and the page's values after it)."""

    def handler(page: Page | None, tokens: Any, *values: Any) -> str:
        try:
            classroom = _room_of(page)
            assert page is not None
            act(classroom, token_for(tokens, page.live.debate_id), *values)
        except ClassroomError as error:
            return _bad(str(error))
        return _acted(page, done)

    return handler


def _vote(classroom: Classroom, token: Any, choice: Any) -> None:
    poll = classroom.room.tally()
    if poll is None or not poll.open:
        raise ClassroomError("No poll is open right now.")
    classroom.room.vote(token, poll.key, choice)


HANDLERS = {
    "classroom_leave_seat": _with_token(lambda c, t: c.room.leave_seat(t), "You left the seat."),
    "classroom_vote": _with_token(_vote, "Your vote is counted."),
    "classroom_raise_hand": _with_token(lambda c, t: c.room.raise_hand(t), "Your hand is up."),
    "classroom_lower_hand": _with_token(lambda c, t: c.room.lower_hand(t), "Your hand is down."),
    "classroom_open_seat": _with_token(lambda c, t, a, f: c.room.open_seat(t, a, f), "The seat is open."),
    "classroom_free_seat": _with_token(lambda c, t, a, f: c.room.free_seat(t, a, f), "The seat is free."),
    "classroom_assign": _with_token(lambda c, t, a, p: c.room.assign(t, a, person=p), "The seat is given."),
}


def build_classroom(session: Any, tokens: Any) -> ClassroomPanel:
    """The classroom's components (hidden until the page shows a classroom debate), wired to ``session`` (the
    page's ``Page``) and ``tokens`` (this browser's storage)."""
    with gr.Group(visible=False, elem_id="classroom") as box:
        me = gr.HTML("", elem_id="classroom-me")
        notice = gr.HTML("", elem_id="classroom-notice")
        with gr.Group(visible=False, elem_id="classroom-host") as host_box:
            join_info = gr.HTML("", elem_id="join-info")
            roster = gr.HTML("", elem_id="roster")
            with gr.Row():
                seat_pick = gr.Dropdown([], label="Seat", elem_id="host-seat-pick", allow_custom_value=True)
                fallback = gr.Radio(FALLBACKS, value="model", label="While nobody holds it", elem_id="host-fallback")
            with gr.Row():
                open_seat = gr.Button("Open the seat to people", elem_id="open-seat")
                free_seat = gr.Button("Free the seat", elem_id="free-seat")
            with gr.Row():
                hand_pick = gr.Dropdown([], label="Raised hands", elem_id="hand-pick", allow_custom_value=True)
                assign = gr.Button("Give the seat to this hand", elem_id="assign-seat")
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
            with gr.Row():
                vote = gr.Button("Vote", elem_id="vote")
                raise_hand = gr.Button("Raise my hand", elem_id="audience-raise-hand")
                lower_hand = gr.Button("Lower my hand", elem_id="audience-lower-hand")
    timer = gr.Timer(HEARTBEAT_S)
    panel = ClassroomPanel(
        box, me, host_box, join_info, roster, seat_pick, fallback, open_seat, free_seat, hand_pick, assign,
        join_box, name, open_pick, take, join, leave, poll, audience_box, vote_pick, vote, raise_hand, lower_hand,
        notice, timer,
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
        (raise_hand, "classroom_raise_hand", []),
        (lower_hand, "classroom_lower_hand", []),
        (open_seat, "classroom_open_seat", [seat_pick, fallback]),
        (free_seat, "classroom_free_seat", [seat_pick, fallback]),
        (assign, "classroom_assign", [seat_pick, hand_pick]),
    )
    for button, api, values in wiring:
        button.click(HANDLERS[api], inputs=[session, tokens, *values], outputs=notice, api_name=api, **quiet)
    return panel
