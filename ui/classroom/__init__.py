"""A classroom in one live debate: the host, seated people and the audience, each held to their own part.

What it does: the front-end-independent core that the web page uses to let
many people into one debate (issue #30). ``Room`` (``room``) keeps one live
debate's host, seats and audience, and decides every request from the token
its browser holds (``authorize``; ``Forbidden``, ``Conflict``, ``Invalid``
in ``roles``); ``Rooms`` (``rooms``) keeps join codes unique among open
rooms; ``polls`` holds the audience's polls, ``names`` cleans display
names, ``tokens`` makes and checks the secrets, ``records`` is what the
transcript keeps (``ClassroomRecord``, display names only; its schema is the
store's, ``storage.classroom``), ``host_gate``
is the optional host password and ``qr`` draws the join link as a QR code.
docs/classroom.md says how the roles and secrets work.

What it does not do: import Gradio or draw anything, run the debate
(``ui.session``), or store anything (``storage``: it only reads the record's
schema from there).
"""

from __future__ import annotations

from ui.classroom.host_gate import HOST_PASSWORD_ENV, HostGate, resolve_host_password
from ui.classroom.names import clean_name, html_name
from ui.classroom.people import Acting, MemberView, SeatChange, SeatState, SeatView
from ui.classroom.polls import poll_key
from ui.classroom.qr import QRUnavailable, join_qr_svg, qr_available
from ui.classroom.records import ClassroomRecord, Fallback, HoldingEnd, PollResult, SeatHolding
from ui.classroom.roles import Action, ClassroomError, Conflict, Forbidden, Identity, Invalid, Role
from ui.classroom.room import DEFAULT_AWAY_AFTER_S, DEFAULT_GRACE_S, Room
from ui.classroom.rooms import ROOMS, Rooms

__all__ = [
    "DEFAULT_AWAY_AFTER_S",
    "DEFAULT_GRACE_S",
    "HOST_PASSWORD_ENV",
    "ROOMS",
    "Acting",
    "Action",
    "ClassroomError",
    "ClassroomRecord",
    "Conflict",
    "Fallback",
    "Forbidden",
    "HoldingEnd",
    "HostGate",
    "Identity",
    "Invalid",
    "MemberView",
    "PollResult",
    "QRUnavailable",
    "Role",
    "Room",
    "Rooms",
    "SeatChange",
    "SeatHolding",
    "SeatState",
    "SeatView",
    "clean_name",
    "html_name",
    "join_qr_svg",
    "poll_key",
    "qr_available",
    "resolve_host_password",
]
