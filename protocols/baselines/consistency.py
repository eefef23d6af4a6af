"""What a baselines stream can hold beyond the kernel's rules: one solver (or the debaters), speaking, nothing else.

What it does: ``stream_rules(variant)`` gives the ``RoleRules`` of a variant. A single-agent one:
one solver and nobody else, who only speaks (no listener decisions, interruptions or
interventions); the debate ends when its phases are done, with the solver's answer (``single``)
or, in ``self_consistency``, the majority of its samples. ``parallel``, ``dmad``, ``rtc`` and
``rpd``: two or more debaters who only speak, the debate ending after its rounds with the
majority of their answers (``rtc``: after its rounds or on a consensus, with the
confidence-weighted vote); ``rpd`` with a summarizer (``strategy=simultaneous_summarizer``) may
seat one ``summarizer`` too, who speaks (its summaries). ``tar``: the two sides and the judge,
ending on the judge's verdict (after a round, or after the last).

What it does not do: check the order of the phases, or what was said.
"""

from __future__ import annotations

from debate_core.events.records import EndReason
from debate_core.kernel.consistency import FRAME, RoleRules
from protocols.baselines.params import BaselinesParams


def stream_rules(variant: str, params: BaselinesParams) -> RoleRules:
    if variant == "tar":
        return RoleRules(
            roles=(("affirmative", 1, 1), ("negative", 1, 1), ("judge", 1, 1)),
            speakers=("affirmative", "negative", "judge"),
            listeners=(),
            interrupters=(),
            authors=(),
            emits=FRAME,
            reasons=frozenset({EndReason.VERDICT, EndReason.ROUNDS}),
            decisions={"judge": "judge"},
        )
    if variant in ("parallel", "dmad", "rtc", "rpd"):
        rtc = variant == "rtc"
        summarized = variant == "rpd" and params.strategy == "simultaneous_summarizer"
        return RoleRules(
            roles=(("debater", 2, None), ("summarizer", 0, 1)) if summarized else (("debater", 2, None),),
            speakers=("debater", "summarizer") if summarized else ("debater",),
            listeners=(),
            interrupters=(),
            authors=(),
            emits=FRAME,
            reasons=frozenset({EndReason.ROUNDS, EndReason.CONSENSUS} if rtc else {EndReason.ROUNDS}),
            decisions={"confidence_weighted": None} if rtc else {"majority": None},
        )
    decisions: dict[str, str | None] = {"majority": None} if variant == "self_consistency" else {"single": "solver"}
    return RoleRules(
        roles=(("solver", 1, 1),),
        speakers=("solver",),
        listeners=(),
        interrupters=(),
        authors=(),
        emits=FRAME,
        reasons=frozenset({EndReason.PHASES_DONE}),
        decisions=decisions,
    )
