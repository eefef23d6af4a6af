"""Properties of the three boundaries where the outside world reaches a debate, for every protocol.

* **Model completions**: whatever a backend returns as text, the debate ends with a
  ``DebateEnded`` (never an error), and every event it yields is stored equal to itself.
* **A person's submissions**: whatever values a person submits, the channel either refuses
  them with a message (``HumanInputError``) or accepts them; the debate ends, and every
  event is stored equal to itself.
* **Transcript files**: whatever a file holds, import either takes it (and the debate reads
  back as the file says) or refuses it with a ``TranscriptError`` and leaves the store
  byte-identical.

And nothing is written outside the store's folder: each example runs in an empty working
directory that must stay empty. The properties are written against the kernel: each runs
over Kimura's variants, the judged-rounds protocol and the kernel tour.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, note
from hypothesis import strategies as st

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.errors import HumanInputError, StaleRequestError
from debate_core.events import DebateEnded, EndReason
from debate_core.protocols import registry
from storage import Store, TranscriptError
from tests.conftest import QUESTION, SentenceSplitter
from tests.properties.strategies import JSON_VALUE, MODEL_OUTPUT, SUBMISSION
from tests.protocols.judged_rounds import JudgedRounds
from tests.protocols.tour import Tour

PROTOCOLS = {
    "kimura/interruptible": {"protocol": "kimura", "variant": "interruptible"},
    "kimura/fixed": {"protocol": "kimura", "variant": "fixed"},
    "judged-rounds": {"protocol": "judged-rounds", "params": {"rounds": 2}},
    "tour/regenerate": {"protocol": "tour", "variant": "regenerate"},
}
# A person's valid answer to each request kind: what the player falls back on, so a debate never waits.
VALID = {
    "initial_answer": {"answer": "B"},
    "plan": {},
    "utterance": {"text": "Beta is second."},
    "statement": {"text": "Beta."},
    "verdict": {"answer": "B", "final": False},
    "speech": {"text": "Beta it is."},
    "poi_reply": {"text": "Fair."},
    "poi_check": {"interrupt": False},
}


@pytest.fixture(scope="module", autouse=True)
def test_protocols() -> Iterator[None]:
    registry.register(JudgedRounds)
    registry.register(Tour)
    yield
    registry.unregister(JudgedRounds.name)
    registry.unregister(Tour.name)


def config_for(name: str, human: bool = False) -> DebateConfig:
    seats = [AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cy")]
    if human:
        seats[1] = AgentSpec(name="Ben", seat=SeatKind.HUMAN)
    if name == "judged-rounds":
        seats[2] = seats[2].model_copy(update={"role": "judge"})
    return DebateConfig(
        question=QUESTION, agents=tuple(seats), token_budget=60, max_turns=12, max_silent_turns=3, **PROTOCOLS[name]
    )


@contextlib.contextmanager
def sandbox() -> Iterator[Path]:
    """An empty working directory holding nothing but a store folder; it must stay that way."""
    with tempfile.TemporaryDirectory() as root:
        here = Path(root)
        (here / "store").mkdir()
        before = os.getcwd()
        os.chdir(here)
        try:
            yield here
        finally:
            os.chdir(before)
        assert sorted(p.name for p in here.iterdir()) == ["store"], "something was written outside the store"


def record(store: Store, debate: Debate) -> list[Any]:
    events = list(store.record(debate.events()))
    assert isinstance(events[-1], DebateEnded)
    assert store.events(events[0].debate_id) == events
    return events


@given(protocol=st.sampled_from(sorted(PROTOCOLS)), data=st.data())
def test_no_model_output_can_crash_a_debate_or_lose_an_event(protocol: str, data: st.DataObject) -> None:
    outputs: list[str] = []

    def respond(request: Any) -> str:
        output = data.draw(MODEL_OUTPUT, label=f"{request.kind} for {request.agent}")
        outputs.append(output)
        return output

    with sandbox() as here:
        store = Store(here / "store" / "debates.sqlite3")
        try:
            events = record(store, Debate(config_for(protocol), ScriptedBackend(respond), segmenter=SentenceSplitter()))
        finally:
            store.close()
    note(f"{len(outputs)} model outputs, {len(events)} events")
    event(f"{protocol} ended: {events[-1].reason.value}")
    assert events[-1].reason is not EndReason.ERROR


@given(protocol=st.sampled_from(sorted(PROTOCOLS)), submissions=st.lists(SUBMISSION, max_size=12), data=st.data())
def test_no_submission_can_crash_a_debate_or_lose_an_event(
    protocol: str, submissions: list[dict[str, Any]], data: st.DataObject
) -> None:
    backend = ScriptedBackend(lambda request: data.draw(MODEL_OUTPUT))
    channel = HumanChannel()
    unexpected: list[BaseException] = []
    refused = accepted = 0

    def play() -> None:
        nonlocal refused, accepted
        pending = list(submissions)
        while (request := channel.pending(timeout_s=30)) is not None:
            for values in [*pending, VALID.get(request.kind, {})]:
                if pending:
                    pending.pop(0)
                try:
                    channel.submit(request.request_id, values)
                    accepted += 1
                    break
                except (HumanInputError, StaleRequestError):
                    refused += 1
                except BaseException as error:  # anything else is a bug the property reports
                    unexpected.append(error)
                    return

    player = threading.Thread(target=play, daemon=True)
    player.start()
    with sandbox() as here:
        store = Store(here / "store" / "debates.sqlite3")
        try:
            seats = {"Ben": HumanSeat("Ben", channel, timeout_s=30)}
            debate = Debate(config_for(protocol, human=True), backend, seats=seats, segmenter=SentenceSplitter())
            events = record(store, debate)
        finally:
            channel.close()
            player.join(10)
            store.close()
    note(f"{accepted} accepted, {refused} refused, {len(events)} events")
    event(f"submissions refused: {'some' if refused else 'none'}")
    assert not unexpected, unexpected
    assert events[-1].reason is not EndReason.ERROR


# -- transcript files -------------------------------------------------------------------------------------

_VALID_TRANSCRIPT: dict[str, Any] = {}


def valid_transcript() -> dict[str, Any]:
    """A transcript of a short debate of the tour (every kernel move), made once."""
    if not _VALID_TRANSCRIPT:
        from tests.protocols.tour import tour_backend

        with tempfile.TemporaryDirectory() as root:
            store = Store(Path(root) / "s.sqlite3")
            events = record(store, Debate(config_for("tour/regenerate"), tour_backend()))
            path = store.export_json(events[0].debate_id, Path(root) / "t.json")
            store.close()
            _VALID_TRANSCRIPT.update(json.loads(path.read_text(encoding="utf-8")))
    return copy.deepcopy(_VALID_TRANSCRIPT)


@st.composite
def mutated_transcript(draw: Any) -> bytes:
    document: Any = valid_transcript()
    for _ in range(draw(st.integers(0, 3))):
        events = document.get("events")
        if not isinstance(events, list) or not events:
            break
        index = draw(st.integers(0, len(events) - 1))
        event = events[index]
        if not isinstance(event, dict) or not event:
            break
        action = draw(st.sampled_from(["set", "delete", "duplicate", "drop", "swap", "top"]))
        key = draw(st.sampled_from(sorted(event)))
        if action == "set":
            event[key] = draw(JSON_VALUE)
        elif action == "delete":
            del event[key]
        elif action == "duplicate":
            events.insert(index, copy.deepcopy(event))
        elif action == "drop" and len(events) > 1:
            del events[index]
        elif action == "swap" and index + 1 < len(events):
            events[index], events[index + 1] = events[index + 1], events[index]
        elif action == "top":
            document[draw(st.sampled_from(["format", "schema_version", "debate_id", "events"]))] = draw(JSON_VALUE)
    raw = json.dumps(document, allow_nan=True).encode("utf-8", "surrogatepass")
    cut = draw(st.one_of(st.none(), st.integers(0, len(raw))))
    return raw if cut is None else raw[:cut]


def fingerprint(folder: Path) -> dict[str, str]:
    """The store's files by content; SQLite's ``-shm`` is a lock index rebuilt on every read, not data."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.iterdir())
        if not p.name.endswith("-shm")
    }


@given(content=st.one_of(mutated_transcript(), st.binary(max_size=2_000)))
def test_an_import_takes_the_whole_transcript_or_leaves_the_store_untouched(content: bytes) -> None:
    with sandbox() as here:
        folder = here / "store"
        store = Store(folder / "debates.sqlite3")
        try:
            with store.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            path = Path(tempfile.mkdtemp()) / "transcript.json"
            path.write_bytes(content)
            before = fingerprint(folder)
            try:
                debate_id = store.import_json(path)
            except TranscriptError as error:
                note(f"refused: {error}")
                event("refused")
                with store.engine.connect() as connection:
                    connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
                assert fingerprint(folder) == before
            else:
                from storage.transcript import read_transcript

                assert store.events(debate_id) == read_transcript(path)
                event("imported")
        finally:
            store.close()
