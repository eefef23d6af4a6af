"""Transcripts that cannot have happened are refused, naming the first impossible event; real ones import.

Every stream starts as the scripted demo of a registered protocol and variant (``tests.storage.demos``)
and is tampered with in one way each: text disclosed that was never generated, a unit disclosed by the
wrong agent or twice, an unknown protocol or variant, a final answer that is not an option, a flipped
``correct``, token counts that jump, statistics that do not count the stream, integers no store column
holds. The untampered demos, the golden streams and the schema-1 transcript import as they are.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_core.events import event_from_dict, event_to_dict
from debate_core.protocols.registry import available
from storage import Store, TranscriptError
from storage.transcript import FORMAT, read_transcript
from tests.golden.scenarios import SCENARIOS, read_golden
from tests.storage.demos import BUILT_IN, demo_streams
from tests.storage.helpers import row_counts

Document = dict[str, Any]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def document(name: str) -> Document:
    events = demo_streams()[name]
    dicts = [event_to_dict(event) for event in events]
    return {"format": FORMAT, "schema_version": 2, "debate_id": events[0].debate_id, "events": dicts}


def _first(doc: Document, kind: str, where: Callable[[dict[str, Any]], bool] = lambda e: True) -> int | None:
    return next((i for i, e in enumerate(doc["events"]) if e["type"] == kind and where(e)), None)


def _shift_tokens(doc: Document, start: int, by: int) -> None:
    for event in doc["events"][start:]:
        event["public_tokens"] += by


# Each tampering changes one thing and returns the index of the event that becomes impossible
# (None: the stream has nothing to tamper with this way).
def undisclosed_text(doc: Document) -> int | None:
    index = _first(doc, "unit_disclosed")
    if index is not None:
        doc["events"][index]["text"] = "Something nobody ever generated."
    return index


def wrong_agent(doc: Document) -> int | None:
    index = _first(doc, "unit_disclosed")
    if index is None:
        return None
    agents = [a["name"] for a in doc["events"][0]["config"]["agents"]]
    event = doc["events"][index]
    others = [a for a in agents if a != event["speaker"]]
    if not others:
        return None
    event["speaker"] = others[0]
    return index


def disclosed_twice(doc: Document) -> int | None:
    """A unit disclosed a second time right after the first, its tokens counted as a disclosure would."""
    index = _first(doc, "unit_disclosed")
    if index is None:
        return None
    events = doc["events"]
    again = copy.deepcopy(events[index])
    again["public_tokens"] += again["tokens"]
    _shift_tokens(doc, index + 1, again["tokens"])
    events.insert(index + 1, again)
    for seq, event in enumerate(events):
        event["seq"] = seq
    return index + 1


def unknown_protocol(doc: Document) -> int | None:
    doc["events"][0]["config"]["protocol"] = "telepathy"
    return 0


def unknown_variant(doc: Document) -> int | None:
    doc["events"][0]["config"]["variant"] = "nonesuch"
    return 0


def final_not_an_option(doc: Document) -> int | None:
    doc["events"][-1]["final_answer"] = "Z"
    return len(doc["events"]) - 1


def flipped_correct(doc: Document) -> int | None:
    ended = doc["events"][-1]
    ended["correct"] = not ended["correct"]
    return len(doc["events"]) - 1


def tokens_jump(doc: Document) -> int | None:
    """The last event's public tokens jump by 10^12 (no store column holds that)."""
    doc["events"][-1]["public_tokens"] += 10**12
    return len(doc["events"]) - 1


def unit_tokens_inflated(doc: Document) -> int | None:
    """A unit counted as a million tokens, every count after it moved to match."""
    index = _first(doc, "unit_disclosed")
    if index is None:
        return None
    doc["events"][index]["tokens"] += 10**6
    _shift_tokens(doc, index, 10**6)
    return index


def tokens_from_nowhere(doc: Document) -> int | None:
    """Public tokens that grow on an event that discloses nothing."""
    index = _first(doc, "utterance_generated")
    if index is None:
        return None
    _shift_tokens(doc, index, 5)
    return index


def statistics_off(doc: Document) -> int | None:
    doc["events"][-1]["stats"]["units_disclosed"] += 1
    return len(doc["events"]) - 1


def interruption_flipped(doc: Document) -> int | None:
    """A cut that discards turned into one that suspends, or the other way round."""
    index = _first(doc, "interrupted")
    if index is not None:
        doc["events"][index]["suspended"] = not doc["events"][index]["suspended"]
    return index


def public_tokens_2_63(doc: Document) -> int | None:
    doc["events"][-1]["public_tokens"] = 2**63
    return len(doc["events"]) - 1


def utterance_id_2_64(doc: Document) -> int | None:
    index = _first(doc, "utterance_generated")
    if index is not None:
        doc["events"][index]["utterance_id"] = 2**64
    return index


TAMPERINGS: dict[str, Callable[[Document], int | None]] = {
    "undisclosed text": undisclosed_text,
    "the wrong agent discloses": wrong_agent,
    "a unit disclosed twice": disclosed_twice,
    "an unknown protocol": unknown_protocol,
    "an unknown variant": unknown_variant,
    "a final answer that is not an option": final_not_an_option,
    "a flipped correct": flipped_correct,
    "public tokens jump by 10^12": tokens_jump,
    "a unit of a million tokens": unit_tokens_inflated,
    "tokens from nowhere": tokens_from_nowhere,
    "statistics that do not count the stream": statistics_off,
    "an interruption flipped": interruption_flipped,
    "public tokens of 2^63": public_tokens_2_63,
    "an utterance id of 2^64": utterance_id_2_64,
}


def test_the_demos_cover_every_variant_of_every_built_in_protocol() -> None:
    installed = available()
    assert set(BUILT_IN) <= set(installed)
    expected = {f"{name}/{variant}" for name in BUILT_IN for variant in installed[name].variants}
    assert set(demo_streams()) == expected


def test_every_untampered_demo_imports_and_reads_back_as_it_was(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    try:
        for name, events in demo_streams().items():
            path = tmp_path / "t.json"
            path.write_text(json.dumps(document(name)), encoding="utf-8")
            assert store.import_json(path) == events[0].debate_id, name
            assert store.events(events[0].debate_id) == events, name
    finally:
        store.close()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_every_golden_stream_imports_as_a_schema_1_transcript(tmp_path: Path, name: str) -> None:
    raw = read_golden(name)
    doc = {"format": FORMAT, "schema_version": 1, "debate_id": raw[0]["debate_id"], "events": raw}
    path = tmp_path / "golden.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert read_transcript(path) == [event_from_dict(e) for e in raw]
    assert read_transcript(FIXTURES / "transcript-v1.json")


# Every tampering on every stream that has something of its kind (an interruption, say).
CASES = [
    (stream, tampering)
    for stream in sorted(demo_streams())
    for tampering, tamper in TAMPERINGS.items()
    if tamper(document(stream)) is not None
]


@pytest.mark.parametrize(("stream", "tampering"), CASES, ids=[f"{s}: {t}" for s, t in CASES])
def test_a_tampered_transcript_is_refused_naming_the_first_impossible_event(
    tmp_path: Path, stream: str, tampering: str
) -> None:
    doc = document(stream)
    index = TAMPERINGS[tampering](doc)
    assert index is not None
    kind = doc["events"][index]["type"]
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(TranscriptError) as refused:
        read_transcript(path)
    message = str(refused.value)
    assert message.startswith(f"events[{index}] "), message
    assert f"({kind}) cannot have happened: " in message or "is not a valid event" in message, message


@pytest.mark.parametrize("tampering", ["public tokens of 2^63", "an utterance id of 2^64", "a flipped correct"])
def test_an_impossible_transcript_leaves_the_store_as_it_was(tmp_path: Path, tampering: str) -> None:
    doc = document("handraiser/prompted")
    TAMPERINGS[tampering](doc)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    store = Store(tmp_path / "s.sqlite3")
    try:
        before = row_counts(store)
        with pytest.raises(TranscriptError):
            store.import_json(path)
        assert row_counts(store) == before
    finally:
        store.close()


def test_the_refusal_says_why_in_words() -> None:
    cases = {
        "undisclosed text": "is not the text that was generated",
        "the wrong agent discloses": "is Ann's, not Ben's",
        "a unit disclosed twice": "is disclosed where unit",
        "an unknown protocol": "protocol 'telepathy' is not installed",
        "an unknown variant": "has no variant 'nonesuch'",
        "a final answer that is not an option": "the final answer 'Z' is not one of the options",
        "a flipped correct": "correct is False, but the final answer 'B' scores otherwise",
        "a unit of a million tokens": "tokens for a unit of",
        "tokens from nowhere": "public tokens go from",
        "statistics that do not count the stream": "units_disclosed",
        "an interruption flipped": "interruptions discard in this protocol",
    }
    for tampering, words in cases.items():
        doc = document("handraiser/prompted")
        TAMPERINGS[tampering](doc)
        with pytest.raises(TranscriptError) as refused:
            _read(doc)
        assert words in str(refused.value), (tampering, str(refused.value))


def _read(doc: Document) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        read_transcript(path)
