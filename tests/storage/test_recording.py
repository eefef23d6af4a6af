"""Recording a running debate: what is stored equals what was emitted, whatever the ending."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from debate_core import Debate, ScriptedBackend
from debate_core.backends.base import GenerationRequest
from debate_core.errors import BackendError
from debate_core.events import DebateEnded, DebateStarted, EndReason, PlansMade
from protocols.kimura.demo import DemoScript, demo_backend, demo_config
from storage import Store
from tests.conftest import SentenceSplitter, make_config, of_type
from tests.storage.helpers import failing_script, row_counts


@pytest.mark.parametrize("condition", ["fixed", "dynamic", "interruptible"])
def test_recorded_events_read_back_equal_to_the_emitted_ones(store: Store, condition: str) -> None:
    config = demo_config(condition=condition, seed=1)
    emitted = list(store.record(Debate(config, demo_backend(config)).events()))
    debate_id = emitted[0].debate_id

    assert store.events(debate_id) == emitted
    summary = store.debate(debate_id)
    end = emitted[-1]
    assert isinstance(end, DebateEnded)
    assert summary.status == "finished"
    assert summary.end_reason == end.reason.value == "budget"
    assert summary.condition == condition
    assert (summary.final_answer, summary.correct) == (end.final_answer, end.correct) == ("B", True)
    assert summary.public_tokens == end.public_tokens
    assert summary.turns == end.turn
    assert summary.event_count == len(emitted)
    assert summary.error is None
    assert summary.finished_at is not None and summary.finished_at >= summary.created_at


def test_recording_yields_the_very_event_objects_the_engine_emitted(store: Store) -> None:
    config = demo_config(seed=2)
    originals = []

    def tap(events):
        for event in events:
            originals.append(event)
            yield event

    debate = Debate(config, demo_backend(config), segmenter=SentenceSplitter())
    passed = list(store.record(tap(debate.events())))

    assert len(passed) == len(originals) > 0
    assert all(a is b for a, b in zip(passed, originals, strict=True))
    assert isinstance(passed[-1], DebateEnded)


def test_a_debate_that_fails_with_a_backend_error_is_stored_as_failed_with_all_its_events(
    store: Store,
) -> None:
    debate = Debate(make_config(), ScriptedBackend(failing_script()), segmenter=SentenceSplitter())
    emitted = []
    with pytest.raises(BackendError, match="script ran out"):
        for event in store.record(debate.events()):
            emitted.append(event)

    end = emitted[-1]
    assert isinstance(end, DebateEnded) and end.reason is EndReason.ERROR
    debate_id = emitted[0].debate_id
    assert store.events(debate_id) == emitted
    summary = store.debate(debate_id)
    assert summary.status == "failed"
    assert summary.end_reason == "error"
    assert summary.error is not None and "script ran out" in summary.error
    assert summary.event_count == len(emitted)


def test_an_exception_inside_the_engine_marks_the_debate_failed_and_keeps_what_was_emitted(
    store: Store,
) -> None:
    config = demo_config(seed=1)
    script = DemoScript(config)

    def respond(request: GenerationRequest) -> str:
        if request.kind == "plan" and request.turn == 4:
            raise RuntimeError("the responder broke")
        return script.reply(request)

    debate = Debate(config, ScriptedBackend(respond), segmenter=SentenceSplitter())
    emitted = []
    with pytest.raises(RuntimeError, match="the responder broke"):
        for event in store.record(debate.events()):
            emitted.append(event)

    debate_id = emitted[0].debate_id
    assert not of_type(emitted, DebateEnded)
    assert store.events(debate_id) == emitted
    summary = store.debate(debate_id)
    assert summary.status == "failed"
    assert summary.error is not None and "RuntimeError" in summary.error
    assert "the responder broke" in summary.error
    assert summary.event_count == len(emitted)


def test_a_debate_stopped_with_stop_is_stored_as_aborted(store: Store) -> None:
    config = demo_config(seed=1)
    debate = Debate(config, demo_backend(config), segmenter=SentenceSplitter())
    emitted = []
    for event in store.record(debate.events()):
        emitted.append(event)
        if isinstance(event, PlansMade) and event.turn == 3:
            debate.stop()

    end = emitted[-1]
    assert isinstance(end, DebateEnded) and end.reason is EndReason.STOPPED
    debate_id = emitted[0].debate_id
    assert store.events(debate_id) == emitted
    summary = store.debate(debate_id)
    assert summary.status == "aborted"
    assert summary.end_reason == "stopped"
    assert summary.event_count == len(emitted)


@pytest.mark.parametrize("stop_after", [1, 2, 7, 20])
def test_a_consumer_that_stops_reading_leaves_the_debate_aborted_with_every_yielded_event(
    store: Store, stop_after: int
) -> None:
    config = demo_config(seed=1)
    stream = store.record(Debate(config, demo_backend(config), segmenter=SentenceSplitter()).events())
    emitted = [next(stream) for _ in range(stop_after)]
    stream.close()

    debate_id = emitted[0].debate_id
    assert store.events(debate_id) == emitted
    summary = store.debate(debate_id)
    assert summary.status == "aborted"
    assert summary.event_count == stop_after
    assert summary.finished_at is not None


def test_breaking_out_of_the_loop_mid_debate_is_recorded_as_aborted(store: Store) -> None:
    config = demo_config(seed=1)
    emitted = []
    for event in store.record(Debate(config, demo_backend(config), segmenter=SentenceSplitter()).events()):
        emitted.append(event)
        if len(emitted) == 12:
            break
    # a for loop's generator is closed when it is collected; CPython does that at once
    debate_id = emitted[0].debate_id
    assert store.debate(debate_id).status == "aborted"
    assert store.events(debate_id) == emitted


@pytest.mark.parametrize("reason", ["budget", "error"])
def test_closing_the_stream_after_debate_ended_keeps_the_debate_status(store: Store, reason: str) -> None:
    """A consumer that stops at DebateEnded (the natural place) has seen the whole debate.

    The debate has ended and every event is stored: its status must stay what
    the end said (``finished`` / ``failed``), not turn into ``aborted``.
    """
    if reason == "budget":
        config = demo_config(seed=1, condition="fixed")
        debate = Debate(config, demo_backend(config))
        expected = "finished"
    else:
        debate = Debate(make_config(), ScriptedBackend(failing_script()), segmenter=SentenceSplitter())
        expected = "failed"
    stream = store.record(debate.events())
    emitted = []
    for event in stream:
        emitted.append(event)
        if isinstance(event, DebateEnded):
            break
    stream.close()

    debate_id = emitted[0].debate_id
    assert store.events(debate_id) == emitted
    summary = store.debate(debate_id)
    assert summary.end_reason == reason
    assert summary.status == expected


def test_a_stream_that_does_not_start_with_debate_started_is_refused_and_writes_nothing(
    store: Store,
) -> None:
    config = demo_config(seed=1)
    events = Debate(config, demo_backend(config), segmenter=SentenceSplitter()).run()
    before = row_counts(store)
    with pytest.raises(ValueError, match="first event must be debate_started"):
        list(store.record(events[1:]))
    assert row_counts(store) == before
    assert list(store.record([])) == []
    assert row_counts(store) == before


def test_experiment_id_and_participants_are_stored(store: Store) -> None:
    config = demo_config(seed=1)
    events = list(
        store.record(Debate(config, demo_backend(config), segmenter=SentenceSplitter()).events(), experiment_id="exp1")
    )
    started = events[0]
    assert isinstance(started, DebateStarted)
    assert store.debate(started.debate_id).experiment_id == "exp1"
    assert store.debate(started.debate_id).model_id == "scripted-demo"
    with store.engine.connect() as connection:
        rows = connection.execute(
            text("SELECT position, name, persona, seat FROM participants WHERE debate_id = :id ORDER BY position"),
            {"id": started.debate_id},
        ).all()
    assert [tuple(r) for r in rows] == [(i, a.name, a.persona, a.seat.value) for i, a in enumerate(config.agents)]
