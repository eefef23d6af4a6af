"""Debate driven by the model's own signals (SID, Chen et al.): a confidence-gated early exit and
attention-guided compression of the others' answers.

What it does: ``SidProtocol`` is the protocol ``sid``: agents without roles
(three in a study) answer a question, then revise after reading each other,
``rounds`` rounds in all (``loop``). The variants choose the signals used:

* ``mad``: none (Du et al.'s multi-agent debate, the base);
* ``compress``: each recipient keeps the top ``rho`` of the others' tokens
  by its attention to a focus instruction, widened to clauses;
* ``exit``: the first agent answers alone and ends the debate when its
  token statistics pass the gate (``gate``: ``alpha`` or ``fixed``);
* ``sid``: both; ``sid_c``: both, the gate a trained classifier
  (``classifier``, ``tau``); ``no_expand``: both, compression without
  widening to clauses;
* ``cot``: Table 3's single-round CoT: the first agent answers once, with
  SID's answer prompt, and that is the answer;
* ``summary``: Table 3's "w/o early exit, w/ token-level summary": MAD in
  which each recipient's own model summarizes the others' answers before
  it revises.

The gated variants need token statistics from every agent's backend, the
compressing ones attention; a backend that lacks them is refused before the
debate starts, with the capability named. A person may take any seat (their
answer is compressed for the others like anyone's; they read the others
whole; a person in the first seat has no signals, so no early exit).

What it does not do: word prompts (``prompts/``), parse replies (``forms``),
select spans (``compression``), judge confidence (``gate``) or make kernel
moves itself (``loop`` and ``state`` call the ``Table``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from debate_core.backends.base import Capability
from debate_core.backends.scripted import Responder
from debate_core.config import DebateConfig
from debate_core.errors import ConfigError
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.consistency import StreamRules
from debate_core.kernel.endings import FinalDecision, majority
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, Requirement, RoleSpec
from protocols.sid import gate
from protocols.sid.forms import sid_forms
from protocols.sid.loop import debate
from protocols.sid.params import SidParams
from protocols.sid.state import COMPRESSING, GATED, Council

if TYPE_CHECKING:
    from debate_core.kernel.table import Table


class SidProtocol(Protocol):
    """Agents answer and revise; the first answer's confidence may end it early; attention compresses."""

    name = "sid"
    title = "Self-signals debate: confidence-gated early exit, attention compression (SID, Chen et al.)"
    source = "Multi-LLM Debate Driven by Self Signals"
    variants = ("sid", "mad", "compress", "exit", "sid_c", "no_expand", "cot", "summary")
    Params = SidParams
    min_agents = 1  # single-round CoT seats one agent; every other variant debates (it has no roles: a study seats 3)
    SOLO = (RoleSpec("agent", "answers the question once, alone (single-round CoT)"),)
    # The paper states none; the authors' code samples with each model's own generation config (xuhang2019/SID
    # scripts/models.py L82-83: GenerationConfig.from_pretrained; scripts/exp_llm.py L89-90 changes only
    # max_new_tokens): the backend's default, which vLLM takes from that config (in process: 1.0, no top-p)
    study_temperature = None

    def __init__(self, variant: str, params: ProtocolParams) -> None:
        super().__init__(variant, params)
        self.model: gate.GateModel | None = None
        if variant == "sid_c" and self.settings.classifier:
            self.model = gate.GateModel.load(self.settings.classifier)  # a broken file fails here, before a debate
            wanted = self.settings.gate_features
            if wanted is not None and self.model.feature_set != wanted:
                raise ConfigError(
                    f"the gate {self.settings.classifier} reads the {self.model.feature_set} features "
                    f"({', '.join(self.model.features)}), not gate_features={wanted}: "
                    f"set gate_features={self.model.feature_set} or train a gate with --features {wanted}"
                )

    def assign_roles(self, config: DebateConfig) -> dict[str, str]:
        if self.variant == "sid_c" and self.model is None:
            raise ConfigError(
                "sid_c gates on a trained classifier: set the parameter classifier=PATH "
                "(what python -m experiments train-gate saved)"
            )
        if self.variant != "cot" and len(config.agents) < 2:
            raise ConfigError(f"sid's {self.variant} is a debate: it needs at least 2 agents, got {len(config.agents)}")
        return super().assign_roles(config)

    def role_specs(self) -> tuple[RoleSpec, ...]:
        """``cot`` seats one agent (its one role); the debating variants have no roles."""
        return self.SOLO if self.variant == "cot" else ()

    @property
    def settings(self) -> SidParams:
        assert isinstance(self.params, SidParams)
        return self.params

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        params = self.settings
        return sid_forms(
            params.answer_tokens, params.layer, measured=self.variant in GATED, all_layers=params.layers == "all"
        ).by_kind()

    def requirements(self) -> tuple[Requirement, ...]:
        needs = []
        if self.variant in GATED:
            alpha = self.variant != "sid_c" and self.settings.gate == "alpha"  # its threshold is alpha x ln|V|
            why = "the early-exit gate reads each answer's NLL and entropy" + (" against alpha ln|V|" if alpha else "")
            needs.append(Requirement(Capability.TOKEN_STATS, why, vocabulary=alpha))
        if self.variant in COMPRESSING:
            needs.append(Requirement(Capability.ATTENTION, "compression scores the others' tokens by attention"))
        return tuple(needs)

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.sid.demo import SidDemo

        return SidDemo(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.sid.consistency import stream_rules

        return stream_rules(variant)

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        """A debate stopped early ends with the majority of the answers so far, ties broken as ``ties`` says."""
        return majority(table.answer_list(), table.rng, self.settings.ties)

    def run(self, table: Table) -> Iterator[Event]:
        params = self.settings
        forms = sid_forms(
            params.answer_tokens, params.layer, measured=self.variant in GATED, all_layers=params.layers == "all"
        )
        yield from debate(Council(table, params, self.variant, forms, self.model))
