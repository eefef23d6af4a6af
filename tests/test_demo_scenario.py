"""The built-in demo scenario, with the real (spaCy) segmenter."""

from __future__ import annotations

import pytest

from debate_core import Debate
from debate_core.events import DebateEnded, EndReason, Interrupted, SilentTurn, UnitDisclosed
from debate_core.protocols.kimura.demo import demo_backend, demo_config
from tests.conftest import first, of_type


def run_demo(**overrides):
    config = demo_config(**overrides)
    return Debate(config, demo_backend(config)).run()


def test_default_demo_shows_every_mechanism_and_reaches_the_right_answer():
    events = run_demo(condition="interruptible", seed=1)
    cut = first(events, Interrupted)
    assert (cut.interrupter, cut.interrupted) == ("Jenny", "Alex")
    assert cut.discarded  # the wrong opening was cut short
    assert of_type(events, SilentTurn)
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert end.reason is EndReason.BUDGET
    assert end.public_tokens >= 500
    assert (end.final_answer, end.correct) == ("B", True)


TIMING = {"at", "debate_id", "batch_latency_s", "latency_s", "wall_time_s"}


def without_timing(value):
    """An event dump with wall-clock fields (which differ between runs) removed."""
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list | tuple):
        return [without_timing(v) for v in value]
    return value


def test_demo_is_reproducible():
    first_run, second_run = run_demo(seed=1), run_demo(seed=1)
    assert len(first_run) == len(second_run)
    assert [without_timing(e.model_dump(mode="json")) for e in first_run] == [
        without_timing(e.model_dump(mode="json")) for e in second_run
    ]


@pytest.mark.parametrize("condition", ["fixed", "dynamic"])
def test_demo_runs_to_an_end_under_the_baselines(condition):
    events = run_demo(condition=condition, seed=1)
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert end.reason is EndReason.BUDGET
    assert end.final_answer == "B"
    assert of_type(events, Interrupted) == []
    assert all(e.total == 1 for e in of_type(events, UnitDisclosed))
