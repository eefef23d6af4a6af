"""What a Text Pictionary stream can hold beyond the kernel's rules: a describer, and a guesser who cuts in.

What it does: ``stream_rules(variant)`` gives the ``RoleRules`` of a variant:
one describer and one guesser; the guesser alone decides whether to cut the
describer off (a cut discards the rest), and never where the variant has
nobody listening (``generic``, ``concise``); the game ends on a right guess
(``verdict``), a reveal (``early_exit``) or the round limit (``rounds``),
with the guesser's answer (rule ``single``).

What it does not do: check the order of descriptions and guesses, or what was said.
"""

from __future__ import annotations

from debate_core.events.records import EndReason
from debate_core.kernel.consistency import FRAME, RoleRules
from protocols.handraiser.state import NEVER


def stream_rules(variant: str) -> RoleRules:
    listening = variant not in NEVER
    return RoleRules(
        roles=(("describer", 1, 1), ("guesser", 1, 1)),
        listeners=("guesser",),
        interrupters=("guesser",),
        suspends=False,
        emits=FRAME | {"listener_decision", "interrupted"} if listening else FRAME,
        reasons=frozenset({EndReason.VERDICT, EndReason.EARLY_EXIT, EndReason.ROUNDS}),
        decisions={"single": "guesser"},
    )
