"""Reading a transcript file: everything checked before a single row is written.

What it does: ``read_transcript(path)`` returns a transcript's events, or
raises ``TranscriptError`` saying what is wrong and where. It reads at most
64 MiB from any file (a pipe or a FIFO included: the limit is on what is
read, not on what the file claims to be); the JSON must be valid (no
``NaN`` or ``Infinity``), nest at most 32 levels, hold no string over 100,000
characters, and be an object of this application's format at a schema
version this release reads (1 or 2). Every string passes the one sanitising
rule (``debate_core.text.clean``). Events are validated strictly (``"3"`` is
no integer, ``true`` no version) against the registered event models (the built-ins and every plugin's:
``debate_core.events.registry``), which bound every
value (counts and token numbers non-negative, urgency 0-9, probabilities in
[0, 1], times that a date can hold, debate ids of a safe alphabet), and then
for meaning: exactly one ``debate_started``, first; at most one
``debate_ended``, last; ``seq`` 0, 1, 2, ...; turns and public tokens never
going back; utterances generated before they are spoken of, units within
their utterance; speakers that are the debate's agents. Then for what can
have happened (``debate_core.protocols.consistency``): the protocol and
variant are installed and the parameters are theirs; the kernel's rules
(disclosed text was generated, by the agent holding the floor, once and in
order; public tokens move by what is disclosed; the final answer is an option
and ``correct`` agrees with it; the statistics count what the stream shows)
and the protocol's own (who may speak, interrupt or decide; why it can end).
A transcript that fails is refused naming the first impossible event: its
index (its seq), its type and why.

``read_document(path)`` reads the same and, when the file has one, its
``classroom`` part (a classroom debate's record: who held which seat, every
poll's tally; ``storage.classroom``), checked by ``check_classroom`` with the
same string rules, strictly against the record's schema (display names only:
a field it does not declare, such as a token, is refused) and against its
debate (the same debate id, seats of its agents, turns it reached). A
malformed classroom part does not cost the debate: it is left out, with the
reason (``Transcript.classroom_problem``). A file without one reads as before.

What it does not do: write anything (``transfer.import_transcript`` does).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debate_core.errors import ImpossibleEvent
from debate_core.events import (
    EVENT_SCHEMA_VERSION,
    EVENT_TYPES,
    DebateEnded,
    DebateStarted,
    Event,
    UnitDisclosed,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceRevised,
    upgrade,
)
from debate_core.events import registry as event_registry
from debate_core.protocols.consistency import stream_checker
from debate_core.text import clean
from storage.classroom import ClassroomRecord

FORMAT = "interruptible-debate"
READABLE_VERSIONS = (1, EVENT_SCHEMA_VERSION)
MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_STRING_CHARS = 100_000
MAX_DEPTH = 32

_SPEAKING = ("speaker", "interrupter", "interrupted", "listener", "author", "target", "agent", "analyst")


def _names(kind: str) -> tuple[str, ...]:
    """The fields of an event type that name an agent (any registered type: built-in or a plugin's)."""
    return tuple(f for f in _SPEAKING if f in EVENT_TYPES[kind].model_fields)


def _refers(kind: str) -> bool:
    """Whether an event type refers to an utterance."""
    return "utterance_id" in EVENT_TYPES[kind].model_fields


class TranscriptError(ValueError):
    """A transcript file was refused; nothing was written."""


@dataclass(frozen=True)
class Transcript:
    """A transcript file, checked: its events, and its classroom record when it came with a readable one."""

    events: list[Event]
    classroom: ClassroomRecord | None = None
    classroom_problem: str | None = None  # why the file's classroom part was left out (None: none was)


def _read_bounded(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_IMPORT_BYTES + 1)
    except OSError as error:
        raise TranscriptError(f"cannot read {path}: {error.strerror or error}") from None
    if len(data) > MAX_IMPORT_BYTES:
        raise TranscriptError(f"{path.name} is over {MAX_IMPORT_BYTES:,} bytes, the limit")
    return data


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _parse(path: Path, data: bytes) -> Any:
    try:
        return json.loads(data, parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError) as error:  # JSONDecodeError is a ValueError
        raise TranscriptError(f"{path.name} is not valid JSON: {str(error)[:200]}") from None
    except RecursionError:
        raise TranscriptError(f"{path.name} is nested too deeply") from None


def _cleaned(value: Any, where: str, depth: int = 0) -> Any:
    """``value`` with every string cleaned and checked (lists and objects changed in place)."""
    if depth > MAX_DEPTH:
        raise TranscriptError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        if len(value) > MAX_STRING_CHARS:
            raise TranscriptError(f"{where}: a string of {len(value):,} characters (limit {MAX_STRING_CHARS:,})")
        return clean(value)
    if isinstance(value, dict):
        if any(not key.isascii() or len(key) > MAX_STRING_CHARS or "\x00" in key for key in value):
            value = {_cleaned(key, f"{where}.<key>", depth + 1): item for key, item in value.items()}
        for key, item in value.items():
            if isinstance(item, str | dict | list):
                value[key] = _cleaned(item, f"{where}.{key}", depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, str | dict | list):
                value[index] = _cleaned(item, f"{where}[{index}]", depth + 1)
    return value


def _validated(raw_events: list[Any]) -> list[Event]:
    for index, raw in enumerate(raw_events):
        if not isinstance(raw, dict):
            raise TranscriptError(f"events[{index}] is not a valid event: an event is a JSON object")
    try:
        events: list[Event] = event_registry.list_adapter().validate_json(
            json.dumps([upgrade(raw) for raw in raw_events]), strict=True
        )
    except ValidationError as error:
        first = error.errors()[0]
        position, *place = (str(part) for part in first["loc"])
        where = ".".join(place) or "its type"
        raise TranscriptError(f"events[{position}] is not a valid event: {where} {_plain(first)}") from None
    return events


def _plain(error: Any, what: str = "this event") -> str:
    """A validation error in plain words (not pydantic's)."""
    kind = error.get("type", "")
    if kind == "extra_forbidden":
        return f"is not a field of {what}"
    if kind == "missing":
        return "is missing"
    if kind == "union_tag_invalid":
        return f"{error.get('ctx', {}).get('tag', '')!r} is not an event type"
    return "is invalid: " + str(error.get("msg", "")).removeprefix("Value error, ")


def check_meaning(events: list[Event], debate_id: Any) -> None:
    """Raise ``TranscriptError`` unless the events tell one coherent debate (see the module docstring)."""
    started = events[0]
    if not isinstance(started, DebateStarted):
        raise TranscriptError(f"the first event must be debate_started, not {started.type}")
    if debate_id is not None and debate_id != started.debate_id:
        raise TranscriptError("debate_id does not match the debate_started event")
    agents = set(started.config.agent_names)
    generated: dict[int, int] = {}  # utterance id -> its number of units
    try:
        checker = stream_checker(started)
    except ImpossibleEvent as error:
        raise TranscriptError(_impossible(error)) from None
    previous: Event = started
    for index, event in enumerate(events):
        if event.seq != index:
            raise TranscriptError(f"events[{index}] has seq {event.seq}; expected {index}")
        if index and isinstance(event, DebateStarted):
            raise TranscriptError(f"events[{index}] is a second debate_started")
        if isinstance(event, DebateEnded) and index != len(events) - 1:
            raise TranscriptError(f"events[{index}] is debate_ended, but events follow it")
        if event.turn < previous.turn or event.public_tokens < previous.public_tokens:
            raise TranscriptError(f"events[{index}] goes back in turns or public tokens")
        kind = event.type
        for field in _names(kind):
            who = getattr(event, field)
            if who is not None and who not in agents:
                raise TranscriptError(f"events[{index}] names {who!r}, who is not one of the debate's agents")
        utterance = getattr(event, "utterance_id") if _refers(kind) else None  # noqa: B009
        if isinstance(event, UtteranceGenerated):
            generated[event.utterance_id] = len(event.units)
        elif isinstance(event, UtteranceRevised):
            if event.utterance_id not in generated:
                raise TranscriptError(f"events[{index}] revises utterance {utterance}, which was never generated")
            generated[event.utterance_id] = max(generated[event.utterance_id], len(event.units))
        elif isinstance(event, UtteranceExtended):
            if event.utterance_id not in generated:
                raise TranscriptError(f"events[{index}] extends utterance {utterance}, which was never generated")
            generated[event.utterance_id] += len(event.units)
        elif utterance is not None and kind != "intervention" and utterance not in generated:
            raise TranscriptError(f"events[{index}] refers to utterance {utterance}, which was never generated")
        if isinstance(event, UnitDisclosed) and event.index >= event.total:
            raise TranscriptError(f"events[{index}] discloses unit {event.index} of {event.total}")
        try:
            checker.feed(event)
        except ImpossibleEvent as error:
            raise TranscriptError(_impossible(error)) from None
        previous = event


def _impossible(error: ImpossibleEvent) -> str:
    return f"events[{error.seq}] ({error.event_type}) cannot have happened: {error.why}"


def check_classroom(raw: Any, events: list[Event]) -> ClassroomRecord:
    """A transcript's classroom part, checked (see the module docstring); else ``TranscriptError`` saying why."""
    if not isinstance(raw, dict):
        raise TranscriptError("classroom is not a JSON object")
    try:
        record = ClassroomRecord.model_validate_json(json.dumps(_cleaned(raw, "classroom")), strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        raise TranscriptError(f"classroom{where} {_plain(first, 'a classroom record')}") from None
    started, last = events[0], events[-1].turn
    assert isinstance(started, DebateStarted)
    if record.debate_id != started.debate_id:
        raise TranscriptError("classroom.debate_id is not the id of the transcript's debate")
    agents = set(started.config.agent_names)
    for index, holding in enumerate(record.seats):
        where = f"classroom.seats[{index}]"
        if holding.agent not in agents:
            raise TranscriptError(f"{where} names {holding.agent!r}, who is not one of the debate's agents")
        _spans(where, holding.from_turn, holding.to_turn, last)
        if holding.until is not None and holding.until < holding.since:
            raise TranscriptError(f"{where} ends before it began")
    for index, poll in enumerate(record.polls):
        _spans(f"classroom.polls[{index}]", poll.from_turn, poll.to_turn, last)
        if poll.closed_at is not None and poll.closed_at < poll.opened_at:
            raise TranscriptError(f"classroom.polls[{index}] closes before it opened")
    return record


def _spans(where: str, first: int, until: int | None, last: int) -> None:
    if first > last or (until is not None and not first <= until <= last):
        raise TranscriptError(f"{where} spans turns the debate did not reach (it ended at turn {last})")


def read_transcript(path: Path) -> list[Event]:
    """Parse and check a transcript file's events; raise ``TranscriptError`` naming the problem."""
    return read_document(path).events


def read_document(path: Path) -> Transcript:
    """Parse and check a transcript file and its classroom part (see the module docstring)."""
    document = _parse(path, _read_bounded(path))
    if not isinstance(document, dict):
        raise TranscriptError("a transcript is a JSON object with format, schema_version and events")
    if document.get("format") != FORMAT:
        raise TranscriptError(f"not a transcript of this application (format {str(document.get('format'))[:80]!r})")
    version = document.get("schema_version")
    if type(version) is not int or version not in READABLE_VERSIONS:
        readable = " and ".join(str(v) for v in READABLE_VERSIONS)
        raise TranscriptError(f"schema_version {repr(version)[:40]} is not supported (this version reads {readable})")
    raw_events = document.get("events")
    if not isinstance(raw_events, list) or not raw_events:
        raise TranscriptError("events must be a non-empty list")
    events = _validated(_cleaned(raw_events, "events"))
    check_meaning(events, _cleaned(document.get("debate_id"), "debate_id"))
    raw_classroom = document.get("classroom")
    if raw_classroom is None:  # a debate no class joined, or a file from before classroom records were exported
        return Transcript(events)
    try:
        return Transcript(events, check_classroom(raw_classroom, events))
    except TranscriptError as error:
        return Transcript(events, classroom_problem=str(error))
