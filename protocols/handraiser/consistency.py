"""What a HandRaiser stream can hold beyond the kernel's rules: Pro, Con, and a moderator who cuts in.

What it does: ``stream_rules(variant)`` gives the ``RoleRules`` of a variant:
one Pro, one Con and one moderator; the moderator alone decides whether to
cut a speaker off (and a cut discards the rest), and never where the variant
has nobody listening (``generic``, ``concise``); the debate ends on the
moderator's verdict or when the rounds run out, with the moderator's answer.

What it does not do: check the order of statements and ballots, or what was said.
"""

from __future__ import annotations

from debate_core.events.records import EndReason
from debate_core.kernel.consistency import FRAME, RoleRules
from protocols.handraiser.state import NEVER


def stream_rules(variant: str) -> RoleRules:
    listening = variant not in NEVER
    return RoleRules(
        roles=(("pro", 1, 1), ("con", 1, 1), ("moderator", 1, 1)),
        listeners=("moderator",),
        interrupters=("moderator",),
        suspends=False,
        emits=FRAME | {"listener_decision", "interrupted"} if listening else FRAME,
        reasons=frozenset({EndReason.VERDICT, EndReason.ROUNDS}),
        decisions={"judge": "moderator"},
    )
