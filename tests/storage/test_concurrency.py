"""Several debates recorded at once into one SQLite file through one Store."""

from __future__ import annotations

import threading
import time

from debate_core import Debate, ScriptedBackend
from debate_core.backends.base import GenerationRequest
from debate_core.events import Event
from protocols.kimura.demo import DemoScript, demo_config
from storage import Store
from tests.conftest import SentenceSplitter

THREADS = 8
JOIN_TIMEOUT_S = 60.0


def _slow_demo(seed: int, condition: str, pause_s: float) -> Debate:
    config = demo_config(seed=seed, condition=condition)
    script = DemoScript(config)

    def respond(request: GenerationRequest) -> str:
        time.sleep(pause_s)  # lets the threads interleave
        return script.reply(request)

    return Debate(config, ScriptedBackend(respond, model_id="scripted-demo"), segmenter=SentenceSplitter())


def test_eight_debates_recorded_at_the_same_time_through_one_store(store: Store) -> None:
    conditions = ("interruptible", "fixed", "dynamic")
    debates = [_slow_demo(seed, conditions[seed % 3], 0.001) for seed in range(THREADS)]
    emitted: dict[int, list[Event]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS, timeout=JOIN_TIMEOUT_S)

    def run(index: int) -> None:
        try:
            recorder = store.recorder(experiment_id="parallel")
            start.wait()
            emitted[index] = list(recorder.record(debates[index].events()))
        except BaseException as error:  # reported below, with every other thread's
            errors.append(error)

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=JOIN_TIMEOUT_S)
    assert not any(thread.is_alive() for thread in threads), "a recording thread hung"
    assert errors == []
    assert sorted(emitted) == list(range(THREADS))

    for index, events in emitted.items():
        debate_id = events[0].debate_id
        assert debate_id == debates[index].debate_id
        assert store.events(debate_id) == events
        summary = store.debate(debate_id)
        assert summary.status == "finished"
        assert summary.event_count == len(events)
        assert summary.seed == index
    assert len(store.list_debates(experiment_id="parallel")) == THREADS


def test_a_slow_model_in_one_debate_does_not_stall_recording_of_the_others(store: Store) -> None:
    """While one debate waits for its model (mid-turn), another debate can still be recorded.

    A real model takes seconds per turn; if a recorder holds SQLite's write lock
    between its commits (across the model calls of a turn), every other
    debate's writes queue behind it and, past the 30 s busy timeout, fail with
    "database is locked".
    """
    config = demo_config(seed=1)
    script = DemoScript(config)
    waiting, release = threading.Event(), threading.Event()

    def respond(request: GenerationRequest) -> str:
        if request.kind == "plan" and request.turn == 3 and not waiting.is_set():
            waiting.set()  # mid-turn: this turn's disclosure is recorded, its plans are not
            release.wait(timeout=JOIN_TIMEOUT_S)
        return script.reply(request)

    slow = Debate(config, ScriptedBackend(respond), segmenter=SentenceSplitter())
    fast = _slow_demo(2, "interruptible", 0.0)
    results: dict[str, list[Event]] = {}
    errors: list[BaseException] = []

    def run(name: str, debate: Debate) -> None:
        try:
            results[name] = list(store.record(debate.events()))
        except BaseException as error:
            errors.append(error)

    slow_thread = threading.Thread(target=run, args=("slow", slow), daemon=True)
    fast_thread = threading.Thread(target=run, args=("fast", fast), daemon=True)
    slow_thread.start()
    try:
        assert waiting.wait(timeout=JOIN_TIMEOUT_S), "the slow debate never reached turn 3"
        fast_thread.start()
        fast_thread.join(timeout=5)
        fast_done_while_slow_waits = not fast_thread.is_alive()
    finally:
        release.set()
        slow_thread.join(timeout=JOIN_TIMEOUT_S)
        fast_thread.join(timeout=JOIN_TIMEOUT_S)
    assert errors == []
    assert store.debate(slow.debate_id).status == "finished"
    assert store.debate(fast.debate_id).status == "finished"
    assert fast_done_while_slow_waits, "the other debate could not be recorded while the slow model ran"
