"""Where a seated person's intent stands: followed through the debate's events, and said as a badge.

What it does: ``follow(state, person, controls, event)`` gives the seat state
after ``event`` and the stance change the event *spends* (one press, one
effect). The person's live-control set (``web_plugins.LiveControls``, named
as ``Protocol.controls_for`` names it) follows the events it cares about
first (its ``follow``: a moderator's Interrupt that cut a speaker off, a
critic's point that was raised); the states every protocol shares follow
here: queued (the person's plan asks for the floor), won the floor (spent:
one press, one turn at the floor), floor passed (they held it and said
nothing before their time ran out: the turn is over), lost to a more urgent
agent, speaking, cut off by someone, listening again. A turn at the floor
ends with the person's utterance: once anyone else is chosen to speak, a
"won the floor" or "floor passed" left from an earlier turn reads listening.
``seat_state_html`` draws the state as a badge with a sentence for the
person: their set's ``note`` for the states its buttons set, else the shared
sentence (``none``: words only).

What it does not do: hold the state or talk to the channel (``session``
does), lay out the buttons (``live_panel``), or know any protocol's controls
(their ``web`` modules declare them).
"""

from __future__ import annotations

import html
from typing import Any

from debate_core.events import (
    Event,
    Interrupted,
    PlansMade,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceGenerated,
)
from debate_core.kernel.seats import LET_PASS
from ui.web_plugins import controls_named

LISTEN = {"intent": "listen"}
PASSED = "floor passed"
TURN_OVER = ("won the floor", PASSED)  # states of a turn at the floor that the next speaker ends


def follow(state: str, person: str, controls: str, event: Event) -> tuple[str, dict[str, Any] | None]:
    """The seat state after ``event``, and the stance to set when the event spent the person's press (else None)."""
    spec = controls_named(controls)
    if spec is not None and spec.follow is not None:
        found = spec.follow(state, person, event)
        if found is not None:
            return found
    if isinstance(event, PlansMade):
        record = next((r for r in event.plans if r.agent == person), None)
        if record is not None and record.plan.wants_floor:
            return "queued", None
    elif isinstance(event, SpeakerSelected):
        if event.speaker == person:
            return "won the floor", LISTEN  # spent: one press, one turn at the floor
        if state == "queued":
            return f"lost to {event.speaker}", None
        if state in TURN_OVER:
            return "listening", None
    elif isinstance(event, UtteranceGenerated) and event.speaker == person and not event.units:
        # the person held the floor and gave it back without a word: their time ran out (or the seat closed)
        return (PASSED if event.error == LET_PASS else "listening"), None
    elif isinstance(event, UnitDisclosed) and event.speaker == person:
        return "speaking", None
    elif isinstance(event, Interrupted) and event.interrupted == person:
        return f"cut off by {event.interrupter}", None
    elif isinstance(event, UtteranceCompleted) and event.speaker == person:
        return "listening", None
    return state, None


def _note(state: str, urgency: int, controls: str = "none") -> str:
    """What a seat state means for the person, in a sentence: their controls' words, else the shared ones."""
    spec = controls_named(controls)
    if spec is not None and spec.note is not None:
        said = spec.note(state, urgency)
        if said is not None:
            return said
    if state == "queued":
        return "Your request is in this turn's plans."
    if state == "won the floor":
        return "You have the floor: say what you want to say below."
    if state == PASSED:
        return "Your time ran out before you spoke, so the floor passed. Ask for it again when you want to speak."
    if state == "speaking":
        return "You are speaking: your sentences are disclosed one per turn, and anyone may cut you off."
    if state.startswith("lost to "):
        who = state.removeprefix("lost to ")
        return f"{who} was more urgent and took the floor. You are still asking; press Just listen to withdraw."
    if state.startswith("cut off by "):
        who = state.removeprefix("cut off by ")
        return f"{who} cut you off: what you had not yet said was discarded."
    return "The debate asks for your words when it is your turn; the box opens below."


def seat_state_html(state: str, urgency: int, controls: str = "none") -> str:
    """The seated person's state as a badge and a sentence; a cut-off is shown as a banner."""
    label = html.escape(state)
    note = html.escape(_note(state, urgency, controls))
    banner = " cutoff-banner" if state.startswith("cut off by ") else ""
    return (
        f'<div class="seat-status{banner}" role="status"><span class="seat-state" data-state="{label}">{label}</span>'
        f'<div class="seat-note">{note}</div></div>'
    )
