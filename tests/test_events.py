"""Events: lossless dict / JSON-lines round trips, immutability, and clear read errors."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from debate_core import Debate
from debate_core.events import (
    EVENT_TYPES,
    DebateStarted,
    PlansMade,
    event_from_dict,
    event_to_dict,
    read_jsonl,
    write_jsonl,
)
from protocols.kimura.demo import demo_backend, demo_config


@pytest.fixture(scope="module")
def demo_events(real_segmenter):
    config = demo_config(condition="interruptible", seed=1, record_prompts=True)
    return Debate(config, demo_backend(config), segmenter=real_segmenter).run()


KIMURA_TYPES = {
    "debate_started",
    "initial_answers",
    "plans_made",
    "speaker_selected",
    "interrupted",
    "utterance_generated",
    "unit_disclosed",
    "utterance_completed",
    "silent_turn",
    "debate_ended",
}


def test_demo_debate_uses_every_event_type_of_its_protocol(demo_events):
    assert {event.type for event in demo_events} == KIMURA_TYPES < set(EVENT_TYPES)


def test_every_event_type_of_every_protocol_round_trips():
    from debate_core import Debate, DebateConfig
    from debate_core.config import AgentSpec
    from debate_core.protocols import registry
    from tests.conftest import QUESTION
    from tests.protocols.tour import Tour, tour_backend

    registry.register(Tour)
    try:
        agents = tuple(AgentSpec(name=n) for n in ("Ann", "Chris", "Dee"))
        config = DebateConfig(question=QUESTION, protocol="tour", variant="regenerate", agents=agents)
        events = Debate(config, tour_backend()).run()
    finally:
        registry.unregister(Tour.name)
    assert len({e.type for e in events}) >= 15
    for event in events:
        assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event


def test_every_event_round_trips_through_a_dict(demo_events):
    for event in demo_events:
        data = event_to_dict(event)
        json.dumps(data)  # JSON-ready
        again = event_from_dict(json.loads(json.dumps(data)))
        assert type(again) is type(event)
        assert again == event


def test_every_event_round_trips_through_json_lines(demo_events, tmp_path):
    path = tmp_path / "events.jsonl"
    assert write_jsonl(demo_events, path) == len(demo_events)
    assert len(path.read_text(encoding="utf-8").splitlines()) == len(demo_events)
    assert list(read_jsonl(path)) == demo_events


def test_read_jsonl_skips_blank_lines(demo_events, tmp_path):
    path = tmp_path / "events.jsonl"
    write_jsonl(demo_events[:3], path)
    path.write_text(path.read_text(encoding="utf-8").replace("\n", "\n\n"), encoding="utf-8")
    assert list(read_jsonl(path)) == demo_events[:3]


def test_events_are_frozen(demo_events):
    started = demo_events[0]
    assert isinstance(started, DebateStarted)
    with pytest.raises(ValidationError):
        started.turn = 5  # type: ignore[misc]
    plans = next(event for event in demo_events if isinstance(event, PlansMade))
    with pytest.raises(ValidationError):
        plans.plans[0].plan.urgency = 9  # type: ignore[misc]
    with pytest.raises(ValidationError):
        started.config.token_budget = 1  # type: ignore[misc]
    for event in demo_events:
        with pytest.raises(ValidationError):
            event.seq = -1  # type: ignore[misc]


@pytest.mark.parametrize(
    "bad_line",
    ["{not json", '{"type": "no_such_event", "seq": 0}', '{"type": "silent_turn", "seq": 3}', "[1, 2]"],
)
def test_malformed_line_names_its_line_number(demo_events, tmp_path, bad_line):
    path = tmp_path / "events.jsonl"
    write_jsonl(demo_events[:4], path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(bad_line + "\n")
    with pytest.raises(ValueError, match=r"events\.jsonl:5: not a debate event"):
        list(read_jsonl(path))


def test_event_from_dict_rejects_unknown_fields(demo_events):
    data = event_to_dict(demo_events[-1])
    data["surprise"] = 1
    with pytest.raises(ValidationError, match="surprise"):
        event_from_dict(data)


def test_recorded_prompts_survive_the_round_trip(demo_events):
    plans = next(event for event in demo_events if isinstance(event, PlansMade))
    prompt = plans.plans[0].generation.prompt
    assert prompt, "record_prompts=True should record the plan prompt"
    assert event_from_dict(event_to_dict(plans)).plans[0].generation.prompt == prompt


# -- integers every store can hold ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "field", "largest"),
    [
        ("unit_disclosed", "public_tokens", 2**31 - 1),
        ("unit_disclosed", "utterance_id", 2**31 - 1),
        ("unit_disclosed", "tokens", 2**31 - 1),
        ("unit_disclosed", "total", 2**31 - 1),
        ("unit_disclosed", "seq", 2**31 - 1),
    ],
)
def test_an_event_holds_no_integer_an_integer_column_cannot(kind: str, field: str, largest: int) -> None:
    """Counts land in INTEGER columns (32 bits on PostgreSQL): 2^31 - 1 is the most an event holds."""
    from debate_core.events import event_from_dict

    unit = {
        "type": kind,
        "seq": 3,
        "turn": 1,
        "public_tokens": 4,
        "at": 1.0,
        "speaker": "Ann",
        "utterance_id": 1,
        "index": 0,
        "total": 1,
        "text": "Beta.",
        "tokens": 2,
    }
    assert getattr(event_from_dict({**unit, field: largest}), field) == largest
    for too_big in (largest + 1, 2**63, 2**64, 10**30):
        with pytest.raises(ValidationError):
            event_from_dict({**unit, field: too_big})


def test_a_debates_statistics_hold_any_count_json_keeps_exact() -> None:
    from debate_core.events import DebateStats

    assert DebateStats(prompt_tokens=2**53 - 1).prompt_tokens == 2**53 - 1
    with pytest.raises(ValidationError):
        DebateStats(prompt_tokens=2**53)


def test_labels_that_land_in_narrow_columns_are_bounded() -> None:
    from debate_core.events import event_from_dict

    answers = {"type": "answers_updated", "seq": 1, "turn": 0, "public_tokens": 0, "at": 1.0, "answers": []}
    assert event_from_dict({**answers, "cause": "c" * 128}).cause == "c" * 128
    with pytest.raises(ValidationError):
        event_from_dict({**answers, "cause": "c" * 129})
