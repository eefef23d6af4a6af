"""Kimura et al.'s interruptible debate, as a protocol that owns its loop over the kernel.

What it does: ``KimuraProtocol`` declares the protocol (its variants, the
paper's conditions; its parameters, ``params``; its forms and requirements)
and ``run(table)`` hands the debate to its loop (``loop``), which runs the
three stages of the paper's framework (initial answers, multi-turn debate,
final answer). Each turn:

1. **Disclosure**: the floor holder's next queued unit becomes public and its
   tokens are added to the public count; with no queued unit the turn is a
   **silent turn**.
2. **Plans**: every agent except a floor holder that still has queued units
   writes an action plan; all model plans go to the backend as **one batch**.
3. **End check**: the debate ends in the turn in which the public count
   reaches ``token_budget``, with the majority of that turn's plan answers.
   A stall guard ends it after ``max_silent_turns`` consecutive silent turns or
   ``max_turns`` turns, when they are set (a paper study sets neither: the
   budget alone ends it, as in the paper); ``stop()`` ends it.
4. **Selection**: the variant's turn rule picks the next speaker (or nobody).
   Picking someone else while the holder still has queued units is an
   **interruption**: the rest of the queue is discarded (recorded on the
   ``Interrupted`` event, never shown to agents). The new speaker generates
   its utterance at once; its first unit is disclosed next turn.

The variants are the paper's conditions (``rules``): ``interruptible``
(sentences, urgency, interruption), ``dynamic`` and ``fixed`` (whole messages,
by urgency or in seat order). Model mistakes never stop a debate (see
``forms`` for the fallbacks).

What it does not do: anything the kernel does (asking, disclosing, cutting,
finishing), or the turns themselves (``loop``); it only decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from debate_core.backends.base import Capability, Signals
from debate_core.backends.scripted import Responder
from debate_core.config import Condition, DebateConfig
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.consistency import StreamRules
from debate_core.kernel.endings import (
    FinalDecision,
    budget_spent,
    first_of,
    majority,
    silence_streak,
    stop_requested,
    turn_limit,
)
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, Requirement
from protocols.kimura.confidence import UrgencyMode
from protocols.kimura.forms import KimuraForms, kimura_forms
from protocols.kimura.loop import Turns, debate
from protocols.kimura.params import KimuraParams
from protocols.kimura.prompting import PromptBuilder
from protocols.kimura.rules import TurnRule, rule_for
from protocols.kimura.state import KimuraState

if TYPE_CHECKING:
    from debate_core.kernel.table import Table


class KimuraProtocol(Protocol):
    """Interruptible multi-agent debate: action plans with urgency, sentence disclosure, interruption."""

    name = "kimura"
    title = "Interruptible debate (Kimura et al.)"
    source = "Interruptible Multi-Agent Debate: Sentence-Level Disclosure and Urgency-Based Turn-Taking"
    variants = tuple(c.value for c in (Condition.INTERRUPTIBLE, Condition.DYNAMIC, Condition.FIXED))
    Params = KimuraParams
    uses_budget = True
    study_temperature = 0.3  # Table IV
    human_controls = "floor"

    def __init__(self, variant: str, params: ProtocolParams) -> None:
        super().__init__(variant, params)
        self.rule: TurnRule = rule_for(variant)
        self._state: KimuraState | None = None
        self._ending = first_of(budget_spent, silence_streak, turn_limit, stop_requested)

    @property
    def label(self) -> str:
        return self.variant

    @property
    def urgency_mode(self) -> UrgencyMode:
        assert isinstance(self.params, KimuraParams)
        return self.params.urgency

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return self._measured(kimura_forms(PromptBuilder())).by_kind()

    def requirements(self) -> tuple[Requirement, ...]:
        if self.urgency_mode == "stated":
            return ()
        return (Requirement(Capability.TOKEN_STATS, "urgency=confidence reads each plan's NLL and entropy"),)

    def _measured(self, forms: KimuraForms) -> KimuraForms:
        if self.urgency_mode == "stated":
            return forms
        return dataclasses.replace(forms, plan=dataclasses.replace(forms.plan, signals=Signals(token_stats=True)))

    def unit_name(self, table: Table) -> str:
        return self.rule.chunker(table.sentences).name

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.kimura.demo import DemoScript

        return DemoScript(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.kimura.consistency import KimuraRules

        return KimuraRules(variant, config)

    # -- the loop (``loop``) ----------------------------------------------------------------------
    def run(self, table: Table) -> Iterator[Event]:
        assert isinstance(self.params, KimuraParams)
        params = self.params
        self._state = state = KimuraState(table, params.history_window, params.prompt_layout)
        prompts = PromptBuilder(params.prompt_layout, whole_messages=self.rule.whole_messages)
        forms = self._measured(kimura_forms(prompts, params.utterance_max_new_tokens))
        turns = Turns(table, state, forms, self.rule, self.urgency_mode)
        yield from debate(turns, self._ending, lambda reason: self.conclude(table, reason))

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        answers = self._state.answer_list() if self._state is not None else table.answer_list()
        return majority(answers, table.rng)
