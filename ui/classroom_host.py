"""The host's part of the classroom panel: the join code and link, the roster, and the controls over seats and polls.

What it does: ``build_host()`` lays out what only the host's page shows
(hidden for everyone else): the join code, the join link (the address this
page was opened with, ``?join=CODE``, ``base_url``) and its QR code; the
roster (each seat: who acts for it, its holder, whether they are connected,
the grace left; everyone who joined, with their raised hands and the seat
each asks for); *Open the seat to people* and *Free the seat* (with what acts
meanwhile); *Give the seat to this hand* (the seat the hand asks for, else the
seat picked); *Give the seat to this person* (anyone in the audience, picked
by name); and *Close the poll* (the open poll, early: its tally frozen and
recorded as when the next round closes it). ``host_updates`` redraws these
from the room, for the page's heartbeat.

What it does not do: act (``classroom_actions``: every button's handler hands
the request's own token to the room, which refuses anyone but the host), or
draw what other roles see (``classroom_panel``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import gradio as gr

from debate_core.log import logger
from ui.classroom import PollResult, Room, html_name, join_qr_svg, qr_available
from ui.classroom.people import Acting, SeatState

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
        f"{html_name(m.name)}{' (host)' if m.host else ''}"
        + (f" ✋ (asks for {html_name(m.hand_seat) if m.hand_seat else 'any seat'})" if m.hand_up else "")
        + f"{'' if m.connected else ' (away)'}"
        for m in room.members()
    ]
    return (
        '<table class="roster" id="roster-table"><thead><tr><th>Seat</th><th>Open?</th><th>Acting</th>'
        f"<th>Held by</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f'<p class="muted" id="roster-members">Joined: {", ".join(members) or "nobody yet"}</p>'
    )


@dataclass
class HostControls:
    """The host's components; ``host_updates`` redraws those named in its keys."""

    box: Any
    join_info: Any
    roster: Any
    seat_pick: Any
    fallback: Any
    open_seat: Any
    free_seat: Any
    hand_pick: Any
    assign: Any
    member_pick: Any
    give: Any
    close_poll: Any


def build_host() -> HostControls:
    """The host's components, hidden until ``host_updates`` shows them on the host's page."""
    with gr.Group(visible=False, elem_id="classroom-host") as box:
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
        with gr.Row():
            member_pick = gr.Dropdown([], label="In the audience", elem_id="member-pick", allow_custom_value=True)
            give = gr.Button("Give the seat to this person", elem_id="give-seat")
        close_poll = gr.Button("Close the poll", elem_id="close-poll", interactive=False)
    return HostControls(
        box, join_info, roster, seat_pick, fallback, open_seat, free_seat, hand_pick, assign, member_pick, give,
        close_poll,
    )  # fmt: skip


def host_updates(room: Room, host: bool, link: str, poll: PollResult | None) -> dict[str, tuple[Any, Any]]:
    """What the host's part shows now, by key: (the value compared with what was drawn, the update to send).

    Everyone else's page keeps it hidden and empty (``host`` False): no roster, no names, no join code.
    """
    roster = room.roster()
    seats = [s.agent for s in roster]
    members = room.members() if host else ()
    hands = [
        (f"{m.name} (asks for {m.hand_seat or 'any seat'})", m.id)
        for m in (room.hands() if host else ())
    ]  # fmt: skip
    audience = [(m.name + ("" if m.connected else " (away)"), m.id) for m in members if not m.host and m.seat is None]
    closable = host and poll is not None and poll.open
    return {
        "host": (host, gr.update(visible=host)),
        "join-info": (join_html(room, link) if host else "",) * 2,
        "roster": (roster_html(room) if host else "",) * 2,
        "seats": (seats, gr.update(choices=seats)),
        "hands": (hands, gr.update(choices=hands, value=hands[0][1] if hands else None)),
        "members": (audience, gr.update(choices=audience, value=None)),  # the host picks the person by name
        "close-poll": (closable, gr.update(interactive=closable)),
    }
