"""HandRaiser in the web app: the moderator's vote wordings and the listener's live controls.

What it does: ``WEB`` (registered by ``plugin`` through ``register_web_renderers``)
words the moderator's two request kinds for the seat form: ``vote`` reads
"Vote for Pro: D) Argon", "Vote for Con: B) Nitrogen", "Wait another round"
(each side's label followed by what the request's view says of it, its
``<value>_position``), with the round in the heading (the request's own
description then says that a wait may carry a question to both sides, when
the form has its question box: ``questions`` on and another round to come); ``verdict`` reads
"Vote for Pro" / "Vote for Con". (Text Pictionary's ``guess`` needs no
wording: its one text box says what to type.) ``CONTROLS`` (registered through ``register_live_controls``) is the
listener's one control (``interrupt``: the moderator's between votes, the
guesser's between guesses): a large **Interrupt** (key ``i``) that cuts the speaker off
at the next chunk and **Just listen** (key ``l``); an Interrupt that cut a
speaker off (the person's ``ListenerDecision`` said yes) is spent, so the
next speaker is not cut off by the same press, and the badge says who was cut.

What it does not do: change what is submitted (the values stay ``pro``,
``con``, ``wait``), lay out widgets (``ui.live_panel``, ``ui.seat_form``), or
run the protocol (the engine modules never import this one).
"""

from __future__ import annotations

from typing import Any

from debate_core.events import Event, ListenerDecision
from ui.web_plugins import LiveControls, Press, WebRenderers, Wording

_SIDES = {"pro": "Vote for Pro", "con": "Vote for Con"}
WEB = WebRenderers(
    protocols=("handraiser",),
    wordings={
        "vote": Wording(
            "Your vote",
            "Vote for a side and the debate ends with its answer, or wait to hear another round.",
            {**_SIDES, "wait": "Wait another round"},
            rounded=True,
        ),
        "verdict": Wording(
            "Your verdict",
            "You cut Con off, so you decide now: the debate ends with the answer of the side you vote for.",
            _SIDES,
        ),
    },
)
LISTEN = {"intent": "listen"}
INTERRUPTED = "interrupted "  # the state of a moderator whose Interrupt cut a speaker off: "interrupted Alex"


def follow(state: str, person: str, event: Event) -> tuple[str, dict[str, Any] | None] | None:
    """An Interrupt that cut a speaker off is spent: the moderator listens again (else the generic follower)."""
    if isinstance(event, ListenerDecision):
        if event.listener == person and event.interrupt:
            return f"{INTERRUPTED}{event.speaker}", LISTEN
        return state, None
    return None


def note(state: str, urgency: int) -> str:
    """The listener's sentence: Interrupt, and nothing else, between their turns to vote or guess."""
    if state == "armed":
        return "Interrupt armed: the speaker is cut off after the chunk being said now. Just listen withdraws it."
    if state.startswith(INTERRUPTED):
        who = state.removeprefix(INTERRUPTED)
        return (
            f"You cut {who} off: the rest of the message is never said. You are listening again; "
            "press Interrupt to cut off the next speaker."
        )
    if state == "speaking":
        return "The debate says your choice aloud."
    return "You are listening. Press Interrupt to cut the speaker off at the next chunk; the form asks you in turn."


CONTROLS = LiveControls(
    name="interrupt",
    buttons=(
        Press(
            "cut", "Interrupt (i)", "interrupt-now", "armed", {"intent": "interrupt"}, "interrupt",
            key="i", urgency=True, variant="stop", scale=3, min_width=160,
        ),
        Press(
            "uncut", "Just listen (l)", "interrupt-withdraw", "listening", {"intent": "listen", "point": None},
            "withdraw an interrupt", key="l", scale=1,
        ),
    ),
    follow=follow,
    note=note,
)  # fmt: skip
