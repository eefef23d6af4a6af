"""What an ACE stream can hold beyond the kernel's rules: debaters who speak and an observer who never does.

What it does: ``stream_rules(variant)`` gives the ``RoleRules`` of a variant:
two debaters and one observer (any number of debaters, and no observer, in
the ``parallel`` baseline); only debaters speak and compose acts, only the
observer analyses; the debate ends when the observer stops it, at a round
cap (``rounds``) or at the safety net (``max_turns``), with the debaters'
consensus, their majority, or the observer's pick.

What it does not do: check the order of analyse, compose and execute, or what was said.
"""

from __future__ import annotations

from debate_core.events.records import EndReason
from debate_core.kernel.consistency import FRAME, RoleRules


def stream_rules(variant: str) -> RoleRules:
    if variant == "parallel":
        return RoleRules(
            roles=(("debater", 2, None),),
            speakers=("debater",),
            emits=FRAME,
            reasons=frozenset({EndReason.ROUNDS}),
            decisions={"majority": None},
        )
    return RoleRules(
        roles=(("debater", 2, 2), ("observer", 1, 1)),
        speakers=("debater",),
        actors=(
            ("analysis_made", "analyst", ("observer",), "analyse"),
            ("action_composed", "agent", ("debater",), "compose acts"),
        ),
        emits=FRAME | {"analysis_made", "action_composed"},
        reasons=frozenset({EndReason.OBSERVER_STOP, EndReason.ROUNDS, EndReason.MAX_TURNS}),
        decisions={"consensus": None, "majority": None, "judge": "observer"},
    )
