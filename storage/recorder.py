"""Writing a debate's events to the store as they happen.

What it does: ``Recorder.record(events)`` passes a debate's event stream
through unchanged while writing every event (its JSON payload) and the
analysis rows derived from it (``Writer``, which handles every event type or
ignores it explicitly). It commits when the debate starts, whenever a turn,
a phase or a round's answers are complete (``PlansMade``, ``AnswersUpdated``,
``PhaseStarted``; and at the first event of a new turn when the last turn had
no such commit), and at the end,
so a process killed mid-debate loses at most the step in progress. The debate
row carries the recording process's host and pid and a heartbeat;
``Store.recover`` uses them to mark debates whose process died as
``incomplete``.

Status at the end (``debate_core.status``): ``finished`` (the protocol ended
it), ``aborted`` (stopped by the user, or the consumer stopped iterating),
``failed`` (a backend error, or any exception while running).

What it does not do: read debates back (``reading`` does), or change events.
"""

from __future__ import annotations

import os
import socket
from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Engine, Table, insert, update
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
    UtteranceGenerated,
    UtteranceRevised,
    event_to_dict,
)
from debate_core.events.fold import EventFold
from debate_core.status import DebateStatus, status_for
from storage.db import writer
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

# Events after which everything so far is committed (besides a new turn and the end).
COMMIT_AFTER = frozenset({"plans_made", "answers_updated", "phase_started"})


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
    rows. The ignored types live only in ``events`` (their payloads hold
    everything; their protocols add tables when their studies need them).
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
            "context_compressed",
            "analysis_made",
            "action_composed",
        }
    )

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
        row.discarded = list(event.discarded)
        row.interrupted_by = event.interrupter

    def _utterance_completed(self, event: UtteranceCompleted) -> None:
        self._utterance(event.utterance_id).completed = True

    def _utterance_revised(self, event: UtteranceRevised) -> None:
        row = self._utterance(event.utterance_id)
        row.sentences = [*row.sentences[: row.disclosed_count], *event.units]
        row.discarded = [*row.discarded, *event.discarded]

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


class Recorder:
    """Records one debate at a time; use one recorder per running debate."""

    def __init__(self, engine: Engine, *, experiment_id: str | None = None) -> None:
        self.engine = writer(engine)
        self.experiment_id = experiment_id
        self.debate_id: str | None = None

    def record(self, events: Iterable[Event]) -> Iterator[Event]:
        """Yield ``events`` unchanged while persisting them."""
        iterator = iter(events)
        first = next(iterator, None)
        if first is None:
            return
        if not isinstance(first, DebateStarted):
            raise ValueError(f"a debate's first event must be debate_started, got {first.type}")
        self.debate_id = first.debate_id
        ended: DebateEnded | None = None
        session = Session(self.engine, expire_on_commit=False)
        rows = Writer(session, first.debate_id)
        try:
            session.add(debate_row(first, self.experiment_id, DebateStatus.RUNNING))
            session.flush()
            session.add_all(participant_rows(first))
            rows.add(first)
            self._commit(session, rows, first)
            yield first
            turn = committed = first.turn
            for event in iterator:
                if event.turn != turn:  # a new turn: commit the last one if nothing did
                    if committed != turn:
                        self._commit(session, rows, event)
                    turn = event.turn
                rows.add(event)
                if isinstance(event, DebateEnded):
                    ended = event
                    self._commit(session, rows, event, rows.finish(event))
                elif event.type in COMMIT_AFTER:
                    self._commit(session, rows, event)
                    committed = event.turn
                yield event
        except GeneratorExit:
            if ended is None:
                self._close(session, rows, DebateStatus.ABORTED, "the consumer stopped reading events")
            raise
        except BaseException as error:
            if ended is None:
                self._close(session, rows, DebateStatus.FAILED, f"{type(error).__name__}: {error}")
            raise
        else:
            if ended is None:
                self._close(session, rows, DebateStatus.INCOMPLETE, "the event stream ended without debate_ended")
        finally:
            session.close()

    def _commit(self, session: Session, rows: Writer, event: Event, extra: dict[str, Any] | None = None) -> None:
        rows.flush_rows()
        values = {
            "public_tokens": event.public_tokens,
            "turns": event.turn,
            "event_count": rows.count,
            "heartbeat_at": datetime.now(UTC),
            "owner_host": socket.gethostname(),
            "owner_pid": os.getpid(),
            **(extra or {}),
        }
        session.execute(update(DebateRow).where(DebateRow.id == rows.debate_id).values(**values))
        session.commit()

    def _close(self, session: Session, rows: Writer, status: DebateStatus, error: str) -> None:
        """Keep every event written so far and mark how the debate ended."""
        try:
            rows.flush_rows()
            session.commit()
        except Exception:
            session.rollback()
        session.execute(
            update(DebateRow)
            .where(DebateRow.id == rows.debate_id)
            .values(status=status.value, error=error, event_count=rows.count, finished_at=datetime.now(UTC))
        )
        session.commit()
