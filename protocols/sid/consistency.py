"""What a SID stream can hold beyond the kernel's rules: answers and revisions, signals and compressions.

What it does: ``stream_rules(variant)`` gives the ``RoleRules`` of a variant:
nobody is interrupted, decides, intervenes or is selected; signals are
measured only where the variant gates on them (and only there can the debate
exit early, with the first agent's answer), context is compressed only where
the variant compresses or summarizes; otherwise the debate ends when its rounds run out,
with the majority.

What it does not do: recompute the gate or the compression.
"""

from __future__ import annotations

from debate_core.events.records import EndReason
from debate_core.kernel.consistency import FRAME, RoleRules
from protocols.sid.state import COMPRESSING, GATED, SUMMARIZING


def stream_rules(variant: str) -> RoleRules:
    gated = variant in GATED
    emits = set(FRAME)
    if gated:
        emits.add("signals_measured")
    if variant in COMPRESSING or variant in SUMMARIZING:
        emits.add("context_compressed")
    return RoleRules(
        emits=frozenset(emits),
        reasons=frozenset({EndReason.ROUNDS, EndReason.EARLY_EXIT} if gated else {EndReason.ROUNDS}),
        decisions={"majority": None, "single": None} if gated else {"majority": None},
    )
