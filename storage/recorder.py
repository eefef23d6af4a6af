"""Writing a debate's events to the store as they happen.

What it does: ``Recorder.record(events)`` passes a debate's event stream
through unchanged while writing every event (its JSON payload) and the
analysis rows derived from it. It commits when the debate starts, at every
turn's ``PlansMade`` (each turn has exactly one) and at the end, so a process
killed mid-debate loses at most the turn in progress. The debate row carries
the recording process's host and pid and a heartbeat; ``Store.recover`` uses
them to mark debates whose process died as ``incomplete``.

Status at the end: ``finished`` (budget, silence or turn limit), ``aborted``
(stopped by the user, or the consumer stopped iterating), ``failed`` (a
backend error, or any exception while running).

What it does not do: read debates back (``store`` does), or change events.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, update
from sqlalchemy.orm import Session

from debate_core.events import (
    DebateEnded,
    DebateStarted,
    EndReason,
    Event,
    InitialAnswersGiven,
    Interrupted,
    PlansMade,
    SentenceDisclosed,
    UtteranceCompleted,
    UtteranceGenerated,
    event_to_dict,
)
from storage.db import writer
from storage.models import (
    DebateRow,
    DisclosureRow,
    EventRow,
    InitialAnswerRow,
    ParticipantRow,
    PlanRow,
    UtteranceRow,
)

STATUS_BY_REASON = {
    EndReason.BUDGET: "finished",
    EndReason.SILENCE: "finished",
    EndReason.MAX_TURNS: "finished",
    EndReason.STOPPED: "aborted",
    EndReason.ERROR: "failed",
}


def utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def debate_row(started: DebateStarted, experiment_id: str | None, status: str) -> DebateRow:
    config = started.config
    return DebateRow(
        id=started.debate_id,
        created_at=utc(started.at),
        status=status,
        experiment_id=experiment_id,
        condition=config.condition.value,
        protocol=started.protocol,
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
        ParticipantRow(debate_id=started.debate_id, position=i, name=a.name, persona=a.persona, seat=a.seat.value)
        for i, a in enumerate(started.config.agents)
    ]


class Writer:
    """Turns one debate's events into rows inside a session (no commits here)."""

    def __init__(self, session: Session, debate_id: str) -> None:
        self.session = session
        self.debate_id = debate_id
        self.count = 0
        # Utterance rows by id, so later events update them without a query: a
        # query would autoflush and take SQLite's write lock for the whole turn.
        self.utterances: dict[int, UtteranceRow] = {}

    def add(self, event: Event) -> None:
        session, debate_id = self.session, self.debate_id
        session.add(
            EventRow(
                debate_id=debate_id,
                seq=event.seq,
                turn=event.turn,
                type=event.type,
                public_tokens=event.public_tokens,
                at=event.at,
                payload=event_to_dict(event),
            )
        )
        self.count += 1
        handler = getattr(self, f"_{event.type}", None)
        if handler is not None:
            handler(event)

    def _initial_answers(self, event: InitialAnswersGiven) -> None:
        for a in event.answers:
            self.session.add(
                InitialAnswerRow(
                    debate_id=self.debate_id,
                    agent=a.agent,
                    answer=a.answer,
                    reason=a.reason,
                    source=a.source.value,
                    valid=a.valid,
                    error=a.error,
                    raw=a.raw,
                )
            )

    def _plans_made(self, event: PlansMade) -> None:
        for r in event.plans:
            g = r.generation
            self.session.add(
                PlanRow(
                    debate_id=self.debate_id,
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

    def _sentence_disclosed(self, event: SentenceDisclosed) -> None:
        self.session.add(
            DisclosureRow(
                debate_id=self.debate_id,
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
        )
        self._utterance(event.utterance_id).disclosed_count = event.index + 1

    def _interrupted(self, event: Interrupted) -> None:
        row = self._utterance(event.utterance_id)
        row.discarded = list(event.discarded)
        row.interrupted_by = event.interrupter

    def _utterance_completed(self, event: UtteranceCompleted) -> None:
        self._utterance(event.utterance_id).completed = True

    def finish(self, ended: DebateEnded) -> dict[str, Any]:
        """The debate row's values once the debate has ended."""
        return {
            "status": STATUS_BY_REASON[ended.reason],
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
            session.add(debate_row(first, self.experiment_id, "running"))
            session.flush()
            session.add_all(participant_rows(first))
            rows.add(first)
            self._commit(session, rows, first)
            yield first
            for event in iterator:
                rows.add(event)
                if isinstance(event, DebateEnded):
                    ended = event
                    self._commit(session, rows, event, rows.finish(event))
                elif isinstance(event, PlansMade):
                    self._commit(session, rows, event)
                yield event
        except GeneratorExit:
            if ended is None:
                self._close(session, rows, "aborted", "the consumer stopped reading events")
            raise
        except BaseException as error:
            if ended is None:
                self._close(session, rows, "failed", f"{type(error).__name__}: {error}")
            raise
        else:
            if ended is None:
                self._close(session, rows, "incomplete", "the event stream ended without debate_ended")
        finally:
            session.close()

    def _commit(self, session: Session, rows: Writer, event: Event, extra: dict[str, Any] | None = None) -> None:
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

    def _close(self, session: Session, rows: Writer, status: str, error: str) -> None:
        """Keep every event written so far and mark how the debate ended."""
        try:
            session.commit()
        except Exception:
            session.rollback()
        session.execute(
            update(DebateRow)
            .where(DebateRow.id == rows.debate_id)
            .values(status=status, error=error, event_count=rows.count, finished_at=datetime.now(UTC))
        )
        session.commit()
