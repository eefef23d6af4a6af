"""What a Parliament stream can hold beyond the kernel's rules: the prover's and the critic's parts.

What it does: ``stream_rules(variant, params)`` gives the ``RoleRules`` of a
variant: a prover (and, but in ``cot``, a critic) and nobody else; both may
speak; only the critic decides, raises points of information (which suspend
the prover's speech) or asks questions; points of information, resumptions,
revisions and speeches generated as they stream only where the variant and
its parameters make them (British Parliament; Socratic dialogue streamed); the debate ends when its phases
(British, CoT) or rounds (Congress, Socratic) are done, with the prover's
answer.

What it does not do: check the order of the phases, or what was said.
"""

from __future__ import annotations

from debate_core.events.records import EndReason
from debate_core.kernel.consistency import FRAME, RoleRules
from protocols.parliament.params import ParliamentParams


def stream_rules(variant: str, params: ParliamentParams) -> RoleRules:
    emits = set(FRAME)
    if variant == "british":
        emits |= {"listener_decision", "intervention", "interrupted", "utterance_resumed", "utterance_extended"}
        if params.resume == "regenerate":
            emits.add("utterance_revised")
    elif variant == "socratic" and params.socratic_mode == "streaming":
        emits |= {"listener_decision", "intervention", "utterance_revised", "utterance_extended"}
    solo = variant == "cot"
    return RoleRules(
        roles=(("prover", 1, 1),) if solo else (("prover", 1, 1), ("critic", 1, 1)),
        speakers=("prover",) if solo else ("prover", "critic"),
        listeners=("critic",),
        interrupters=("critic",),
        authors=("critic",),
        suspends=True,
        emits=frozenset(emits),
        reasons=frozenset({EndReason.PHASES_DONE if variant in ("british", "cot") else EndReason.ROUNDS}),
        decisions={"single": "prover"},
    )
