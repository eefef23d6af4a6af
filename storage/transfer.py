"""Debates as files: one JSON document per debate, and CSV tables for pandas.

What it does:

* ``export_json`` writes ``{"format": "interruptible-debate", "schema_version":
  2, "debate_id": ..., "events": [...]}`` (the events as the engine's objects
  give them: an old debate is exported in today's schema);
* ``import_json`` reads such a file back (schema 1 or 2), **validating
  everything before writing anything**: file size (64 MiB at most), JSON
  syntax and nesting, format and schema version, no string longer than
  100,000 characters, every event well-formed, the first one
  ``debate_started``, ``seq`` contiguous from 0, and a debate id not already
  in the store. Then it writes the whole debate
  in one transaction: any failure leaves the store as it was. Errors are
  ``TranscriptError`` with a message that says what is wrong and where;
* ``export_csv`` writes ``plans.csv`` (one row per agent per turn) and
  ``disclosures.csv`` (one row per disclosed unit) for any number of debates.

What it does not do: merge debates, or rewrite ids on import.
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from debate_core.events import EVENT_SCHEMA_VERSION, DebateEnded, DebateStarted, Event, event_from_dict, event_to_dict
from debate_core.status import DebateStatus
from storage.db import writer
from storage.models import DebateRow, DisclosureRow, PlanRow
from storage.reading import read_events
from storage.recorder import Writer, debate_row, participant_rows

FORMAT = "interruptible-debate"
SCHEMA_VERSION = EVENT_SCHEMA_VERSION
READABLE_VERSIONS = (1, 2)
MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_STRING_CHARS = 100_000
MAX_DEPTH = 32


class TranscriptError(ValueError):
    """A transcript file was refused; nothing was written."""


def export_json(engine: Engine, debate_id: str, path: Path) -> Path:
    events = read_events(engine, debate_id)
    document = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "debate_id": debate_id,
        "events": [event_to_dict(event) for event in events],
    }
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


def _check_strings(value: Any, where: str, depth: int = 0) -> None:
    if depth > MAX_DEPTH:
        raise TranscriptError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            raise TranscriptError(f"{where}: a string of {len(value):,} characters (limit {MAX_STRING_CHARS:,})")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, f"{where}.<key>", depth + 1)
            _check_strings(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_strings(item, f"{where}[{index}]", depth + 1)


def read_transcript(path: Path) -> list[Event]:
    """Parse and validate a transcript file; raise ``TranscriptError`` naming the problem."""
    try:
        size = path.stat().st_size
    except OSError as error:
        raise TranscriptError(f"cannot read {path}: {error.strerror}") from None
    if size > MAX_IMPORT_BYTES:
        raise TranscriptError(f"{path.name} is {size:,} bytes; the limit is {MAX_IMPORT_BYTES:,}")
    try:
        document = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise TranscriptError(f"{path.name} is not valid JSON: {error}") from None
    except RecursionError:
        raise TranscriptError(f"{path.name} is nested too deeply") from None
    if not isinstance(document, dict):
        raise TranscriptError("a transcript is a JSON object with format, schema_version and events")
    if document.get("format") != FORMAT:
        raise TranscriptError(f"not a transcript of this application (format {document.get('format')!r})")
    version = document.get("schema_version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        readable = " and ".join(str(v) for v in READABLE_VERSIONS)
        raise TranscriptError(f"schema_version {version!r} is not supported (this version reads {readable})")
    raw_events = document.get("events")
    if not isinstance(raw_events, list) or not raw_events:
        raise TranscriptError("events must be a non-empty list")
    _check_strings(raw_events, "events")
    events: list[Event] = []
    for index, raw in enumerate(raw_events):
        try:
            events.append(event_from_dict(raw))
        except ValidationError as error:
            first = error.errors()[0]
            place = ".".join(str(part) for part in first["loc"])
            raise TranscriptError(f"events[{index}] is not a valid event: {place}: {first['msg']}") from None
        if events[-1].seq != index:
            raise TranscriptError(f"events[{index}] has seq {events[-1].seq}; expected {index}")
    first_event = events[0]
    if not isinstance(first_event, DebateStarted):
        raise TranscriptError(f"the first event must be debate_started, not {first_event.type}")
    if document.get("debate_id", first_event.debate_id) != first_event.debate_id:
        raise TranscriptError("debate_id does not match the debate_started event")
    return events


def import_json(engine: Engine, path: Path) -> str:
    events = read_transcript(path)
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
                session.flush()
        except Exception as error:  # inconsistent events (e.g. an unknown utterance id)
            raise TranscriptError(f"the events do not form a consistent debate: {error}") from None
        last = events[-1]
        row.public_tokens, row.turns, row.event_count = last.public_tokens, last.turn, len(events)
        if ended is not None:
            for key, value in rows.finish(ended).items():
                setattr(row, key, value)
        else:
            row.error = "the transcript ends before the debate did"
    return started.debate_id


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
    return written
