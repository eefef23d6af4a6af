"""Where a seated person's intent stands: followed through the debate's events, and said as a badge.

What it does: ``follow(state, person, controls, event)`` gives the seat state
after ``event`` (listening, armed, hand raised, queued, won the floor, lost
to a more urgent agent, speaking, cut off by someone, point armed or raised,
interrupted someone) and the stance change the event *spends*: one press,
one effect. A hand that won the floor, a point that was raised, and an
Interrupt of the ``interrupt`` controls that cut a speaker off (the
person's ``ListenerDecision`` said yes) put the stance back to listening, so
the next speaker is not cut off by the same press. ``seat_state_html`` draws
the state as a badge with a sentence for the person, worded for their
controls (``floor``: Kimura's plans; ``point``: Parliament's critic;
``interrupt``: HandRaiser's moderator; ``none``: words only).

What it does not do: hold the state or talk to the channel (``session``
does), or lay out the buttons (``live_panel``).
"""

from __future__ import annotations

import html
from typing import Any

from debate_core.events import (
    Event,
    Interrupted,
    Intervention,
    ListenerDecision,
    PlansMade,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
)

LISTEN = {"intent": "listen"}
INTERRUPTED = "interrupted "  # the state of a person whose Interrupt cut a speaker off: "interrupted Alex"


def follow(state: str, person: str, controls: str, event: Event) -> tuple[str, dict[str, Any] | None]:
    """The seat state after ``event``, and the stance to set when the event spent the person's press (else None)."""
    if isinstance(event, PlansMade):
        record = next((r for r in event.plans if r.agent == person), None)
        if record is not None and record.plan.wants_floor:
            return "queued", None
    elif isinstance(event, SpeakerSelected):
        if event.speaker == person:
            return "won the floor", LISTEN  # spent: one press, one turn at the floor
        if state == "queued":
            return f"lost to {event.speaker}", None
    elif isinstance(event, ListenerDecision):
        if controls == "interrupt" and event.listener == person and event.interrupt:
            return f"{INTERRUPTED}{event.speaker}", LISTEN  # spent: one press, one cut
    elif isinstance(event, UnitDisclosed) and event.speaker == person:
        return "speaking", None
    elif isinstance(event, Interrupted) and event.interrupted == person:
        return f"cut off by {event.interrupter}", None
    elif isinstance(event, UtteranceCompleted) and event.speaker == person:
        return "listening", None
    elif isinstance(event, Intervention) and event.author == person:
        return "point raised", {"intent": "listen", "point": None}  # spent: one press, one point
    return state, None


def _interrupt_note(state: str) -> str:
    """The moderator's sentence (``interrupt`` controls): Interrupt, and nothing else, between their votes."""
    if state == "armed":
        return "Interrupt armed: the speaker is cut off after the chunk being said now. Just listen withdraws it."
    if state.startswith(INTERRUPTED):
        who = state.removeprefix(INTERRUPTED)
        return (
            f"You cut {who} off: the rest of the statement is never said. You are listening again; "
            "press Interrupt to cut off the next speaker."
        )
    if state == "speaking":
        return "The debate says your choice aloud."
    return "You are listening. Press Interrupt to cut the speaker off at the next chunk; you vote after each round."


def _note(state: str, urgency: int, controls: str = "floor") -> str:
    """What a seat state means for the person, in a sentence."""
    if controls == "interrupt":
        return _interrupt_note(state)
    if state == "point armed":
        return "Your point is armed: it is raised at the next chunk boundary, and the speaker must answer it."
    if state == "point raised":
        return "Your point was raised. The speaker answers it, then goes on; you may raise another."
    if controls == "point" and state == "listening":
        return "You are listening. Type a point and press Point of information: it lands at the next chunk."
    if controls == "none" and state == "listening":
        return "The debate asks for your words when it is your turn; the box opens below."
    if state == "armed":
        return (
            f"Interrupt armed (urgency {urgency}): you cut in at the next sentence boundary "
            "unless an agent is more urgent."
        )
    if state == "hand raised":
        return f"Hand raised (urgency {urgency}): you speak as soon as the floor is free."
    if state == "queued":
        return "Your request is in this turn's plans."
    if state == "won the floor":
        return "You have the floor: say what you want to say below."
    if state == "speaking":
        return "You are speaking: your sentences are disclosed one per turn, and anyone may cut you off."
    if state.startswith("lost to "):
        who = state.removeprefix("lost to ")
        return f"{who} was more urgent and took the floor. You are still asking; press Just listen to withdraw."
    if state.startswith("cut off by "):
        who = state.removeprefix("cut off by ")
        return f"{who} cut you off: what you had not yet said was discarded."
    return "You are listening. Interrupt to cut in at the next sentence; Raise hand to speak when the floor is free."


def seat_state_html(state: str, urgency: int, controls: str = "floor") -> str:
    """The seated person's state as a badge and a sentence; a cut-off is shown as a banner."""
    label = html.escape(state)
    note = html.escape(_note(state, urgency, controls))
    banner = " cutoff-banner" if state.startswith("cut off by ") else ""
    return (
        f'<div class="seat-status{banner}" role="status"><span class="seat-state" data-state="{label}">{label}</span>'
        f'<div class="seat-note">{note}</div></div>'
    )
