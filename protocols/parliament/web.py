"""Parliament in the web app: a critic's live controls (a point of information in one sentence).

What it does: ``CONTROLS`` (registered by ``plugin`` through
``register_live_controls``) is the critic's set (``point``): a box for the
point in one sentence (key ``p`` focuses it, Enter raises it), **Point of
information** (it lands at the next chunk boundary and the speaker must
answer it) and **Withdraw**. A point that was raised (the person's
``Intervention``) is spent: the critic listens again and may raise another.

What it does not do: lay out widgets (``ui.live_panel``), check the point's
words (``ui.session``), or run the protocol (the engine modules never import
this one).
"""

from __future__ import annotations

from typing import Any

from debate_core.events import Event, Intervention
from ui.web_plugins import LiveControls, Press, TextBox


def follow(state: str, person: str, event: Event) -> tuple[str, dict[str, Any] | None] | None:
    """A point raised is spent: one press, one point (else the generic follower)."""
    if isinstance(event, Intervention) and event.author == person:
        return "point raised", {"intent": "listen", "point": None}
    return None


def note(state: str, urgency: int) -> str | None:
    """A critic's sentence for the point's states (None: the generic sentence)."""
    if state == "point armed":
        return "Your point is armed: it is raised at the next chunk boundary, and the speaker must answer it."
    if state == "point raised":
        return "Your point was raised. The speaker answers it, then goes on; you may raise another."
    if state == "listening":
        return "You are listening. Type a point and press Point of information: it lands at the next chunk."
    return None


CONTROLS = LiveControls(
    name="point",
    buttons=(
        Press(
            "point", "Point of information (p)", "point", "point armed", {"intent": "interrupt"}, "raise a point",
            text=True, variant="stop", min_width=160,
        ),
        Press(
            "withdraw_point", "Withdraw", "point-withdraw", "listening", {"intent": "listen", "point": None},
            "withdraw a point",
        ),
    ),
    text=TextBox("Your point, in one sentence", "point-text", enter="point", enter_api="point_enter", key="p",
                 message_id="point-message"),
    follow=follow,
    note=note,
)  # fmt: skip
