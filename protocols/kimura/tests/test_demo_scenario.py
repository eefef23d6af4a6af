"""The built-in demo scenario, with the real (spaCy) segmenter."""

from __future__ import annotations

import pytest

from debate_core import Debate
from debate_core.events import DebateEnded, EndReason, Interrupted, SilentTurn, UnitDisclosed
from protocols.kimura.demo import demo_backend, demo_config
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


@pytest.mark.parametrize("layout", ["paper", "cached"])
def test_in_the_demo_an_agent_cuts_off_a_person_after_their_first_sentence_once(layout):
    """A classroom sees that an AI interrupts people too: the first time a person holds the floor."""
    import threading

    from debate_core import HumanChannel, HumanSeat
    from debate_core.config import AgentSpec, SeatKind
    from debate_core.events import SpeakerSelected

    agents = (*demo_config().agents[:2], AgentSpec(name="Jenny", seat=SeatKind.HUMAN))
    config = demo_config(agents=agents, seed=1, token_budget=260, params={"prompt_layout": layout})
    channel = HumanChannel()
    said = iter(["Wait, that is wrong. Nitrogen is 78 percent of the air.", "Let me finish this time. It is B."])

    def person() -> None:
        while (request := channel.pending(timeout_s=60)) is not None:
            if request.kind == "initial_answer":
                channel.submit(request.request_id, {"answer": "B", "reason": "I know the numbers."})
            else:
                channel.submit(request.request_id, {"text": next(said, "Nothing more from me.")})

    player = threading.Thread(target=person, daemon=True)
    player.start()
    seat = HumanSeat("Jenny", channel, timeout_s=60, live=True)
    events = []
    floors = 0
    for event in Debate(config, demo_backend(config), seats={"Jenny": seat}).events():
        events.append(event)
        if isinstance(event, UnitDisclosed) and event.speaker == "Alex" and event.index == 0 and not floors:
            channel.set_stance(intent="interrupt", urgency=9)
        if isinstance(event, SpeakerSelected) and event.speaker == "Jenny":
            floors += 1  # the first time: raise a hand to speak again; then only listen
            channel.set_stance(intent="raise" if floors == 1 else "listen", urgency=9)
    channel.close()
    player.join(10)
    cuts = [(c.interrupter, c.interrupted, c.discarded) for c in of_type(events, Interrupted)]
    assert cuts[0][:2] == ("Jenny", "Alex")
    assert ("Alex", "Jenny", ("Nitrogen is 78 percent of the air.",)) in cuts
    mine = [e.text for e in of_type(events, UnitDisclosed) if e.speaker == "Jenny"]
    assert mine[:1] == ["Wait, that is wrong."]
    assert "It is B." in mine  # the second time, the person is heard out
    assert sum(1 for c in cuts if c[1] == "Jenny") == 1
