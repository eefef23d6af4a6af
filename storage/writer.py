"""Turning a debate's events into rows: the events table and the analysis tables.

What it does: ``Writer`` takes a debate's events one at a time inside a
session and gathers the rows they make (every event into ``events``, with its
full payload; initial answers, plans, disclosures, listener decisions,
interventions and answer updates into their tables; utterances as rows that
later events update), then inserts them in bulk (``flush_rows``). It handles
every event type or ignores it explicitly (``EventFold``). ``debate_row`` and
``participant_rows`` make the rows of a debate's start; ``finish`` the values
of its end.

What it does not do: commit (the recorder and the import decide when).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Table, insert
from sqlalchemy.orm import Session

from debate_core.events import (
    AnswersUpdated,
    DebateEnded,
    DebateStarted,
    Event,
    InitialAnswersGiven,
    Interrupted,
    Intervention,
    ListenerDecision,
    PlansMade,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceRevised,
    event_to_dict,
)
from debate_core.events.fold import EventFold
from debate_core.status import DebateStatus, status_for
from storage.models import (
    AnswerRow,
    Base,
    DebateRow,
    DecisionRow,
    DisclosureRow,
    EventRow,
    InitialAnswerRow,
    InterventionRow,
    ParticipantRow,
    PlanRow,
    UtteranceRow,
)


def utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def debate_row(started: DebateStarted, experiment_id: str | None, status: DebateStatus) -> DebateRow:
    config = started.config
    return DebateRow(
        id=started.debate_id,
        created_at=utc(started.at),
        status=status.value,
        experiment_id=experiment_id,
        condition=config.condition.value if config.condition else None,
        protocol=config.protocol,
        variant=config.variant,
        params=config.params,
        model_id=started.model_id,
        seed=config.seed,
        token_budget=config.token_budget,
        question=config.question.text,
        options=list(config.question.options),
        correct_answer=config.question.answer,
        config=config.model_dump(mode="json"),
        engine_version=started.engine_version,
        public_tokens=0,
        turns=0,
        event_count=0,
    )


def participant_rows(started: DebateStarted) -> list[ParticipantRow]:
    return [
        ParticipantRow(
            debate_id=started.debate_id, position=i, name=a.name, persona=a.persona, seat=a.seat.value, role=a.role
        )
        for i, a in enumerate(started.config.agents)
    ]


class Writer(EventFold):
    """Turns one debate's events into rows inside a session (no commits here).

    Every event is written to ``events``; the handlers below add the analysis
    rows. The ignored types, and every protocol plugin's own event types
    (``PLUGIN_EVENTS = "default"``), live only in ``events`` (their payloads
    hold everything; their protocols add tables when their studies need them).
    """

    IGNORED = frozenset(
        {
            "debate_started",  # the debates and participants rows are written from it first
            "debate_ended",  # the recorder updates the debates row (see ``finish``)
            "speaker_selected",
            "silent_turn",
            "phase_started",
            "utterance_resumed",
            "signals_measured",
        }
    )
    # A protocol plugin's own event types live in ``events`` alone (``add`` wrote the row already).
    PLUGIN_EVENTS = "default"

    def default_for_plugin_event(self, event: Event) -> None:
        return None

    def __init__(self, session: Session, debate_id: str) -> None:
        self.session = session
        self.debate_id = debate_id
        self.count = 0
        # Append-only rows wait here and go in as one bulk insert per table at the next commit.
        self.rows: dict[type[Base], list[dict[str, Any]]] = defaultdict(list)
        # Utterance rows by id, so later events update them without a query: a
        # query would autoflush and take SQLite's write lock for the whole turn.
        self.utterances: dict[int, UtteranceRow] = {}

    def add(self, event: Event) -> None:
        self._row(
            EventRow,
            seq=event.seq,
            turn=event.turn,
            type=event.type,
            public_tokens=event.public_tokens,
            at=event.at,
            payload=event_to_dict(event),
        )
        self.count += 1
        self.dispatch(event)

    def _row(self, model: type[Base], **values: Any) -> None:
        self.rows[model].append({"debate_id": self.debate_id, **values})

    def flush_rows(self) -> None:
        """Insert the rows gathered so far, one bulk insert per table (the utterance rows are flushed too)."""
        for model, rows in self.rows.items():
            if rows:
                table = cast(Table, model.__table__)
                self.session.execute(insert(table), rows)  # Core: no ORM bookkeeping per row
                rows.clear()
        self.session.flush()

    def _initial_answers(self, event: InitialAnswersGiven) -> None:
        for a in event.answers:
            self._row(
                InitialAnswerRow,
                agent=a.agent,
                answer=a.answer,
                reason=a.reason,
                source=a.source.value,
                valid=a.valid,
                error=a.error,
                raw=a.raw,
            )

    def _plans_made(self, event: PlansMade) -> None:
        for r in event.plans:
            g = r.generation
            self._row(
                PlanRow,
                seq=event.seq,
                agent=r.agent,
                turn=event.turn,
                public_tokens=event.public_tokens,
                thought=r.plan.thought,
                action=r.plan.action.value,
                urgency=r.plan.urgency,
                purpose=r.plan.purpose,
                answer=r.plan.answer,
                allowed="|".join(a.value for a in r.allowed),
                source=r.source.value,
                valid=r.valid,
                error=r.error,
                raw=r.raw,
                latency_s=g.latency_s,
                prompt_tokens=g.prompt_tokens,
                cached_tokens=g.cached_tokens,
                completion_tokens=g.completion_tokens,
            )

    def _utterance_generated(self, event: UtteranceGenerated) -> None:
        self.utterances[event.utterance_id] = row = UtteranceRow(
            debate_id=self.debate_id,
            utterance_id=event.utterance_id,
            speaker=event.speaker,
            turn=event.turn,
            text=event.text,
            sentences=list(event.units),
            disclosed_count=0,
            discarded=[],
            interrupting=event.interrupting,
            completed=False,
            source=event.source.value,
            error=event.error,
            raw=event.raw,
            latency_s=event.generation.latency_s,
            completion_tokens=event.generation.completion_tokens,
        )
        self.session.add(row)

    def _utterance(self, utterance_id: int) -> UtteranceRow:
        row = self.utterances.get(utterance_id)
        if row is None:
            raise ValueError(f"utterance {utterance_id} of {self.debate_id} was never generated")
        return row

    def _unit_disclosed(self, event: UnitDisclosed) -> None:
        self._row(
            DisclosureRow,
            seq=event.seq,
            turn=event.turn,
            speaker=event.speaker,
            utterance_id=event.utterance_id,
            unit_index=event.index,
            units_total=event.total,
            text=event.text,
            tokens=event.tokens,
            public_tokens=event.public_tokens,
            interrupting=event.interrupting,
        )
        self._utterance(event.utterance_id).disclosed_count = event.index + 1

    def _interrupted(self, event: Interrupted) -> None:
        row = self._utterance(event.utterance_id)
        row.discarded = [*event.discarded, *([event.unfinished] if event.unfinished.strip() else [])]
        row.interrupted_by = event.interrupter

    def _utterance_completed(self, event: UtteranceCompleted) -> None:
        self._utterance(event.utterance_id).completed = True

    def _utterance_revised(self, event: UtteranceRevised) -> None:
        row = self._utterance(event.utterance_id)
        row.sentences = [*row.sentences[: row.disclosed_count], *event.units]
        row.discarded = [*row.discarded, *event.discarded, *([event.unfinished] if event.unfinished.strip() else [])]

    def _utterance_extended(self, event: UtteranceExtended) -> None:
        """More of a streamed utterance: its text, units and cost grow."""
        row = self._utterance(event.utterance_id)
        row.text += event.text
        row.raw = (row.raw or "") + (event.raw or "")
        row.sentences = [*row.sentences, *event.units]
        row.latency_s += event.generation.latency_s
        row.completion_tokens += event.generation.completion_tokens
        if event.error and not row.error:
            row.error = event.error

    def _listener_decision(self, event: ListenerDecision) -> None:
        self._row(
            DecisionRow,
            seq=event.seq,
            turn=event.turn,
            public_tokens=event.public_tokens,
            listener=event.listener,
            speaker=event.speaker,
            utterance_id=event.utterance_id,
            unit_index=event.unit_index,
            interrupt=event.interrupt,
            policy=event.policy,
            p_interrupt=event.p_interrupt,
            text=event.text,
            source=event.source.value,
            valid=event.valid,
            error=event.error,
            completion_tokens=event.generation.completion_tokens,
            latency_s=event.generation.latency_s,
        )

    def _intervention(self, event: Intervention) -> None:
        self._row(
            InterventionRow,
            seq=event.seq,
            turn=event.turn,
            author=event.author,
            target=event.target,
            kind=event.kind,
            text=event.text,
            blocking=event.blocking,
            utterance_id=event.utterance_id,
            unit_index=event.unit_index,
            source=event.source.value,
        )

    def _answers_updated(self, event: AnswersUpdated) -> None:
        for item in event.answers:
            self._row(
                AnswerRow,
                seq=event.seq,
                agent=item.agent,
                turn=event.turn,
                public_tokens=event.public_tokens,
                answer=item.answer,
                cause=event.cause,
            )

    def finish(self, ended: DebateEnded) -> dict[str, Any]:
        """The debate row's values once the debate has ended."""
        return {
            "status": status_for(ended.reason).value,
            "end_reason": ended.reason.value,
            "finished_at": utc(ended.at),
            "final_answer": ended.final_answer,
            "votes": {v.answer: v.count for v in ended.votes},
            "correct": ended.correct,
            "error": ended.error,
            "stats": ended.stats.model_dump(mode="json"),
        }
