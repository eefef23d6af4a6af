"""Kimura's loop: the paper's three stages over the kernel's moves, turn by turn.

What it does: ``debate(turns, ending, conclude)`` runs one debate over a
``Turns`` (the table, the run state, the forms, the variant's turn rule and
the urgency mode) and yields its events: the initial answers
(``initial_stage``), then each turn the floor holder's next unit or a silent
turn, every other agent's action plan in one batch (``plan_turn``; with
measured urgency each plan's urgency is replaced by its confidence's), the end
check, and the selection of the next speaker (``select``), who generates its
utterance at once; choosing someone while the holder still has queued units
cuts the holder off.

What it does not do: keep what agents thought or planned (``state``), word
or parse requests (``forms``, ``prompting``), or pick the speaker by itself
(the variant's turn rule in ``rules`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from debate_core.config import normalize_label
from debate_core.events.acts import SignalsMeasured
from debate_core.events.codec import Event
from debate_core.events.records import ActionPlan, EndReason, InitialAnswer, PlanRecord, Source
from debate_core.events.types import InitialAnswersGiven, PlansMade, UtteranceGenerated
from debate_core.kernel.endings import FinalDecision
from debate_core.kernel.forms import FormResult
from debate_core.kernel.history import START_LINE, HistoryLine
from debate_core.kernel.signals import token_stats
from debate_core.log import logger
from protocols.kimura.confidence import CONFIDENT, UrgencyMode, effective, measured_urgency
from protocols.kimura.forms import KimuraForms
from protocols.kimura.plans import fallback_plan
from protocols.kimura.rules import SelectionContext, TurnRule
from protocols.kimura.state import KimuraState
from protocols.kimura.views import InitialAnswerView, UtteranceView

if TYPE_CHECKING:
    from debate_core.kernel.floor import Floor
    from debate_core.kernel.table import Table

EndCondition = Callable[["Table"], EndReason | None]


@dataclass(frozen=True)
class Turns:
    """What the loop works with: the table, the run state, the forms, the turn rule and the urgency mode."""

    table: Table
    state: KimuraState
    forms: KimuraForms
    rule: TurnRule
    urgency_mode: UrgencyMode


def debate(turns: Turns, ending: EndCondition, conclude: Callable[[EndReason], FinalDecision]) -> Iterator[Event]:
    """The paper's three stages: initial answers, the multi-turn debate (disclose or stay silent, plan, check
    the end, select), and the final answer ``conclude`` gives when ``ending`` (or a stop) ends it."""
    table, state = turns.table, turns.state
    yield initial_stage(turns)
    yield from plan_turn(turns, START_LINE)
    if table.stop_requested:
        yield table.finish(EndReason.STOPPED, conclude(EndReason.STOPPED))
        return
    yield from select(turns)
    while True:
        table.tick()
        if table.holder is not None:
            yield from table.disclose()
        else:
            yield table.silent_turn()
        yield from plan_turn(turns, state.last_line)
        reason = ending(table)
        if reason is not None:
            yield table.finish(reason, conclude(reason))
            return
        yield from select(turns)


def initial_stage(turns: Turns) -> InitialAnswersGiven:
    """Stage 1: each agent's initial answer (asked of those without a supplied one, in one batch)."""
    table, state, forms = turns.table, turns.state, turns.forms
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


def plan_turn(turns: Turns, event_line: HistoryLine) -> Iterator[PlansMade | SignalsMeasured]:
    """Every agent but a speaking floor holder writes an action plan, in one batch; with measured urgency,
    each plan's urgency is replaced by its confidence's."""
    table, state, forms = turns.table, turns.state, turns.forms
    holder = table.holder
    planners = [name for name in table.names if holder is None or name != holder.speaker]
    allowed = turns.rule.allowed_actions(holder is not None)
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
    if turns.urgency_mode != "stated":
        for name in planners:
            measured = _confidence(turns, name, replies[name])
            if measured is not None:
                yield measured


def _confidence(turns: Turns, name: str, reply: FormResult[ActionPlan]) -> SignalsMeasured | None:
    """The plan's urgency replaced by the one its confidence gives (see ``confidence``), and the record."""
    table, state = turns.table, turns.state
    completion = reply.completion
    stats = token_stats(completion) if completion is not None and completion.token_nll is not None else None
    vocab = table.router.backend_for(name, table.role_of(name)).vocab_size
    if stats is None or not vocab:
        return None
    measured, score, ceiling = measured_urgency(stats, vocab)
    plan = reply.value
    used = effective(plan.urgency, measured, turns.urgency_mode)
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


def select(turns: Turns) -> Iterator[Event]:
    """The variant's turn rule picks the next speaker; someone other than a speaking holder interrupts."""
    table, state = turns.table, turns.state
    holder = table.holder
    context = SelectionContext(
        agents=table.names,
        floor_holder=holder.speaker if holder else None,
        last_speaker=state.last_speaker,
        turn=table.turn,
    )
    selection = turns.rule.select(state.turn_plans, context, table.rng)
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
    yield _generate_utterance(turns, speaker, holder)


def _generate_utterance(turns: Turns, speaker: str, cut_off: Floor | None) -> UtteranceGenerated:
    table, state = turns.table, turns.state
    plan = state.latest_plan.get(speaker) or fallback_plan(table.answers[speaker])
    interrupting = cut_off.speaker if cut_off else None
    view = UtteranceView(
        base=state.view(speaker, state.last_line, ()),
        history=state.recent_history(),
        plan=plan,
        interrupting=interrupting,
        interrupted_text=cut_off.said if cut_off else "",
    )
    reply = table.ask(turns.forms.utterance, [speaker], lambda _: view)[speaker]
    return table.say(speaker, reply, chunker=turns.rule.chunker(table.sentences), interrupting=interrupting)
