"""Action plans: allowed actions by floor state, validation of model output, JSON schema."""

from __future__ import annotations

import json

import pytest

from debate_core.events import Action, ActionPlan
from debate_core.kernel.forms import FormInvalid as PlanInvalid
from protocols.kimura.plans import (
    allowed_actions,
    fallback_plan,
    parse_initial_answer,
    parse_plan_text,
    plan_json_schema,
    validate_plan,
)

LABELS = ("A", "B", "C", "D")
FREE = (Action.LISTEN, Action.SPEAK)
HELD = (Action.LISTEN, Action.INTERRUPT)


def plan_dict(**changes):
    data = {"thought": "Beta is right.", "action": "speak", "urgency": 7, "purpose": "correct", "answer": "B"}
    data.update(changes)
    return data


def test_allowed_actions_depend_on_the_floor():
    assert allowed_actions(floor_held=False) == (Action.LISTEN, Action.SPEAK)
    assert allowed_actions(floor_held=True) == (Action.LISTEN, Action.INTERRUPT)


def test_valid_plan_is_parsed_exactly():
    plan, note = parse_plan_text(json.dumps(plan_dict()), FREE, LABELS)
    assert plan == ActionPlan(thought="Beta is right.", action=Action.SPEAK, urgency=7, purpose="correct", answer="B")
    assert note is None
    assert plan.wants_floor


def test_interrupt_is_valid_while_the_floor_is_held():
    plan, _ = parse_plan_text(json.dumps(plan_dict(action="interrupt")), HELD, LABELS)
    assert plan.action is Action.INTERRUPT


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("I would like to speak now.", "no JSON object"),
        ('{"thought": "x", "action": "speak"', "invalid JSON"),
        ("[1, 2, 3]", "expected a JSON object"),
        ("", "no JSON object"),
    ],
)
def test_unparseable_text_is_invalid(raw, message):
    with pytest.raises(PlanInvalid, match=message):
        parse_plan_text(raw, FREE, LABELS)


@pytest.mark.parametrize("field", ["thought", "action", "urgency", "purpose", "answer"])
def test_missing_field_is_invalid(field):
    data = plan_dict()
    del data[field]
    with pytest.raises(PlanInvalid, match=f"missing field '{field}'"):
        validate_plan(data, FREE, LABELS)


@pytest.mark.parametrize(
    ("action", "allowed"),
    [("interrupt", FREE), ("speak", HELD), ("shout", FREE)],
)
def test_action_not_allowed_now_is_invalid(action, allowed):
    with pytest.raises(PlanInvalid, match=r"not allowed now|unknown action"):
        validate_plan(plan_dict(action=action), allowed, LABELS)


def test_interrupt_when_floor_free_names_the_allowed_actions():
    with pytest.raises(PlanInvalid, match=r"'interrupt' is not allowed now \(allowed: listen, speak\)"):
        validate_plan(plan_dict(action="interrupt"), FREE, LABELS)


@pytest.mark.parametrize("urgency", [10, -1, 3.5, "7", True, None, [7]])
def test_bad_urgency_is_invalid(urgency):
    with pytest.raises(PlanInvalid, match="urgency"):
        validate_plan(plan_dict(urgency=urgency), FREE, LABELS)


@pytest.mark.parametrize(("urgency", "expected"), [(7.0, 7), (0, 0), (9, 9)])
def test_integral_urgency_is_accepted(urgency, expected):
    plan = validate_plan(plan_dict(urgency=urgency), FREE, LABELS)
    assert plan.urgency == expected
    assert type(plan.urgency) is int


@pytest.mark.parametrize("answer", ["E", "Beta", "B because it is second", "", None, 2])
def test_answer_not_among_options_is_invalid(answer):
    with pytest.raises(PlanInvalid, match="answer"):
        validate_plan(plan_dict(answer=answer), FREE, LABELS)


@pytest.mark.parametrize("answer", ["(b)", "b", "B.", "B)", " [B] "])
def test_label_spellings_normalise(answer):
    assert validate_plan(plan_dict(answer=answer), FREE, LABELS).answer == "B"


def test_action_is_case_insensitive():
    assert validate_plan(plan_dict(action=" Speak "), FREE, LABELS).action is Action.SPEAK


def test_free_form_answer_is_stripped():
    assert validate_plan(plan_dict(answer="  four "), FREE, ()).answer == "four"
    with pytest.raises(PlanInvalid):
        validate_plan(plan_dict(answer="   "), FREE, ())


def test_json_in_a_code_fence_is_accepted_with_a_note():
    raw = "```json\n" + json.dumps(plan_dict(answer="C")) + "\n```"
    plan, note = parse_plan_text(raw, FREE, LABELS)
    assert plan.answer == "C"
    assert note is not None
    assert "surrounding text" in note


def test_json_after_a_sentence_is_accepted_with_a_note():
    plan, note = parse_plan_text("Here is my plan: " + json.dumps(plan_dict()), FREE, LABELS)
    assert plan.urgency == 7
    assert note


def test_fallback_plan_listens_with_urgency_zero_and_keeps_the_answer():
    plan = fallback_plan("C")
    assert (plan.action, plan.urgency, plan.answer) == (Action.LISTEN, 0, "C")
    assert not plan.wants_floor


def test_plan_json_schema_constrains_actions_urgency_and_answer():
    schema = plan_json_schema(HELD, LABELS)
    props = schema["properties"]
    assert props["action"]["enum"] == ["listen", "interrupt"]
    assert props["urgency"] == {"type": "integer", "minimum": 0, "maximum": 9}
    assert props["answer"]["enum"] == ["A", "B", "C", "D"]
    assert set(schema["required"]) == {"thought", "action", "urgency", "purpose", "answer"}
    assert schema["additionalProperties"] is False
    assert plan_json_schema(FREE, LABELS)["properties"]["action"]["enum"] == ["listen", "speak"]


def test_parse_initial_answer():
    answer, reason, note = parse_initial_answer('{"reason": "second letter", "answer": "(b)"}', LABELS)
    assert (answer, reason, note) == ("B", "second letter", None)
    with pytest.raises(PlanInvalid, match="missing field 'answer'"):
        parse_initial_answer('{"reason": "no answer"}', LABELS)
