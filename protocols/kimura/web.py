"""Kimura in the web app: the question card's condition, the demo debate, and a debater's live controls.

What it does: ``WEB`` (registered by ``plugin`` through ``register_web_renderers``)
names a Kimura debate's condition by the protocol variant the engine reports
(``DebateStarted.protocol``) and offers the page's **Demo debate**
(``demo.demo_config``). ``CONTROLS`` (registered through
``register_live_controls``) is a debater's set with plans (``floor``): an
always-visible answer, an urgency, **Interrupt** (key ``i``: the floor at
the next sentence boundary, cutting off whoever speaks), **Raise hand** (key
``h``: the floor as soon as it is free) and **Just listen** (key ``l``), with
the badge's sentences for those states.

What it does not do: lay out widgets (``ui.live_panel``), follow the seat
states every protocol shares (``ui.seat_state``), or run the protocol (the
engine modules never import this one).
"""

from __future__ import annotations

from debate_core.events import DebateStarted
from protocols.kimura.demo import demo_config
from ui.web_plugins import LiveControls, Press, WebRenderers


def condition(event: DebateStarted) -> str:
    """The condition the question card names: the variant the engine ran."""
    return event.protocol


WEB = WebRenderers(protocols=("kimura",), condition=condition, demo=demo_config)


def note(state: str, urgency: int) -> str | None:
    """A debater's sentence for the states their buttons set (None: the generic sentence)."""
    if state == "armed":
        return (
            f"Interrupt armed (urgency {urgency}): you cut in at the next sentence boundary "
            "unless an agent is more urgent."
        )
    if state == "hand raised":
        return f"Hand raised (urgency {urgency}): you speak as soon as the floor is free."
    if state == "listening":
        return (
            "You are listening. Interrupt to cut in at the next sentence; Raise hand to speak when the floor is free."
        )
    return None


CONTROLS = LiveControls(
    name="floor",
    buttons=(
        Press(
            "interrupt", "Interrupt (i)", "interrupt", "armed", {"intent": "interrupt"}, "interrupt",
            key="i", urgency=True, variant="stop", min_width=120,
        ),
        Press(
            "raise_hand", "Raise hand (h)", "raise-hand", "hand raised", {"intent": "raise"}, "raise a hand",
            key="h", urgency=True,
        ),
        Press(
            "lower_hand", "Just listen (l)", "lower-hand", "listening", {"intent": "listen", "point": None},
            "lower a hand", key="l",
        ),
    ),
    answer=True,
    urgency=True,
    note=note,
)  # fmt: skip
