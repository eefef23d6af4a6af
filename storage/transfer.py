"""Debates as files: one JSON document per debate, and CSV tables for pandas.

What it does:

* ``export_json`` writes ``{"format": "interruptible-debate", "schema_version":
  2, "debate_id": ..., "events": [...]}`` (the events as the engine's objects
  give them: an old debate is exported in today's schema), and, for a debate
  a class joined, ``"classroom": {...}``: the stored classroom record (who
  held which seat when, every poll's tally; display names only), through a
  scratch file renamed into place; ``safe_file_name`` makes a file name from
  an id;
* ``import_transcript`` reads such a file back (schema 1 or 2), **checking
  everything before writing anything** (``transcript.read_document``: size,
  JSON, format and version, strings, every event's shape and values, the
  stream's meaning, the classroom part) and a debate id not already in the
  store. Then it writes the whole debate, with its classroom record, in one
  transaction, rows added in bulk: any failure leaves the store as it was.
  Errors are ``TranscriptError`` with a message that says what is wrong and
  where. A malformed classroom part is left out and the debate imported:
  ``Imported.classroom_problem`` says why (a file without one, from before
  classroom records were exported, imports as before). ``import_json`` is
  the same, giving the debate's id;
* ``export_csv`` writes ``plans.csv`` (one row per agent per turn),
  ``disclosures.csv`` (one row per disclosed unit) and ``utterances.csv``
  (one row per utterance: its whole text, the units disclosed and the units
  discarded when it was cut off) for any number of debates, and for the
  debates a class joined ``seats.csv`` (one row per person's holding of a
  seat) and ``polls.csv`` (one row per poll choice and its votes), display
  names only (both written with their header row when no class joined).

What it does not do: merge debates, or rewrite ids on import.
"""

from __future__ import annotations

import csv
import json
import os
import re
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from debate_core.events import EVENT_SCHEMA_VERSION, DebateEnded, DebateStarted, event_to_dict
from debate_core.status import DebateStatus
from storage.classroom import ClassroomRecord, PollResult, SeatHolding
from storage.db import writer
from storage.models import ClassroomRow, DebateRow, DisclosureRow, PlanRow, UtteranceRow
from storage.reading import read_events
from storage.transcript import FORMAT, TranscriptError, read_document
from storage.writer import Writer, debate_row, participant_rows

SCHEMA_VERSION = EVENT_SCHEMA_VERSION
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def safe_file_name(debate_id: str, suffix: str) -> str:
    """A file name for a debate: its id kept to letters, digits, ``_.-``, never hidden, never a path."""
    name = _UNSAFE.sub("_", debate_id)[:64].strip("._-") or "debate"
    return f"{name}{suffix}"


@dataclass(frozen=True)
class Imported:
    """What ``import_transcript`` wrote: the debate, whether its classroom record came with it, and why a
    classroom part the file had was left out (None: none was)."""

    debate_id: str
    classroom: bool = False
    classroom_problem: str | None = None


def export_json(engine: Engine, debate_id: str, path: Path) -> Path:
    events = read_events(engine, debate_id)
    document: dict[str, Any] = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "debate_id": debate_id,
        "events": [event_to_dict(event) for event in events],
    }
    with Session(engine) as session:
        classroom = session.get(ClassroomRow, debate_id)
        if classroom is not None:
            document["classroom"] = dict(classroom.record)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(document, out, ensure_ascii=False)
        os.replace(scratch, path)
    except BaseException:
        Path(scratch).unlink(missing_ok=True)
        raise
    return path


def import_json(engine: Engine, path: Path) -> str:
    return import_transcript(engine, path).debate_id


def import_transcript(engine: Engine, path: Path) -> Imported:
    transcript = read_document(path)
    events = transcript.events
    started = events[0]
    assert isinstance(started, DebateStarted)
    ended = events[-1] if isinstance(events[-1], DebateEnded) else None
    with Session(writer(engine)) as session, session.begin():
        if session.get(DebateRow, started.debate_id) is not None:
            raise TranscriptError(f"debate {started.debate_id} is already in the store")
        row = debate_row(started, None, DebateStatus.INCOMPLETE)
        session.add(row)
        session.flush()
        session.add_all(participant_rows(started))
        rows = Writer(session, started.debate_id)
        try:
            for event in events:
                rows.add(event)
            rows.flush_rows()
        except (ValueError, SQLAlchemyError) as error:  # events the checks let through but the tables refuse
            raise TranscriptError(f"the events do not form a consistent debate: {str(error)[:300]}") from None
        last = events[-1]
        row.public_tokens, row.turns, row.event_count = last.public_tokens, last.turn, len(events)
        if ended is not None:
            for key, value in rows.finish(ended).items():
                setattr(row, key, value)
        else:
            row.error = "the transcript ends before the debate did"
        if transcript.classroom is not None:
            record = transcript.classroom.model_dump(mode="json")
            session.add(ClassroomRow(debate_id=started.debate_id, saved_at=datetime.now(UTC), record=record))
    return Imported(started.debate_id, transcript.classroom is not None, transcript.classroom_problem)


PLAN_COLUMNS = (
    "debate_id",
    "turn",
    "seq",
    "public_tokens",
    "agent",
    "action",
    "urgency",
    "answer",
    "valid",
    "error",
    "thought",
    "purpose",
    "allowed",
    "source",
    "latency_s",
    "prompt_tokens",
    "cached_tokens",
    "completion_tokens",
)
DISCLOSURE_COLUMNS = (
    "debate_id",
    "turn",
    "seq",
    "speaker",
    "utterance_id",
    "unit_index",
    "units_total",
    "text",
    "tokens",
    "public_tokens",
    "interrupting",
)

# One row per utterance: what was generated, what was disclosed and what was never said (discarded).
UTTERANCE_COLUMNS = (
    "debate_id",
    "utterance_id",
    "turn",
    "speaker",
    "interrupting",
    "interrupted_by",
    "completed",
    "units_total",
    "disclosed_count",
    "text",
    "disclosed",
    "discarded",
    "source",
    "error",
    "latency_s",
    "completion_tokens",
)


def _utterance_cells(row: UtteranceRow) -> list[Any]:
    """``disclosed`` and ``discarded`` joined by newlines: one unit per line."""
    values = {
        "units_total": len(row.sentences),
        "disclosed": "\n".join(row.sentences[: row.disclosed_count]),
        "discarded": "\n".join(row.discarded),
    }
    return [values[c] if c in values else getattr(row, c) for c in UTTERANCE_COLUMNS]


def export_csv(engine: Engine, debate_ids: list[str], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with Session(engine) as session:
        for name, model, columns, order in (
            ("plans.csv", PlanRow, PLAN_COLUMNS, (PlanRow.debate_id, PlanRow.seq, PlanRow.agent)),
            (
                "disclosures.csv",
                DisclosureRow,
                DISCLOSURE_COLUMNS,
                (DisclosureRow.debate_id, DisclosureRow.seq),
            ),
        ):
            path = folder / name
            with open(path, "w", newline="", encoding="utf-8") as handle:
                out = csv.writer(handle)
                out.writerow(columns)
                query = select(model).where(model.debate_id.in_(debate_ids)).order_by(*order)
                for row in session.scalars(query):
                    out.writerow([getattr(row, column) for column in columns])
            written.append(path)
        path = folder / "utterances.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle)
            out.writerow(UTTERANCE_COLUMNS)
            query = (
                select(UtteranceRow)
                .where(UtteranceRow.debate_id.in_(debate_ids))
                .order_by(UtteranceRow.debate_id, UtteranceRow.utterance_id)
            )
            for utterance in session.scalars(query):
                out.writerow(_utterance_cells(utterance))
        written.append(path)
        query_rooms = (
            select(ClassroomRow).where(ClassroomRow.debate_id.in_(debate_ids)).order_by(ClassroomRow.debate_id)
        )
        records = [ClassroomRecord.model_validate(row.record) for row in session.scalars(query_rooms)]
    class_tables: dict[str, tuple[tuple[str, ...], list[list[Any]]]] = {
        "seats.csv": (SEAT_COLUMNS, [_seat_cells(r.debate_id, h) for r in records for h in r.seats]),
        "polls.csv": (
            POLL_COLUMNS,
            [cells for r in records for poll in r.polls for cells in _poll_rows(r.debate_id, poll)],
        ),
    }
    for name, (header, rows) in class_tables.items():
        path = folder / name
        with open(path, "w", newline="", encoding="utf-8") as handle:
            out = csv.writer(handle)
            out.writerow(header)
            out.writerows(rows)
        written.append(path)
    return written


SEAT_COLUMNS: tuple[str, ...] = (
    "debate_id",
    "agent",
    "role",
    "name",
    "from_turn",
    "to_turn",
    "since",
    "until",
    "ended",
    "then",
)
POLL_COLUMNS: tuple[str, ...] = (
    "debate_id",
    "poll",
    "label",
    "choice",
    "votes",
    "from_turn",
    "to_turn",
    "opened_at",
    "closed_at",
)


def _seat_cells(debate_id: str, holding: SeatHolding) -> list[Any]:
    """One person's holding of one seat (``None`` fields as empty cells: still held, or never ended)."""
    values = holding.model_dump(mode="json")
    values["debate_id"] = debate_id
    return ["" if values[c] is None else values[c] for c in SEAT_COLUMNS]


def _poll_rows(debate_id: str, poll: PollResult) -> list[list[Any]]:
    """A poll as one row per choice: its votes beside the poll's key, label and span (closed_at empty: open)."""
    values = poll.model_dump(mode="json")
    rows = []
    for choice, votes in zip(poll.choices, poll.counts, strict=True):
        cells = {**values, "debate_id": debate_id, "poll": poll.key, "choice": choice, "votes": votes}
        rows.append(["" if cells[c] is None else cells[c] for c in POLL_COLUMNS])
    return rows
