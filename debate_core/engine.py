"""The debate loop: a generator of events driven by a turn-taking protocol.

What it does: ``Debate(config, backend).events()`` runs the three stages of the
paper's framework (initial answers, multi-turn debate, final answer) and yields
one immutable event per thing that happens (see ``events`` for their order).
Each turn:

1. **Disclosure**: the floor holder's next queued unit becomes public and its
   tokens (by the backend's tokenizer) are added to the public count; with no
   queued unit the turn is a **silent turn**.
2. **Plans**: every agent except a floor holder that still has queued units
   writes an action plan; all model plans go to the backend as **one batch**.
3. **End check**: the debate ends in the turn in which the public count
   reaches ``token_budget``, with the majority of that turn's plan answers.
   A stall guard ends it after ``max_silent_turns`` consecutive silent turns or
   ``max_turns`` turns; ``stop()`` ends it at the next turn boundary.
4. **Selection**: the protocol picks the next speaker (or nobody). Picking
   someone else while the holder still has queued units is an
   **interruption**: the rest of the queue is discarded (recorded on the
   ``Interrupted`` event, never shown to agents). The new speaker generates
   its utterance at once; its first unit is disclosed next turn.

Model mistakes never stop a debate (see ``plans`` for the fallback). A
``BackendError`` ends it: a ``DebateEnded`` event with reason ``error`` is
yielded first, then the error is re-raised.

What it does not do: print, persist, or render. Consumers do that with events.
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel

from debate_core import __version__
from debate_core.backends.base import Backend
from debate_core.batching import BatchCost, run_batch
from debate_core.config import DebateConfig, normalize_label
from debate_core.errors import BackendError
from debate_core.events import (
    DebateEnded,
    DebateStarted,
    DebateStats,
    EndReason,
    Event,
    InitialAnswer,
    InitialAnswersGiven,
    Interrupted,
    PlanRecord,
    PlansMade,
    SentenceDisclosed,
    SilentTurn,
    Source,
    SpeakerSelected,
    UtteranceCompleted,
    UtteranceGenerated,
)
from debate_core.log import logger
from debate_core.plans import fallback_plan
from debate_core.prompting import PromptBuilder
from debate_core.protocols import SelectionContext, TurnProtocol, protocol_for
from debate_core.seats import Seat, build_seats
from debate_core.segmentation import Segmenter, default_segmenter
from debate_core.state import START_LINE, DebateState, Floor
from debate_core.views import HistoryLine, InitialAnswerView, LineKind, UtteranceView
from debate_core.voting import is_correct, majority

E = TypeVar("E", bound=BaseModel)


def _fields(result: Any) -> dict[str, Any]:
    """A seat result's fields as keyword arguments for the matching record."""
    return {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}


class Debate:
    """One debate. Iterate ``events()`` (once) to run it; ``stop()`` from any thread."""

    def __init__(
        self,
        config: DebateConfig,
        backend: Backend,
        *,
        seats: Mapping[str, Seat] | None = None,
        segmenter: Segmenter | None = None,
        protocol: TurnProtocol | None = None,
        debate_id: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self.backend = backend
        self.protocol = protocol or protocol_for(config.condition)
        self.segmenter = segmenter or default_segmenter()
        self.debate_id = debate_id or uuid.uuid4().hex
        self.prompts = PromptBuilder(config.prompt_layout, whole_messages=self.protocol.discloses_whole_messages)
        self.seats = build_seats(config, self.prompts, seats or {}, self.debate_id)
        self.state = DebateState(config)
        self._clock = clock
        self._rng = random.Random(config.seed)
        self._stop = threading.Event()
        self._started = False
        self._seq = 0
        self._utterance_ids = 0
        self._stats: dict[str, Any] = DebateStats().model_dump()
        self._cost = BatchCost()
        self._t0 = 0.0

    def stop(self) -> None:
        """Ask the debate to end at the next turn boundary (thread-safe)."""
        self._stop.set()
        for seat in self.seats.values():
            seat.cancel()

    def __iter__(self) -> Iterator[Event]:
        return self.events()

    def run(self) -> list[Event]:
        """Run to the end and return every event (convenience for scripts and tests)."""
        return list(self.events())

    # -- the loop -------------------------------------------------------------
    def events(self) -> Iterator[Event]:
        if self._started:
            raise RuntimeError("a Debate runs once; create a new Debate to run again")
        self._started = True
        self._t0 = time.perf_counter()
        whole = self.protocol.discloses_whole_messages
        yield self._emit(
            DebateStarted,
            debate_id=self.debate_id,
            config=self.config,
            protocol=self.protocol.name,
            model_id=self.backend.model_id,
            segmenter="whole-message" if whole else self.segmenter.name,
            engine_version=__version__,
        )
        try:
            yield from self._run()
        except BackendError as error:
            logger.error("debate %s failed: %s", self.debate_id, error)
            yield self._end(EndReason.ERROR, error=str(error))
            raise
        finally:
            release = getattr(self.backend, "release", None)
            if callable(release):
                release(self.debate_id)

    def _run(self) -> Iterator[Event]:
        state = self.state
        yield self._initial_stage()
        yield self._plan_turn(START_LINE)
        if self._stop.is_set():
            yield self._end(EndReason.STOPPED)
            return
        yield from self._select()
        while True:
            state.turn += 1
            if state.holder is not None:
                state.silent_streak = 0
                yield from self._disclose(state.holder)
            else:
                state.silent_streak += 1
                self._stats["silent_turns"] += 1
                state.history.append(HistoryLine(turn=state.turn, kind=LineKind.SILENCE))
                yield self._emit(SilentTurn, consecutive=state.silent_streak)
            yield self._plan_turn(state.last_line)
            reason = self._end_reason()
            if reason is not None:
                yield self._end(reason)
                return
            yield from self._select()

    def _end_reason(self) -> EndReason | None:
        state, config = self.state, self.config
        if state.public_tokens >= config.token_budget:
            return EndReason.BUDGET
        if state.silent_streak >= config.max_silent_turns:
            return EndReason.SILENCE
        if state.turn >= config.max_turns:
            return EndReason.MAX_TURNS
        if self._stop.is_set():
            return EndReason.STOPPED
        return None

    # -- stages -----------------------------------------------------------------
    def _initial_stage(self) -> InitialAnswersGiven:
        state, supplied = self.state, self.config.initial_answers
        labels = self.config.question.labels
        to_ask = [name for name in state.names if name not in supplied]
        views = {name: state.view(name, START_LINE, ()) for name in to_ask}
        results = run_batch(
            self.backend,
            to_ask,
            lambda name: self.seats[name].ask_initial(views[name]),
            lambda name, done: self.seats[name].receive_initial(views[name], done),
            self._cost,
        )
        answers: list[InitialAnswer] = []
        for name in state.names:
            if name in supplied:
                given = supplied[name]
                answer = normalize_label(given.answer, labels) if labels else given.answer.strip()
                item = InitialAnswer(agent=name, answer=answer, reason=given.reason, source=Source.SUPPLIED)
            else:
                item = InitialAnswer(agent=name, **_fields(results[name]))
            answers.append(item)
            state.answers[name] = item.answer
        state.initial = tuple(InitialAnswerView(a.agent, a.answer, a.reason) for a in answers)
        return self._emit(InitialAnswersGiven, answers=tuple(answers))

    def _plan_turn(self, event_line: HistoryLine) -> PlansMade:
        state = self.state
        holder = state.holder
        planners = [name for name in state.names if holder is None or name != holder.speaker]
        allowed = self.protocol.allowed_actions(holder is not None)
        views = {name: state.view(name, event_line, allowed) for name in planners}
        started = time.perf_counter()
        results = run_batch(
            self.backend,
            planners,
            lambda name: self.seats[name].ask_plan(views[name]),
            lambda name, done: self.seats[name].receive_plan(views[name], done),
            self._cost,
        )
        batch_latency = time.perf_counter() - started
        state.turn_plans = {}
        records = []
        for name in planners:
            result = results[name]
            state.record_plan(name, result.plan)
            if not result.valid:
                self._stats["invalid_plans"] += 1
                logger.debug("invalid plan from %s at turn %d: %s", name, state.turn, result.error)
            records.append(PlanRecord(agent=name, allowed=allowed, **_fields(result)))
        return self._emit(
            PlansMade,
            plans=tuple(records),
            answers=state.answer_list(),
            floor_holder=holder.speaker if holder else None,
            batch_latency_s=round(batch_latency, 6),
        )

    def _disclose(self, floor: Floor) -> Iterator[Event]:
        state = self.state
        index = floor.disclosed
        unit = floor.units[index]
        floor.disclosed += 1
        tokens = self.backend.count_tokens(unit)
        state.public_tokens += tokens
        self._stats["units_disclosed"] += 1
        interrupting = floor.interrupting if index == 0 else None
        state.history.append(
            HistoryLine(
                turn=state.turn,
                kind=LineKind.SPEECH,
                speaker=floor.speaker,
                text=unit,
                interrupting=interrupting,
                finished=not floor.held,
            )
        )
        yield self._emit(
            SentenceDisclosed,
            speaker=floor.speaker,
            utterance_id=floor.utterance_id,
            index=index,
            total=len(floor.units),
            text=unit,
            tokens=tokens,
            interrupting=interrupting,
        )
        if not floor.held:
            self._stats["completions"] += 1
            state.floor = None
            yield self._emit(
                UtteranceCompleted,
                speaker=floor.speaker,
                utterance_id=floor.utterance_id,
                units=len(floor.units),
            )

    def _select(self) -> Iterator[Event]:
        state = self.state
        holder = state.holder
        context = SelectionContext(
            agents=state.names,
            floor_holder=holder.speaker if holder else None,
            last_speaker=state.last_speaker,
            turn=state.turn,
        )
        selection = self.protocol.select(state.turn_plans, context, self._rng)
        if selection is None or (holder is not None and selection.speaker == holder.speaker):
            return
        speaker = selection.speaker
        yield self._emit(
            SpeakerSelected,
            speaker=speaker,
            rule=selection.rule,
            urgency=selection.urgency,
            candidates=selection.candidates,
            tie=selection.tie,
            interrupts=holder.speaker if holder else None,
        )
        if holder is not None:
            self._stats["interruptions"] += 1
            yield self._emit(
                Interrupted,
                interrupter=speaker,
                interrupted=holder.speaker,
                utterance_id=holder.utterance_id,
                disclosed_count=holder.disclosed,
                discarded=holder.remaining,
            )
        state.floor = None
        state.last_speaker = speaker
        yield self._generate_utterance(speaker, holder)

    def _generate_utterance(self, speaker: str, cut_off: Floor | None) -> UtteranceGenerated:
        state = self.state
        plan = state.latest_plan.get(speaker) or fallback_plan(state.answers[speaker])
        interrupting = cut_off.speaker if cut_off else None
        view = UtteranceView(
            base=state.view(speaker, state.last_line, ()),
            history=state.recent_history(),
            plan=plan,
            interrupting=interrupting,
            interrupted_text=cut_off.said if cut_off else "",
        )
        seat = self.seats[speaker]
        result = run_batch(
            self.backend,
            [speaker],
            lambda _: seat.ask_utterance(view),
            lambda _, done: seat.receive_utterance(view, done),
            self._cost,
        )[speaker]
        units = self.protocol.units(result.text, self.segmenter) if result.text else ()
        self._utterance_ids += 1
        error = result.error
        if result.text and not units:
            error = "the utterance has no sentence to disclose"
        if units:
            self._stats["utterances"] += 1
            state.floor = Floor(speaker, self._utterance_ids, units, interrupting)
        return self._emit(
            UtteranceGenerated,
            speaker=speaker,
            utterance_id=self._utterance_ids,
            text=result.text,
            units=units,
            interrupting=interrupting,
            source=result.source,
            error=error,
            raw=result.raw,
            generation=result.generation,
        )

    def _end(self, reason: EndReason, error: str | None = None) -> DebateEnded:
        state = self.state
        answers = state.answer_list()
        final, votes, tie = majority((a.answer for a in answers), self._rng)
        holder = state.holder
        self._stats.update(dataclasses.asdict(self._cost))
        self._stats["turns"] = state.turn
        self._stats["wall_time_s"] = round(time.perf_counter() - self._t0, 6)
        return self._emit(
            DebateEnded,
            reason=reason,
            final_answer=final,
            votes=votes,
            answers=answers,
            tie=tie,
            correct=is_correct(final, self.config.question.answer),
            undisclosed=holder.remaining if holder else (),
            error=error,
            stats=DebateStats(**self._stats),
        )

    # -- helpers ------------------------------------------------------------------
    def _emit(self, cls: type[E], **fields: Any) -> E:
        event = cls(
            seq=self._seq,
            turn=self.state.turn,
            public_tokens=self.state.public_tokens,
            at=round(self._clock(), 6),
            **fields,
        )
        self._seq += 1
        return event
