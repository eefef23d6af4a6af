"""What each classroom endpoint does: the request's own token handed to the room, and a sentence for the page.

What it does: one handler per Gradio endpoint of the classroom panel
(``take_seat``, ``join_audience``, and ``HANDLERS`` by API name: leaving a
seat, voting, raising and lowering a hand; the host's opening, freeing and
giving of seats, turning a raised hand into a seat and closing the poll
early). Each reads the token this very request brought (the browser's
storage, ``page_access.token_for``) and passes it to the room, which decides
(``ui.classroom.Room``); nothing the page says about who it is counts, so a
request without a token, or with a wrong one, is refused with a sentence
(``ClassroomError``'s words) and changes nothing. A token the room gives
(joining, taking a seat) goes back only to the browser that asked for it
(its storage, never the address). When the host gives a seat to a person
(a raised hand, or anyone in the audience picked by name) the person's own
token, already in their browser, holds the seat: no token travels, the host's
page never sees one, and the person's page finds its seat's controls at its
next heartbeat.

What it does not do: lay out or redraw the panel (``classroom_panel``,
``classroom_host``), or decide who may act (``ui.classroom``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from ui import render
from ui.classroom import ClassroomError
from ui.classroom_live import Classroom, classroom_of
from ui.page_access import Page, remember, token_for

ANY_SEAT = "any seat"  # the raised hand's default: the host picks the seat (an agent's name has no space)


def ok(text: str) -> str:
    return f'<div class="notice" role="status">{render.escape(text)}</div>'


def bad(text: str) -> str:
    return f'<div class="notice bad" role="alert">{render.escape(text)}</div>'


def room_of(page: Page | None) -> Classroom:
    classroom = classroom_of(page.live.debate_id) if page is not None and not page.closed else None
    if classroom is None:
        raise ClassroomError("This page shows no classroom debate.")
    return classroom


def _acted(page: Page | None, text: str) -> str:
    if page is not None:
        page.live.nudge()  # every page's stream re-reads who holds which seat
    return ok(text)


def take_seat(page: Page | None, tokens: Any, name: str, agent: str) -> tuple[Any, str]:
    """Take the open seat ``agent``: as the audience member this browser already is, or as a new person named
    ``name``; the seat's token is kept in this browser."""
    try:
        classroom = room_of(page)
        assert page is not None
        held = token_for(tokens, page.live.debate_id)
        known = held is not None and not classroom.room.identify(held).watching
        token = classroom.room.take_seat(agent, token=held) if known else classroom.room.take_seat(agent, name)
    except ClassroomError as error:
        return gr.skip(), bad(str(error))
    page.token = token
    return remember(tokens, page.live, token), _acted(page, f"You hold {agent}'s seat.")


def join_audience(page: Page | None, tokens: Any, name: str) -> tuple[Any, str]:
    """Join the audience under ``name`` (to vote and raise a hand); the token is kept in this browser."""
    try:
        classroom = room_of(page)
        assert page is not None
        held = token_for(tokens, page.live.debate_id)
        if held is not None and not classroom.room.identify(held).watching:
            return gr.skip(), ok("You have joined already.")
        token = classroom.room.join(name)
    except ClassroomError as error:
        return gr.skip(), bad(str(error))
    page.token = token
    return remember(tokens, page.live, token), _acted(page, "You are in the audience.")


Act = Callable[..., str | None]


def _with_token(act: Act, done: str) -> Callable[..., str]:
    """A handler whose room action takes only the request's token (and the page's values after it); the action
    may word what it did, else ``done`` is said."""

    def handler(page: Page | None, tokens: Any, *values: Any) -> str:
        try:
            classroom = room_of(page)
            assert page is not None
            said = act(classroom, token_for(tokens, page.live.debate_id), *values)
        except ClassroomError as error:
            return bad(str(error))
        return _acted(page, said or done)

    return handler


def _vote(classroom: Classroom, token: Any, choice: Any) -> None:
    poll = classroom.room.tally()
    if poll is None or not poll.open:
        raise ClassroomError("The poll has closed: no poll is open right now.")
    classroom.room.vote(token, poll.key, choice)


def _raise_hand(classroom: Classroom, token: Any, seat: Any = None) -> str:
    asked = None if seat in (None, "", ANY_SEAT) else seat
    classroom.room.raise_hand(token, asked)
    return f"Your hand is up, asking for {asked}'s seat." if asked else "Your hand is up, asking for any seat."


def _grant(classroom: Classroom, token: Any, agent: Any, person: Any) -> str:
    """The hand's own seat, else the seat the host picked (``Room.grant``)."""
    given = classroom.room.grant(token, person, agent or None)
    return f"{_name_of(classroom, person)} now holds {given}'s seat."


def _give(classroom: Classroom, token: Any, agent: Any, person: Any) -> str:
    """A seat to anyone in the audience, picked by name (their public id; their own token then holds it)."""
    if not person:
        raise ClassroomError("Pick the person to give the seat to.")
    classroom.room.assign(token, agent, person=person)
    return f"{_name_of(classroom, person)} now holds {agent}'s seat."


def _name_of(classroom: Classroom, person: Any) -> str:
    return next((m.name for m in classroom.room.members() if m.id == person), "The person")


def _close_poll(classroom: Classroom, token: Any) -> str:
    closed = classroom.room.end_poll(token)
    if closed is None:
        raise ClassroomError("No poll is open right now.")
    return f"The poll is closed: {closed.total} vote{'' if closed.total == 1 else 's'}."


HANDLERS: dict[str, Callable[..., str]] = {
    "classroom_leave_seat": _with_token(lambda c, t: c.room.leave_seat(t), "You left the seat."),
    "classroom_vote": _with_token(_vote, "Your vote is counted."),
    "classroom_raise_hand": _with_token(_raise_hand, "Your hand is up."),
    "classroom_lower_hand": _with_token(lambda c, t: c.room.lower_hand(t), "Your hand is down."),
    "classroom_open_seat": _with_token(lambda c, t, a, f: c.room.open_seat(t, a, f), "The seat is open."),
    "classroom_free_seat": _with_token(lambda c, t, a, f: c.room.free_seat(t, a, f), "The seat is free."),
    "classroom_assign": _with_token(_grant, "The seat is given."),
    "classroom_give_seat": _with_token(_give, "The seat is given."),
    "classroom_close_poll": _with_token(_close_poll, "The poll is closed."),
}
