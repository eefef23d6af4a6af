"""Who may act on a live debate: the browser that started it holds a secret token; every other page watches.

What it does: ``Page`` is what one browser page holds of a live debate
(kept by Gradio per page, on the server): the session, whether this page
proved the owner's token when it attached (only then does it show the seat's
and the debate's controls), its own display (audience mode, discarded
units), and whether it has moved on to another debate. The token itself
lives in the browser that started the debate (``gr.BrowserState``, in
localStorage: it survives a reload in that browser and is never in the
address), as a small map from debate id to token (``remember``, ``token_for``).
``guard(page, tokens, what)`` is the server's check before any control acts:
the token this very request brought, compared with the session's in constant
time (``LiveSession.owned_by``); a page that watches, a request without the
token or with a wrong one raises ``Refused`` with words for the page, and
nothing changes.

In a classroom (``classroom_live``) the same map holds whatever token this
browser was given in the debate's room: the host's (the session's owner
token), a seat's, or an audience member's. ``guard`` is the host's check
(the debate's controls); ``guard_seat`` is a seat's: it gives the seat the
request's own token holds, from the room alone (``classroom_live.seat_of``),
never one the page names, and refuses a request whose token holds none.
``Page.token`` and ``Page.seat`` are what the page attached with and the seat
it shows the controls of; both are refreshed from the room, never trusted.

What it does not do: lay out or hide components (``live_panel``,
``live_stream``), run the debate (``session``), or know Gradio's request
objects: the page's handlers pass what the request brought.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from debate_core.log import logger
from ui.classroom_live import classroom_of, seat_of
from ui.session import LiveSession

# How many debates' tokens one browser keeps (the newest): enough for a few debates started in a row.
KEPT_TOKENS = 8
WATCHING = "watching: the controls belong to the person who started this debate"


class Refused(Exception):
    """A control was asked for without the debate's token; the message is for the page."""


@dataclass(eq=False)  # one page, one object: hashed by identity (the session keeps its controlling pages)
class Page:
    """One browser page's hold on a live debate."""

    live: LiveSession
    owner: bool  # this page proved the owner's token when it attached: it shows the controls
    audience: bool = False
    discarded: bool = False
    closed: bool = False  # the page moved on (another debate) or is gone: its stream ends
    token: str | None = field(default=None, repr=False)  # the token its browser brought (kept on the server)
    seat: str | None = None  # the seat whose controls it shows (refreshed from the room, never from the page)
    drawn: dict[str, Any] = field(default_factory=dict, repr=False)  # what the classroom panel last drew

    def close(self) -> None:
        """The page no longer shows this debate (it started another, or it is gone)."""
        self.closed = True
        self.live.detach(self)
        classroom = classroom_of(self.live.debate_id)
        if classroom is not None and self.token is not None:
            classroom.room.disconnect(self.token)  # a seat's grace period starts now


def token_for(tokens: Any, debate_id: str) -> str | None:
    """The token the browser holds for ``debate_id`` (None when it holds none, or sent something else)."""
    if not isinstance(tokens, dict):
        return None
    token = tokens.get(debate_id)
    return token if isinstance(token, str) else None


def remember(tokens: Any, live: LiveSession, token: str | None = None) -> dict[str, str]:
    """What the browser keeps after starting ``live`` (or being given ``token`` in its room): the token added,
    the oldest dropped past ``KEPT_TOKENS``."""
    held = tokens.items() if isinstance(tokens, dict) else ()
    kept = {k: v for k, v in held if isinstance(k, str) and isinstance(v, str)}
    kept.pop(live.debate_id, None)
    kept[live.debate_id] = live.owner_token if token is None else token
    return dict(list(kept.items())[-KEPT_TOKENS:])


def open_page(live: LiveSession, tokens: Any) -> Page:
    """A page attaching to ``live``: it holds the controls only when the browser brought the debate's token, and
    a seat's controls when its token holds a seat in the debate's room (a reload re-attaches to it)."""
    token = token_for(tokens, live.debate_id)
    page = Page(live, owner=live.owned_by(token), token=token)
    classroom = classroom_of(live.debate_id)
    if classroom is not None and token is not None and not classroom.room.closed:
        classroom.room.attach(token)
    page.seat = seat_of(live, token)
    live.attach(page, controls=page.owner)
    return page


def guard(page: Page | None, tokens: Any, what: str) -> LiveSession:
    """The session ``page`` shows, when this request brought its owner's token; else ``Refused``.

    ``what`` says the action for the refusal ("pause it", "interrupt").
    """
    if page is None or page.closed:
        raise Refused("No debate is running on this page.")
    live = page.live
    if not live.owned_by(token_for(tokens, live.debate_id)):
        logger.warning("debate %s: a request to %s without the owner's token was refused", live.debate_id, what)
        raise Refused(f"You are {WATCHING}, so you cannot {what}.")
    return live


def guard_seat(page: Page | None, tokens: Any, what: str) -> tuple[LiveSession, str]:
    """The session ``page`` shows and the seat this request's own token holds in it; else ``Refused``.

    The seat comes from the room (or, for a debate without one, the owner's seat), never from the page.
    """
    if page is None or page.closed:
        raise Refused("No debate is running on this page.")
    live = page.live
    token = token_for(tokens, live.debate_id)
    seat = seat_of(live, token)
    if seat is None:
        logger.warning("debate %s: a request to %s without a seat's token was refused", live.debate_id, what)
        classroom = classroom_of(live.debate_id)
        if classroom is not None and not classroom.room.identify(token).watching:
            raise Refused(f"You hold no seat in this debate, so you cannot {what}.")
        raise Refused(f"You are {WATCHING}, so you cannot {what}.")
    return live, seat
