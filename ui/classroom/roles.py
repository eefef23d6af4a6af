"""Who may do what in a classroom debate: the roles, the actions, the refusals and who a request is.

What it does: names the three roles of one live debate (``Role``: the host
who started it, a seated person, the audience), every action a page can ask
for (``Action``), which role may ask for which (``HOST_ACTIONS``,
``SEAT_ACTIONS``, ``AUDIENCE_ACTIONS``; ``WATCH`` needs no token at all),
the errors a refused request raises with words for the page
(``Forbidden``: the token does not allow it; ``Conflict``: it is allowed but
cannot happen now, a seat already taken or a poll closed; ``Invalid``: the
request itself is wrong, an unknown seat or a blank name), and
``Identity``: who a token says a page is.

What it does not do: hold any secret or decide a request (``room`` does,
against the tokens it keeps), or word anything in HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    """What a request's token makes its page."""

    HOST = "host"  # started the debate: its pace, its seats, its polls
    SEAT = "seat"  # holds one seat: that seat's controls and form, nothing else
    AUDIENCE = "audience"  # watches; a joined member (with a token) may also vote and raise a hand


class Action(StrEnum):
    """Everything a page may ask of a live debate."""

    WATCH = "watch"
    VOTE = "vote"
    RAISE_HAND = "raise_hand"
    LOWER_HAND = "lower_hand"
    INTERRUPT = "interrupt"  # any of the seat's live controls (interrupt, raise hand for the floor, a point)
    SUBMIT = "submit"  # the seat's form: its answer, its words when it holds the floor, its vote
    LEAVE_SEAT = "leave_seat"
    PAUSE = "pause"
    RESUME = "resume"
    STEP = "step"
    STOP = "stop"
    SET_PACE = "set_pace"
    OPEN_SEAT = "open_seat"
    ASSIGN = "assign"
    FREE_SEAT = "free_seat"
    CLOSE_POLL = "close_poll"


HOST_ACTIONS = frozenset(
    {
        Action.PAUSE,
        Action.RESUME,
        Action.STEP,
        Action.STOP,
        Action.SET_PACE,
        Action.OPEN_SEAT,
        Action.ASSIGN,
        Action.FREE_SEAT,
        Action.CLOSE_POLL,
    }
)
SEAT_ACTIONS = frozenset({Action.INTERRUPT, Action.SUBMIT, Action.LEAVE_SEAT})  # each for the holder's own seat
AUDIENCE_ACTIONS = frozenset({Action.VOTE, Action.RAISE_HAND, Action.LOWER_HAND})  # a joined member without a seat
ANYONE = frozenset({Action.WATCH})

# How each action is said in a refusal ("... so you cannot pause the debate").
WORDS: dict[Action, str] = {
    Action.WATCH: "watch",
    Action.VOTE: "vote in the poll",
    Action.RAISE_HAND: "raise a hand",
    Action.LOWER_HAND: "lower a hand",
    Action.INTERRUPT: "use a seat's controls",
    Action.SUBMIT: "answer for a seat",
    Action.LEAVE_SEAT: "leave a seat",
    Action.PAUSE: "pause the debate",
    Action.RESUME: "resume the debate",
    Action.STEP: "run one turn",
    Action.STOP: "stop the debate",
    Action.SET_PACE: "change the pace",
    Action.OPEN_SEAT: "open a seat",
    Action.ASSIGN: "give someone a seat",
    Action.FREE_SEAT: "free a seat",
    Action.CLOSE_POLL: "close the poll",
}


class ClassroomError(Exception):
    """A request the room refused; ``str(error)`` is for the page (it never holds a token)."""


class Forbidden(ClassroomError):
    """The request's token (or its absence) does not allow the action."""


class Conflict(ClassroomError):
    """The action is allowed but cannot happen now: the seat is taken, the poll closed, the room closed."""


class Invalid(ClassroomError):
    """The request itself is wrong: an unknown seat or poll, a choice the poll does not offer, a blank name."""


@dataclass(frozen=True)
class Identity:
    """Who a token makes a page (``Room.identify``): never the token itself.

    ``person`` is the public id of a joined person (the host's roster and hands name people by it),
    None for a page that only watches. ``host`` and ``seat`` can both hold: a host who sits in a seat.
    ``notice`` says what happened to the person while away (their seat went back after the grace period).
    """

    role: Role
    person: str | None = None
    name: str | None = None
    seat: str | None = None
    host: bool = False
    notice: str = ""

    @property
    def watching(self) -> bool:
        """A page with no person behind it: it may watch, and join to do more."""
        return self.person is None


WATCHER = Identity(Role.AUDIENCE)
