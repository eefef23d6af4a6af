"""What a Meeting Scheduling stream can hold beyond the kernel's rules: a traveler, two planners, who cuts in.

What it does: ``stream_rules(variant, symmetric)`` gives the ``RoleRules`` of
a variant: one traveler, one ``planner_a``, one ``planner_b``; the
traveler alone decides whether to cut a speaker off (a cut discards the
rest), every seat under ``symmetric``, and nobody where the variant has
nobody listening (``generic``, ``concise``); each message hands the floor
to whom it was written (``speaker_selected``); the game ends on a schedule
(``verdict``) or the round limit (``rounds``), with the traveler's answer
(rule ``single``).

What it does not do: check who wrote to whom or what a schedule says.
"""

from __future__ import annotations

from debate_core.events.records import EndReason
from debate_core.kernel.consistency import FRAME, RoleRules
from protocols.handraiser.state import NEVER

ROLES = ("traveler", "planner_a", "planner_b")


def stream_rules(variant: str, symmetric: bool) -> RoleRules:
    listening = variant not in NEVER
    listeners = ROLES if symmetric else ("traveler",)
    emits = FRAME | {"speaker_selected"}
    return RoleRules(
        roles=tuple((role, 1, 1) for role in ROLES),
        listeners=listeners,
        interrupters=listeners,
        suspends=False,
        emits=emits | {"listener_decision", "interrupted"} if listening else emits,
        reasons=frozenset({EndReason.VERDICT, EndReason.ROUNDS}),
        decisions={"single": "traveler"},
    )
