"""Kimura's knobs are its parameters: the flags and form fields still set them, older configurations still read.

``history_window``, ``prompt_layout`` and ``utterance_max_new_tokens`` were top-level fields of
``DebateConfig`` and are Kimura's ``params`` now. Checked here: a stream written with them at the top
level (schema 2, before the move) reads with them in ``params``, for Kimura, and without them for
another protocol (which never read them); a value given both ways and differently is refused; the
command line's ``--history-window``, ``--layout`` and ``--utterance-max-new-tokens`` and the web
form's fields land in Kimura's parameters and change its requests, an explicit ``--param`` wins, and
another protocol still runs with the flags given.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from console.cli import build_parser, config_from_args, main
from debate_core import Debate
from debate_core.events import DebateStarted, event_from_dict, event_to_dict, read_jsonl
from protocols.kimura.demo import demo_backend

KNOBS = {"history_window": 5, "prompt_layout": "cached", "utterance_max_new_tokens": 7}


def _run_cli(tmp_path: Path, *flags: str) -> list[dict]:
    out = tmp_path / "events.jsonl"
    assert main(["run", "--seed", "1", "--budget", "60", "--quiet", "--events-jsonl", str(out), *flags]) == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def _flags(knobs: dict) -> list[str]:
    return [
        "--history-window",
        str(knobs["history_window"]),
        "--layout",
        knobs["prompt_layout"],
        "--utterance-max-new-tokens",
        str(knobs["utterance_max_new_tokens"]),
    ]


def _old_shape(started: dict, **top_level: object) -> dict:
    """``started`` as written before the move: the knobs at the top of the configuration, not in params."""
    config = dict(started["config"])
    params = {key: value for key, value in config["params"].items() if key not in top_level}
    return {**started, "config": {**config, "params": params, **top_level}}


def test_the_flags_become_kimuras_parameters_and_change_its_requests():
    args = build_parser().parse_args(["run", "--seed", "1", "--budget", "120", *_flags(KNOBS)])
    config = config_from_args(args)
    backend = demo_backend(config)
    events = Debate(config, backend).run()
    started = events[0]
    assert isinstance(started, DebateStarted)
    assert started.config.params == {"urgency": "stated", **KNOBS}
    utterances = [r for r in backend.requests if r.kind == "utterance"]
    assert utterances and all(r.sampling.max_new_tokens == 7 for r in utterances)

    paper = config_from_args(build_parser().parse_args(["run", "--seed", "1", "--budget", "120"]))
    paper_backend = demo_backend(paper)
    Debate(paper, paper_backend).run()
    assert max(r.sampling.max_new_tokens for r in paper_backend.requests if r.kind == "utterance") == 1024
    first_plan = next(r for r in backend.requests if r.kind == "plan").messages[-1].content
    paper_plan = next(r for r in paper_backend.requests if r.kind == "plan").messages[-1].content
    assert first_plan != paper_plan  # the cached layout's template


def test_a_run_records_the_flags_in_params_and_an_explicit_param_wins(tmp_path):
    events = _run_cli(tmp_path, *_flags(KNOBS), "--param", "history_window=3", "--param", "prompt_layout=paper")
    assert events[0]["type"] == "debate_started" and events[-1]["type"] == "debate_ended"
    assert events[0]["config"]["params"] == {
        "urgency": "stated",
        "history_window": 3,
        "prompt_layout": "paper",
        "utterance_max_new_tokens": 7,
    }
    assert not set(KNOBS) & set(events[0]["config"])


def test_an_invalid_window_is_still_a_set_up_error(capsys):
    assert main(["run", "--history-window", "0", "--quiet"]) == 2
    assert "history_window" in capsys.readouterr().out


def test_another_protocol_runs_with_the_flags_given_and_takes_none_of_them(tmp_path):
    events = _run_cli(tmp_path, "--protocol", "parliament", *_flags(KNOBS))
    assert events[0]["config"]["protocol"] == "parliament" and events[-1]["type"] == "debate_ended"
    assert not set(KNOBS) & (set(events[0]["config"]["params"]) | set(events[0]["config"]))


def test_a_kimura_stream_written_before_the_move_reads_with_its_knobs_in_params(tmp_path):
    new = _run_cli(tmp_path, *_flags(KNOBS))
    old = _old_shape(new[0], **KNOBS)
    assert old["schema_version"] == 2 and old["config"]["params"] == {"urgency": "stated"}
    assert event_to_dict(event_from_dict(old)) == new[0]
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in [old, *new[1:]]) + "\n", encoding="utf-8")
    assert [event_to_dict(e) for e in read_jsonl(path)] == new


def test_another_protocols_stream_written_before_the_move_reads_without_them(tmp_path):
    new = _run_cli(tmp_path, "--protocol", "parliament")
    defaults = {"history_window": 30, "prompt_layout": "paper", "utterance_max_new_tokens": None}
    old = {**new[0], "config": {**new[0]["config"], **defaults}}  # stored with their defaults, never read
    assert event_to_dict(event_from_dict(old)) == new[0]


def test_a_knob_given_twice_with_two_values_is_refused(tmp_path):
    new = _run_cli(tmp_path, *_flags(KNOBS))
    same = {**new[0], "config": {**new[0]["config"], "history_window": 5}}  # the same value twice: read
    assert event_to_dict(event_from_dict(same)) == new[0]
    clash = {**new[0], "config": {**new[0]["config"], "history_window": 9}}
    with pytest.raises(ValidationError, match="history_window"):
        event_from_dict(clash)


def test_the_web_form_sets_kimuras_parameters_and_its_json_wins():
    from tests.test_ui_view import form_fields
    from ui.setup_config import config_from_form

    config = config_from_form(form_fields())
    assert config.params == {"utterance_max_new_tokens": 80, "prompt_layout": "cached"}
    chosen = config_from_form(form_fields(params='{"prompt_layout": "paper", "history_window": 4}'))
    assert chosen.params == {"utterance_max_new_tokens": 80, "prompt_layout": "paper", "history_window": 4}


def test_a_comparison_gives_its_layout_and_cap_to_kimura_unless_a_system_sets_them():
    from debate_core.config import Question
    from experiments.compare import CompareSpec, Item

    spec = CompareSpec(
        experiment_id="knobs",
        systems=("kimura/interruptible", "parliament/cot"),
        prompt_layout="cached",
        utterance_max_new_tokens=9,
        params={"kimura": {"utterance_max_new_tokens": 11}},
    )
    item = Item("mmlu", "mmlu:0:greek", "toy", Question(text="Second letter?", options=("Alpha", "Beta"), answer="B"))
    assert spec.config(item, "kimura/interruptible").params == {
        "prompt_layout": "cached",
        "utterance_max_new_tokens": 11,
    }
    paper = spec.config(item, "kimura/interruptible:prompt_layout=paper").params
    assert paper == {"prompt_layout": "paper", "utterance_max_new_tokens": 11}
    assert not set(KNOBS) & set(spec.config(item, "parliament/cot").params)


def test_the_history_window_flag_bounds_the_turns_a_prompt_shows():
    def last_plan_prompt(*flags: str) -> str:
        config = config_from_args(build_parser().parse_args(["run", "--seed", "1", "--budget", "300", *flags]))
        backend = demo_backend(config)
        Debate(config, backend).run()
        return [r for r in backend.requests if r.kind == "plan"][-1].messages[-1].content

    narrow, wide = last_plan_prompt("--history-window", "2"), last_plan_prompt()
    assert len(narrow) < len(wide)
    assert last_plan_prompt("--history-window", "2", "--param", "history_window=null") == wide  # --param wins
