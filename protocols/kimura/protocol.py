"""Kimura et al.'s interruptible debate, as a protocol that owns its loop over the kernel.

What it does: ``KimuraProtocol.run(table)`` runs the three stages of the
paper's framework (initial answers, multi-turn debate, final answer). Each
turn:

1. **Disclosure**: the floor holder's next queued unit becomes public and its
   tokens are added to the public count; with no queued unit the turn is a
   **silent turn**.
2. **Plans**: every agent except a floor holder that still has queued units
   writes an action plan; all model plans go to the backend as **one batch**.
3. **End check**: the debate ends in the turn in which the public count
   reaches ``token_budget``, with the majority of that turn's plan answers.
   A stall guard ends it after ``max_silent_turns`` consecutive silent turns or
   ``max_turns`` turns; ``stop()`` ends it.
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
finishing); it only decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from debate_core.backends.base import Capability, Signals
from debate_core.backends.scripted import Responder
from debate_core.config import Condition, DebateConfig, normalize_label
from debate_core.events.acts import SignalsMeasured
from debate_core.events.codec import Event
from debate_core.events.records import ActionPlan, EndReason, InitialAnswer, PlanRecord, Source
from debate_core.events.types import InitialAnswersGiven, PlansMade, UtteranceGenerated
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
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.history import START_LINE, HistoryLine
from debate_core.kernel.signals import token_stats
from debate_core.log import logger
from debate_core.protocols.base import Protocol, ProtocolParams, Requirement
from protocols.kimura.confidence import CONFIDENT, UrgencyMode, effective, measured_urgency
from protocols.kimura.forms import KimuraForms, kimura_forms
from protocols.kimura.plans import fallback_plan
from protocols.kimura.prompting import PromptBuilder
from protocols.kimura.rules import SelectionContext, TurnRule, rule_for
from protocols.kimura.state import KimuraState
from protocols.kimura.views import InitialAnswerView, UtteranceView

if TYPE_CHECKING:
    from debate_core.kernel.floor import Floor
    from debate_core.kernel.table import Table


class KimuraParams(ProtocolParams):
    """Kimura's settings live in ``DebateConfig`` (budget, guards, layout), shared with the study harness;
    ``urgency`` (beyond the paper): the urgency the turn rule uses, ``stated`` in the plan (the paper),
    measured from the model's ``confidence`` in its plan, or ``both`` averaged (see ``confidence``)."""

    urgency: UrgencyMode = Field("stated", description="the urgency used: stated, confidence, or both")


class KimuraProtocol(Protocol):
    """Interruptible multi-agent debate: action plans with urgency, sentence disclosure, interruption."""

    name = "kimura"
    title = "Interruptible debate (Kimura et al.)"
    source = "Interruptible Multi-Agent Debate: Sentence-Level Disclosure and Urgency-Based Turn-Taking"
    variants = tuple(c.value for c in (Condition.INTERRUPTIBLE, Condition.DYNAMIC, Condition.FIXED))
    Params = KimuraParams
    uses_budget = True
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

    # -- the loop -------------------------------------------------------------------------------
    def run(self, table: Table) -> Iterator[Event]:
        self._state = state = KimuraState(table)
        forms = kimura_forms(PromptBuilder(table.config.prompt_layout, whole_messages=self.rule.whole_messages))
        forms = self._measured(forms)
        yield self._initial_stage(table, state, forms)
        yield from self._plan_turn(table, state, forms, START_LINE)
        if table.stop_requested:
            yield table.finish(EndReason.STOPPED, self.conclude(table, EndReason.STOPPED))
            return
        yield from self._select(table, state, forms)
        while True:
            table.tick()
            if table.holder is not None:
                yield from table.disclose()
            else:
                yield table.silent_turn()
            yield from self._plan_turn(table, state, forms, state.last_line)
            reason = self._ending(table)
            if reason is not None:
                yield table.finish(reason, self.conclude(table, reason))
                return
            yield from self._select(table, state, forms)

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        answers = self._state.answer_list() if self._state is not None else table.answer_list()
        return majority(answers, table.rng)

    # -- stages ----------------------------------------------------------------------------------
    def _initial_stage(self, table: Table, state: KimuraState, forms: KimuraForms) -> InitialAnswersGiven:
        supplied = table.config.initial_answers
        labels = table.config.question.labels
        to_ask = [name for name in table.names if name not in supplied]
        replies = table.ask(forms.initial, to_ask, lambda name: state.view(name, START_LINE, ()))
        answers: list[InitialAnswer] = []
        for name in table.names:
            if name in supplied:
                given = supplied[name]
                answer = normalize_label(given.answer, labels) if labels else given.answer.strip()
                item = InitialAnswer(agent=name, answer=answer, reason=given.reason, source=Source.SUPPLIED)
            else:
                reply = replies[name]
                item = InitialAnswer(agent=name, answer=reply.value[0], reason=reply.value[1], **reply.record())
            answers.append(item)
            table.answers[name] = item.answer
        state.initial = tuple(InitialAnswerView(a.agent, a.answer, a.reason) for a in answers)
        return table.emit(InitialAnswersGiven, answers=tuple(answers))

    def _plan_turn(
        self, table: Table, state: KimuraState, forms: KimuraForms, event_line: HistoryLine
    ) -> Iterator[PlansMade | SignalsMeasured]:
        holder = table.holder
        planners = [name for name in table.names if holder is None or name != holder.speaker]
        allowed = self.rule.allowed_actions(holder is not None)
        replies = table.ask(forms.plan, planners, lambda name: state.view(name, event_line, allowed))
        state.turn_plans = {}
        records = []
        for name in planners:
            reply = replies[name]
            state.record_plan(name, reply.value)
            if not reply.valid:
                table.count("invalid_plans")
                logger.debug("invalid plan from %s at turn %d: %s", name, table.turn, reply.error)
            records.append(PlanRecord(agent=name, plan=reply.value, allowed=allowed, **reply.record()))
        yield table.emit(
            PlansMade,
            plans=tuple(records),
            answers=state.answer_list(),
            floor_holder=holder.speaker if holder else None,
            batch_latency_s=round(replies.latency_s, 6),
        )
        if self.urgency_mode != "stated":
            for name in planners:
                measured = self._confidence(table, state, name, replies[name])
                if measured is not None:
                    yield measured

    def _confidence(
        self, table: Table, state: KimuraState, name: str, reply: FormResult[ActionPlan]
    ) -> SignalsMeasured | None:
        """The plan's urgency replaced by the one its confidence gives (see ``confidence``), and the record."""
        completion = reply.completion
        stats = token_stats(completion) if completion is not None and completion.token_nll is not None else None
        vocab = table.router.backend_for(name, table.role_of(name)).vocab_size
        if stats is None or not vocab:
            return None
        measured, score, ceiling = measured_urgency(stats, vocab)
        plan = reply.value
        used = effective(plan.urgency, measured, self.urgency_mode)
        state.turn_plans[name] = plan.model_copy(update={"urgency": used})
        rule = f"urgency from confidence: {measured} (stated {plan.urgency}, used {used})"
        threshold = CONFIDENT * ceiling
        return table.emit(
            SignalsMeasured,
            agent=name,
            stats=stats,
            score=score,
            threshold=threshold,
            rule=rule,
            passed=score <= threshold,
        )

    def _select(self, table: Table, state: KimuraState, forms: KimuraForms) -> Iterator[Event]:
        holder = table.holder
        context = SelectionContext(
            agents=table.names,
            floor_holder=holder.speaker if holder else None,
            last_speaker=state.last_speaker,
            turn=table.turn,
        )
        selection = self.rule.select(state.turn_plans, context, table.rng)
        if selection is None or (holder is not None and selection.speaker == holder.speaker):
            return
        speaker = selection.speaker
        yield table.give_floor(
            speaker,
            rule=selection.rule,
            urgency=selection.urgency,
            candidates=selection.candidates,
            tie=selection.tie,
            interrupts=holder.speaker if holder else None,
        )
        if holder is not None:
            yield table.cut(speaker)
        table.floor = None
        state.last_speaker = speaker
        yield self._generate_utterance(table, state, forms, speaker, holder)

    def _generate_utterance(
        self, table: Table, state: KimuraState, forms: KimuraForms, speaker: str, cut_off: Floor | None
    ) -> UtteranceGenerated:
        plan = state.latest_plan.get(speaker) or fallback_plan(table.answers[speaker])
        interrupting = cut_off.speaker if cut_off else None
        view = UtteranceView(
            base=state.view(speaker, state.last_line, ()),
            history=state.recent_history(),
            plan=plan,
            interrupting=interrupting,
            interrupted_text=cut_off.said if cut_off else "",
        )
        reply = table.ask(forms.utterance, [speaker], lambda _: view)[speaker]
        return table.say(speaker, reply, chunker=self.rule.chunker(table.sentences), interrupting=interrupting)
