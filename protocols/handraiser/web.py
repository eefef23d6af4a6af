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

``question`` draws the question card of the two games (``WebRenderers.question``): Text
Pictionary's secret is the question's answer (a multiple-choice question's correct
option), so while a person sits as the guesser the card shows neither the question nor
its options (they would give the secret away; the guesser's model never sees them
either) and says the secret is hidden until the game ends; a person sitting as the
describer is shown the secret they describe; once the game has ended (and always when
only models play) the card names the secret and whether it was guessed. Meeting
Scheduling's card is the task statement and what success means (the case itself
travels in the question's context, which no card shows: each seat sees its own
briefing in its form); the debate keeps the generic card.

What it does not do: change what is submitted (the values stay ``pro``,
``con``, ``wait``), lay out widgets (``ui.live_panel``, ``ui.seat_form``), or
run the protocol (the engine modules never import this one).
"""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING, Any

from debate_core.events import Event, ListenerDecision
from ui.web_plugins import LiveControls, Press, WebRenderers, Wording

if TYPE_CHECKING:
    from ui.view_model import DebateView

_SIDES = {"pro": "Vote for Pro", "con": "Vote for Con"}


def _secret(view: DebateView) -> str:
    """Text Pictionary's secret as the game has it: a multiple-choice question's correct option, else the answer."""
    answer = view.correct_answer or ""
    if view.options and answer in view.labels:
        return view.options[view.labels.index(answer)].rstrip(".")
    return answer


def _person_as(view: DebateView, role: str) -> bool:
    """Whether a person sits in ``role``'s seat and the game runs."""
    return view.ended is None and any(view.roles.get(person) == role for person in view.humans)


def pictionary_card(view: DebateView) -> str:
    """Text Pictionary's question card (see the module docstring): never the secret while a person guesses."""
    if _person_as(view, "guesser"):
        return (
            '<div class="qtext">Text Pictionary: the describer describes a secret without saying it; '
            "you guess it, or ask a question.</div>"
            '<div class="muted secret hidden">The secret is hidden from you, the guesser, until the game ends.</div>'
        )
    secret = escape(_secret(view))
    question = f'<div class="qtext">{escape(view.question)}</div>'
    if _person_as(view, "describer"):
        return f'{question}<div class="secret">The secret you describe: <b>{secret}</b> (never say it)</div>'
    ended = view.ended
    if ended is None:
        return f'{question}<div class="secret">The secret: <b>{secret}</b></div>'
    verdict = "solved: the guesser named it" if ended.correct else "not solved: the secret was not guessed"
    return f'{question}<div class="secret">The secret was <b>{secret}</b> · {verdict}</div>'


def scheduling_card(view: DebateView) -> str:
    """Meeting Scheduling's question card: the task statement (public) and what success means."""
    return (
        f'<div class="qtext">{escape(view.question)}</div><div class="muted">Success: the traveler\'s schedule '
        "holds all three hard constraints (each meeting within the person's time at their place; time to "
        "travel between them; everyone met once).</div>"
    )


def question_card(view: DebateView) -> str | None:
    """The card of HandRaiser's two games; None (the generic card) for the debate."""
    cards = {"pictionary": pictionary_card, "scheduling": scheduling_card}
    card = cards.get(view.protocol)
    return card(view) if card is not None else None


WEB = WebRenderers(
    protocols=("handraiser", "pictionary", "scheduling"),
    question=question_card,
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
