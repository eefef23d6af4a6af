"""JSON transcripts: a faithful round trip, and hostile or malformed files refused with nothing written."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

import storage.transcript
from debate_core import Debate, ScriptedBackend
from debate_core.errors import BackendError
from debate_core.events import DebateEnded, PlansMade
from protocols.kimura.demo import demo_backend, demo_config
from storage import Store, TranscriptError
from storage.models import DisclosureRow, InitialAnswerRow, ParticipantRow, PlanRow, UtteranceRow
from tests.conftest import SentenceSplitter, make_config
from tests.storage.helpers import failing_script, record_demo, record_quick, row_counts

Document = dict[str, Any]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Document:
    """A valid transcript of an interruptible demo debate, as a JSON document (made once)."""
    folder = tmp_path_factory.mktemp("exported")
    source = Store(folder / "source.sqlite3")
    try:
        events = record_demo(source, seed=1)
        path = source.export_json(events[0].debate_id, folder / "valid.json")
    finally:
        source.close()
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Store]:
    """A second store, already holding one unrelated debate."""
    other = Store(tmp_path / "target.sqlite3")
    record_quick(other)
    yield other
    other.close()


def _index_of(document: Document, event_type: str) -> int:
    return next(i for i, e in enumerate(document["events"]) if e["type"] == event_type)


def _renumber(document: Document, start: int = 0) -> Document:
    for index, event in enumerate(document["events"], start=start):
        event["seq"] = index
    return document


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Document], Document]:
    def mutate(document: Document) -> Document:
        place: Any = document
        for key in path[:-1]:
            place = place[key]
        place[path[-1]] = value
        return document

    return mutate


def _in_sentence(change: Callable[[dict[str, Any]], None]) -> Callable[[Document], Document]:
    def mutate(document: Document) -> Document:
        change(document["events"][_index_of(document, "unit_disclosed")])
        return document

    return mutate


def _nest(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"deeper": value}
    return value


def _delete(key: str) -> Callable[[Document], Document]:
    def mutate(document: Document) -> Document:
        del document[key]
        return document

    return mutate


def _drop_event(index: int) -> Callable[[Document], Document]:
    def mutate(document: Document) -> Document:
        del document["events"][index]
        return document

    return mutate


# (document mutation, phrase the error must contain)
BAD_DOCUMENTS: dict[str, tuple[Callable[[Document], Any], str]] = {
    "json array": (lambda d: [d], "JSON object"),
    "json string": (lambda d: "events", "JSON object"),
    "wrong format": (_set(("format",), "some-other-app"), "not a transcript of this application"),
    "no format": (_delete("format"), "not a transcript of this application"),
    "schema_version 0": (_set(("schema_version",), 0), "schema_version 0 is not supported"),
    "schema_version 3": (_set(("schema_version",), 3), "schema_version 3 is not supported"),
    "schema_version '1'": (_set(("schema_version",), "1"), "schema_version '1' is not supported"),
    "no schema_version": (_delete("schema_version"), "schema_version None is not supported"),
    "no events": (_delete("events"), "events must be a non-empty list"),
    "empty events": (_set(("events",), []), "events must be a non-empty list"),
    "events an object": (_set(("events",), {"0": {}}), "events must be a non-empty list"),
    "turn not a number": (
        _in_sentence(lambda e: e.update(turn="three")),
        "is not a valid event: unit_disclosed.turn is invalid: Input should be a valid integer",
    ),
    "missing field": (
        _in_sentence(lambda e: e.pop("speaker")),
        "is not a valid event: unit_disclosed.speaker is missing",
    ),
    "unknown field": (
        _in_sentence(lambda e: e.update(secret="x")),
        "unit_disclosed.secret is not a field of this event",
    ),
    "unknown event type": (
        _in_sentence(lambda e: e.update(type="telepathy")),
        "is not a valid event: its type 'telepathy' is not an event type",
    ),
    "event not an object": (_set(("events", 3), "plans_made"), "events[3] is not a valid event"),
    "missing seq": (_drop_event(5), "events[5] has seq 6; expected 5"),
    "repeated seq": (_set(("events", 4, "seq"), 3), "events[4] has seq 3; expected 4"),
    "seq from 1": (
        lambda d: _renumber(d, start=1),
        "has seq 1; expected 0",
    ),
    "first not debate_started": (
        lambda d: _renumber(_drop_event(0)(d)),
        "the first event must be debate_started, not initial_answers",
    ),
    "debate_id mismatch": (_set(("debate_id",), "someone-else"), "debate_id does not match"),
    "huge sentence": (
        _in_sentence(lambda e: e.update(text="x" * 200_000)),
        ".text: a string of 200,000 characters (limit 100,000)",
    ),
    "huge key": (_in_sentence(lambda e: e.update({"k" * 150_000: 1})), "150,000 characters"),
    "deep nesting in an event": (
        _in_sentence(lambda e: e.update(text=_nest(40))),
        "nested more than 32 levels",
    ),
    "unknown utterance": (
        _in_sentence(lambda e: e.update(utterance_id=999)),
        "refers to utterance 999, which was never generated",
    ),
    # Found by probing the import from outside (issue #11): each used to escape as another exception,
    # be accepted, or write outside the store's folder.
    "seed of 10^30": (_set(("events", 0, "config", "seed"), 10**30), "config.seed is invalid: Input should"),
    "budget of 10^30": (_set(("events", 0, "config", "token_budget"), 10**30), "token_budget is invalid"),
    "time NaN": (_set(("events", 1, "at"), float("nan")), "NaN is not a number JSON allows"),
    "time Infinity": (_set(("events", 1, "at"), float("inf")), "Infinity is not a number JSON allows"),
    "time 1e20": (_set(("events", 1, "at"), 1e20), "events[1] is not a valid event: initial_answers.at"),
    "time before 1970": (_set(("events", 1, "at"), -1e13), "events[1] is not a valid event: initial_answers.at"),
    "surrogate in the id": (_set(("events", 0, "debate_id"), "bad\udcffid"), "debate_started.debate_id"),
    "id that climbs out": (_set(("events", 0, "debate_id"), "../victim/planted"), "debate_started.debate_id"),
    "absolute id": (_set(("events", 0, "debate_id"), "/etc/passwd"), "debate_started.debate_id"),
    "empty id": (_set(("events", 0, "debate_id"), ""), "debate_started.debate_id"),
    "id with a NUL": (_set(("events", 0, "debate_id"), "a\x00b"), "debate_id"),
    "id of 10,000 characters": (_set(("events", 0, "debate_id"), "a" * 10_000), "debate_started.debate_id"),
    "an event after the end": (
        lambda d: _renumber({**d, "events": [*d["events"], copy.deepcopy(d["events"][-2])]}),
        "is debate_ended, but events follow it",
    ),
    "a second start": (
        lambda d: _renumber({**d, "events": [d["events"][0], *copy.deepcopy(d["events"])]}),
        "events[1] is a second debate_started",
    ),
    "urgency 99": (
        lambda d: _set(("events", _index_of(d, "plans_made"), "plans", 0, "plan", "urgency"), 99)(d),
        "plan.urgency is invalid: Input should be less than or equal to 9",
    ),
    "negative tokens": (_in_sentence(lambda e: e.update(tokens=-5)), "unit_disclosed.tokens is invalid"),
    "schema_version true": (_set(("schema_version",), True), "schema_version True is not supported"),
    "seq as a string": (_set(("events", 2, "seq"), "2"), "events[2] is not a valid event: plans_made.seq"),
    "time going back": (_set(("events", -1, "turn"), 0), "goes back in turns or public tokens"),
    "a stranger speaks": (_in_sentence(lambda e: e.update(speaker="Mallory")), "names 'Mallory'"),
}


def _assert_refused(store: Store, path: Path, phrase: str) -> TranscriptError:
    before = row_counts(store)
    listed = store.list_debates()
    with pytest.raises(TranscriptError) as caught:
        store.import_json(path)
    assert phrase in str(caught.value)
    assert row_counts(store) == before
    assert store.list_debates() == listed
    return caught.value


@pytest.mark.parametrize("case", list(BAD_DOCUMENTS))
def test_a_malformed_transcript_is_refused_and_nothing_is_written(
    exported: Document, target: Store, tmp_path: Path, case: str
) -> None:
    mutate, phrase = BAD_DOCUMENTS[case]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(mutate(copy.deepcopy(exported))), encoding="utf-8")
    _assert_refused(target, path, phrase)


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        (b"{this is not json", "is not valid JSON"),
        (b"", "is not valid JSON"),
        (b"\xff\xfe\x00\x81 binary", "is not valid JSON"),
        (b'{"format": "interruptible-debate", "events": [', "is not valid JSON"),
        (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "nested too deeply"),
    ],
    ids=["garbage", "empty", "binary", "truncated", "deep arrays", "deep objects"],
)
def test_a_file_that_is_not_a_sane_json_document_is_refused(
    target: Store, tmp_path: Path, content: bytes, phrase: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    _assert_refused(target, path, phrase)


def test_a_file_over_the_size_limit_is_refused_reading_no_more_than_the_limit(
    exported: Document, target: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    monkeypatch.setattr(storage.transcript, "MAX_IMPORT_BYTES", 1_000)
    _assert_refused(target, path, "over 1,000 bytes, the limit")


def test_a_pipe_cannot_bypass_the_size_limit(
    exported: Document, target: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import threading

    monkeypatch.setattr(storage.transcript, "MAX_IMPORT_BYTES", 1_000)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    payload = json.dumps(exported).encode()

    def feed() -> None:
        try:
            with open(fifo, "wb") as out:
                out.write(payload)
        except BrokenPipeError:  # the reader stopped at the limit, as it should
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    _assert_refused(target, fifo, "over 1,000 bytes, the limit")
    writer.join(10)


def test_a_folder_is_refused(target: Store, tmp_path: Path) -> None:
    _assert_refused(target, tmp_path, "cannot read")


def test_a_missing_file_is_refused(target: Store, tmp_path: Path) -> None:
    _assert_refused(target, tmp_path / "nowhere.json", "cannot read")


def test_importing_the_same_debate_twice_refuses_the_second_and_keeps_the_first(
    exported: Document, target: Store, tmp_path: Path
) -> None:
    path = tmp_path / "valid.json"
    path.write_text(json.dumps(exported), encoding="utf-8")
    debate_id = target.import_json(path)
    assert debate_id == exported["debate_id"]
    summary, events = target.debate(debate_id), target.events(debate_id)

    _assert_refused(target, path, "already in the store")
    assert target.debate(debate_id) == summary
    assert target.events(debate_id) == events


def _analysis_rows(store: Store, debate_id: str) -> dict[str, list[tuple[Any, ...]]]:
    tables = (ParticipantRow, InitialAnswerRow, PlanRow, UtteranceRow, DisclosureRow)
    result = {}
    with Session(store.engine) as session:
        for model in tables:
            columns = [c.name for c in model.__table__.columns]
            keys = [c for c in model.__table__.primary_key.columns]
            rows = session.scalars(select(model).where(model.debate_id == debate_id).order_by(*keys)).all()
            result[model.__tablename__] = [tuple(getattr(r, c) for c in columns) for r in rows]
    return result


def _record_ending(store: Store, ending: str) -> str:
    if ending == "finished":
        return record_demo(store, seed=1, experiment_id=None)[0].debate_id
    if ending == "stopped":
        config = demo_config(seed=1)
        debate = Debate(config, demo_backend(config), segmenter=SentenceSplitter())
        for event in store.record(debate.events()):
            if isinstance(event, PlansMade) and event.turn == 5:
                debate.stop()
        return debate.debate_id
    debate = Debate(make_config(), ScriptedBackend(failing_script()), segmenter=SentenceSplitter())
    with pytest.raises(BackendError):
        list(store.record(debate.events()))
    return debate.debate_id


@pytest.mark.parametrize(("ending", "status"), [("finished", "finished"), ("stopped", "aborted"), ("failed", "failed")])
def test_export_then_import_into_another_store_gives_the_same_debate(
    store: Store, target: Store, tmp_path: Path, ending: str, status: str
) -> None:
    debate_id = _record_ending(store, ending)
    path = store.export_json(debate_id, tmp_path / "out" / "debate.json")
    assert sorted(p.name for p in path.parent.iterdir()) == ["debate.json"]  # no scratch file left
    document = json.loads(path.read_text(encoding="utf-8"))
    assert (document["format"], document["schema_version"], document["debate_id"]) == (
        "interruptible-debate",
        2,
        debate_id,
    )

    assert target.import_json(path) == debate_id
    assert target.events(debate_id) == store.events(debate_id)
    original, imported = store.debate(debate_id), target.debate(debate_id)
    assert imported.status == original.status == status
    assert (imported.final_answer, imported.correct) == (original.final_answer, original.correct)
    assert imported.public_tokens == original.public_tokens
    assert imported.event_count == original.event_count == len(document["events"])
    assert imported == original
    assert _analysis_rows(target, debate_id) == _analysis_rows(store, debate_id)

    again = target.export_json(debate_id, tmp_path / "again.json")
    assert json.loads(again.read_text(encoding="utf-8")) == document


def test_an_export_of_a_debate_cut_short_imports_as_incomplete(store: Store, target: Store, tmp_path: Path) -> None:
    config = demo_config(seed=1)
    stream = store.record(Debate(config, demo_backend(config), segmenter=SentenceSplitter()).events())
    emitted = [next(stream) for _ in range(9)]
    stream.close()
    path = store.export_json(emitted[0].debate_id, tmp_path / "cut.json")

    debate_id = target.import_json(path)
    assert target.events(debate_id) == emitted
    summary = target.debate(debate_id)
    assert summary.status == "incomplete"
    assert not isinstance(emitted[-1], DebateEnded)
    assert summary.event_count == 9


def test_exporting_an_unknown_debate_raises_key_error(store: Store, tmp_path: Path) -> None:
    with pytest.raises(KeyError):
        store.export_json("no-such-debate", tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
