"""The three conditions of the paper on identical scripted inputs (Section IV-C)."""

from __future__ import annotations

import pytest

from debate_core import Condition
from debate_core.events import (
    DebateEnded,
    DebateStarted,
    Interrupted,
    PlansMade,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceGenerated,
)
from protocols.kimura.plans import Action
from tests.conftest import AGENTS, LISTEN, build_script_backend, first, make_config, of_type, run

ALEX = "Alpha is first. Alpha is the answer. Alpha once more."
JENNY = "Beta is second. So B."
CHRIS = "I am not sure."


def _eager_jenny(turn, agent):
    # Jenny asks for the floor with the highest urgency at every turn (interrupting when
    # someone holds it); the others listen unless told otherwise.
    return ("floor", 9, "B") if agent == "Jenny" and turn >= 1 else LISTEN


def debate(condition: Condition):
    backend = build_script_backend(
        {(0, "Alex"): ("speak", 7, "A")},
        {"Alex": [ALEX], "Chris": [CHRIS], "Jenny": [JENNY] * 10},
        default_plan=_eager_jenny,
    )
    events = run(make_config(condition=condition, max_turns=7), backend)
    return events, backend


def speakers(events):
    return [event.speaker for event in of_type(events, SpeakerSelected)]


def assert_plans_every_turn(events):
    last_turn = events[-1].turn
    assert [p.turn for p in of_type(events, PlansMade)] == list(range(last_turn + 1))
    for plans in of_type(events, PlansMade):
        assert [a.agent for a in plans.answers] == list(AGENTS)
        assert all(a.answer is not None for a in plans.answers)


def assert_whole_messages(events):
    generated = {e.utterance_id: e for e in of_type(events, UtteranceGenerated)}
    disclosed = of_type(events, UnitDisclosed)
    assert disclosed
    for event in disclosed:
        assert (event.index, event.total) == (0, 1)
        assert event.text == generated[event.utterance_id].text
    assert all(len(e.units) == 1 for e in generated.values())


def test_fixed_order_ignores_plans_and_discloses_whole_messages():
    events, _ = debate(Condition.FIXED)
    assert first(events, DebateStarted).protocol == "fixed"
    assert first(events, DebateStarted).segmenter == "whole-message"
    assert speakers(events) == ["Alex", "Chris", "Jenny", "Alex", "Chris", "Jenny", "Alex"]
    assert all(e.rule == "fixed_order" and e.urgency is None for e in of_type(events, SpeakerSelected))
    assert [e.turn for e in of_type(events, UnitDisclosed)] == list(range(1, 8))
    assert_whole_messages(events)
    assert of_type(events, SilentTurn) == []
    assert of_type(events, Interrupted) == []
    assert_plans_every_turn(events)


def test_dynamic_order_selects_by_urgency_but_never_interrupts():
    events, _ = debate(Condition.DYNAMIC)
    assert first(events, DebateStarted).protocol == "dynamic"
    # Alex opens (urgency 7); his whole message is public at turn 1, then Jenny, who
    # plans with urgency 9 every turn, takes every free floor.
    assert speakers(events)[:3] == ["Alex", "Jenny", "Jenny"]
    assert set(speakers(events)[1:]) == {"Jenny"}
    assert all(e.rule == "urgency" and e.interrupts is None for e in of_type(events, SpeakerSelected))
    assert_whole_messages(events)
    assert first(events, UnitDisclosed).text == ALEX
    assert of_type(events, Interrupted) == []
    # Nobody ever holds the floor while others plan, so 'interrupt' is never on offer.
    for plans in of_type(events, PlansMade):
        assert plans.floor_holder is None
        assert all(r.allowed == (Action.LISTEN, Action.SPEAK) for r in plans.plans)
    assert_plans_every_turn(events)


def test_interruptible_discloses_sentences_and_interrupts():
    events, _ = debate(Condition.INTERRUPTIBLE)
    assert first(events, DebateStarted).protocol == "interruptible"
    disclosed = of_type(events, UnitDisclosed)
    assert disclosed[0].text == "Alpha is first."
    assert disclosed[0].total == 3
    cuts = of_type(events, Interrupted)
    assert cuts
    assert (cuts[0].turn, cuts[0].interrupter, cuts[0].interrupted) == (1, "Jenny", "Alex")
    assert cuts[0].discarded == ("Alpha is the answer.", "Alpha once more.")
    assert any(r.allowed == (Action.LISTEN, Action.INTERRUPT) for p in of_type(events, PlansMade) for r in p.plans)
    assert_plans_every_turn(events)


@pytest.mark.parametrize("condition", list(Condition))
def test_every_condition_ends_and_counts_budget_by_disclosed_tokens(condition):
    events, backend = debate(condition)
    end = events[-1]
    assert isinstance(end, DebateEnded)
    disclosed = of_type(events, UnitDisclosed)
    assert end.public_tokens == sum(backend.count_tokens(e.text) for e in disclosed)


def test_fixed_order_has_no_silent_turns_even_when_everyone_listens():
    events = run(make_config(condition=Condition.FIXED, max_turns=4), build_script_backend())
    assert of_type(events, SilentTurn) == []
    assert speakers(events) == ["Alex", "Chris", "Jenny", "Alex"]


def test_dynamic_order_has_silent_turns_when_everyone_listens():
    events = run(make_config(condition=Condition.DYNAMIC, max_silent_turns=2), build_script_backend())
    assert [e.consecutive for e in of_type(events, SilentTurn)] == [1, 2]
    assert speakers(events) == []
