"""Action plans (Table II of Kimura et al.): JSON schema and validation.

What it does: the actions allowed in each floor state, the JSON schema a
backend can use to constrain generation of a plan (``ActionPlan``, defined
with the events) or an initial answer, and the validators that turn a model's
raw text (or a person's form) into a plan, or into the documented fallback.

A model writes a plan's fields in the order Algorithm 1 asks for them
(``PLAN_FIELDS``): thought, **urgency, then action**, purpose, answer. The
order matters to a model that writes left to right (the action is chosen
having stated the urgency, as the paper's instructions 2 and 3 run); the
prompt's output format and the schema's properties (which a grammar follows)
both list them so. Table II lists action before urgency; the record keeps
Table II's fields, and a plan is read by its keys in any order, so plans
written before this order (issue #25) read as they did.

The fallback rule, used whenever a plan is invalid (unparseable JSON, a missing
field, an action not allowed now, urgency outside 0-9 or not an integer, an
answer that is not one of the options): the agent **listens with urgency 0 and
keeps its previous answer**, and the reason is recorded on the plan record.

What it does not do: decide who speaks (see ``rules``) or call models.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debate_core.config import normalize_label
from debate_core.events.records import Action, ActionPlan
from debate_core.kernel.forms import FormInvalid
from debate_core.kernel.replies import load_object

MIN_URGENCY = 0
MAX_URGENCY = 9
MAX_THOUGHT_CHARS = 2_000
MAX_PURPOSE_CHARS = 500
MAX_FREE_ANSWER_CHARS = 200
MAX_REASON_CHARS = 4_000

# Lengths the JSON schema asks a constrained decoder to respect. Shorter than
# the validation limits above: they bound generation cost, not acceptance.
SCHEMA_THOUGHT_CHARS = 240
SCHEMA_PURPOSE_CHARS = 80
SCHEMA_REASON_CHARS = 500


WHEN_FLOOR_FREE: tuple[Action, ...] = (Action.LISTEN, Action.SPEAK)
WHEN_FLOOR_HELD: tuple[Action, ...] = (Action.LISTEN, Action.INTERRUPT)
# The order Algorithm 1 asks for them (its instructions 1-5): urgency before action.
PLAN_FIELDS = ("thought", "urgency", "action", "purpose", "answer")


def allowed_actions(floor_held: bool) -> tuple[Action, ...]:
    """``listen | interrupt`` while someone holds the floor, else ``listen | speak``."""
    return WHEN_FLOOR_HELD if floor_held else WHEN_FLOOR_FREE


def fallback_plan(previous_answer: str | None) -> ActionPlan:
    """The documented replacement for an invalid plan: listen, urgency 0, keep the answer."""
    return ActionPlan(thought="", action=Action.LISTEN, urgency=MIN_URGENCY, purpose="", answer=previous_answer)


def plan_json_schema(actions: tuple[Action, ...], labels: tuple[str, ...]) -> dict[str, Any]:
    """JSON schema of a plan with exactly the currently allowed actions and options, its properties in
    ``PLAN_FIELDS`` order (a grammar generates them in this order)."""
    answer: dict[str, Any]
    if labels:
        answer = {"type": "string", "enum": list(labels)}
    else:
        answer = {"type": "string", "minLength": 1, "maxLength": MAX_FREE_ANSWER_CHARS}
    properties: dict[str, Any] = {
        "thought": {"type": "string", "maxLength": SCHEMA_THOUGHT_CHARS},
        "urgency": {"type": "integer", "minimum": MIN_URGENCY, "maximum": MAX_URGENCY},
        "action": {"type": "string", "enum": [a.value for a in actions]},
        "purpose": {"type": "string", "maxLength": SCHEMA_PURPOSE_CHARS},
        "answer": answer,
    }
    return {
        "type": "object",
        "properties": {name: properties[name] for name in PLAN_FIELDS},
        "required": list(PLAN_FIELDS),
        "additionalProperties": False,
    }


def initial_answer_json_schema(labels: tuple[str, ...]) -> dict[str, Any]:
    """JSON schema of an initial answer: a reason, then the answer."""
    answer: dict[str, Any] = (
        {"type": "string", "enum": list(labels)}
        if labels
        else {"type": "string", "minLength": 1, "maxLength": MAX_FREE_ANSWER_CHARS}
    )
    return {
        "type": "object",
        "properties": {
            "reason": {"type": "string", "maxLength": SCHEMA_REASON_CHARS},
            "answer": answer,
        },
        "required": ["reason", "answer"],
        "additionalProperties": False,
    }


def _text_field(data: Mapping[str, Any], key: str, limit: int) -> str:
    if key not in data:
        raise FormInvalid(f"missing field {key!r}")
    value = data[key]
    if not isinstance(value, str):
        raise FormInvalid(f"field {key!r} must be a string, got {type(value).__name__}")
    return value.strip()[:limit]


def validate_answer(value: object, labels: tuple[str, ...]) -> str:
    """An option label for multiple-choice questions, a short string otherwise."""
    if labels:
        label = normalize_label(value, labels)
        if label is None:
            raise FormInvalid(f"answer {value!r} is not one of {', '.join(labels)}")
        return label
    if not isinstance(value, str) or not value.strip():
        raise FormInvalid("answer must be a non-empty string")
    return value.strip()[:MAX_FREE_ANSWER_CHARS]


def validate_urgency(value: object) -> int:
    """An integer 0-9; ``7.0`` counts as 7, ``"7"`` and ``True`` do not."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormInvalid(f"urgency must be an integer 0-9, got {value!r}")
    if isinstance(value, float) and not value.is_integer():
        raise FormInvalid(f"urgency must be an integer 0-9, got {value!r}")
    urgency = int(value)
    if not MIN_URGENCY <= urgency <= MAX_URGENCY:
        raise FormInvalid(f"urgency {urgency} is outside {MIN_URGENCY}-{MAX_URGENCY}")
    return urgency


def validate_plan(data: Mapping[str, Any], allowed: tuple[Action, ...], labels: tuple[str, ...]) -> ActionPlan:
    """Check every Table II field; raise ``FormInvalid`` naming the first problem."""
    thought = _text_field(data, "thought", MAX_THOUGHT_CHARS)
    purpose = _text_field(data, "purpose", MAX_PURPOSE_CHARS)
    if "action" not in data:
        raise FormInvalid("missing field 'action'")
    raw_action = data["action"]
    action_text = raw_action.strip().lower() if isinstance(raw_action, str) else raw_action
    try:
        action = Action(action_text)
    except ValueError:
        raise FormInvalid(f"unknown action {raw_action!r}") from None
    if action not in allowed:
        raise FormInvalid(
            f"action {action.value!r} is not allowed now (allowed: {', '.join(a.value for a in allowed)})"
        )
    if "urgency" not in data:
        raise FormInvalid("missing field 'urgency'")
    urgency = validate_urgency(data["urgency"])
    if "answer" not in data:
        raise FormInvalid("missing field 'answer'")
    answer = validate_answer(data["answer"], labels)
    return ActionPlan(thought=thought, action=action, urgency=urgency, purpose=purpose, answer=answer)


def parse_plan_text(raw: str, allowed: tuple[Action, ...], labels: tuple[str, ...]) -> tuple[ActionPlan, str | None]:
    """Model text to a valid plan and an optional note; raises ``FormInvalid``."""
    data, note = load_object(raw)
    return validate_plan(data, allowed, labels), note


def parse_initial_answer(raw: str, labels: tuple[str, ...]) -> tuple[str, str, str | None]:
    """Model text to ``(answer, reason, note)``; raises ``FormInvalid``."""
    data, note = load_object(raw)
    reason = _text_field(data, "reason", MAX_REASON_CHARS)
    if "answer" not in data:
        raise FormInvalid("missing field 'answer'")
    return validate_answer(data["answer"], labels), reason, note
