"""ACE's ledger rows that no other test showed: the paper's prompt-only JSON, the seats of a study, the acts."""

from __future__ import annotations

from debate_core import AgentSpec
from experiments.compare import agents_for
from protocols.ace.library import load_library
from protocols.ace.params import AceParams
from protocols.ace.tests.test_ace import NEVER_STOP, STUBBORN, Recording, config, run


def test_by_default_no_schema_is_sent_and_the_prompts_ask_for_json_as_the_paper():
    assert AceParams().constrained is False
    cfg = config()
    script = Recording(cfg)
    events = run(cfg, script)
    assert script.requests and all(r.json_schema is None for r in script.requests)
    assert all("JSON object" in r.messages[-1].content for r in script.requests)
    assert events[-1].final_answer == "B"
    constrained = Recording(config(constrained=True))
    assert run(config(constrained=True), constrained)[-1].final_answer == "B"  # the same debate, the same replies
    assert all(r.json_schema for r in constrained.requests)  # the option sends every request's schema
    assert [r.kind for r in constrained.requests] == [r.kind for r in script.requests]


def test_a_study_seats_two_debaters_and_an_observer_and_three_debaters_for_the_parallel_baseline():
    assert [(a.name, a.role) for a in agents_for("ace", "ace")] == [
        ("Debater1", "debater"), ("Debater2", "debater"), ("Observer", "observer"),
    ]  # fmt: skip
    assert [a.role for a in agents_for("ace", "parallel")] == ["debater"] * 3  # "all adopt 3 agents settings"


def test_the_library_holds_the_papers_five_acts_by_orientation_each_described_with_an_example():
    library = load_library(None)
    assert [a.name for a in library.of("self")] == ["adapt", "revise", "retain"]
    assert [a.name for a in library.of("peer")] == ["comment", "withhold"]
    assert all(a.description and a.example for a in (*library.of("self"), *library.of("peer")))


def test_the_parallel_baseline_runs_the_papers_four_rounds_by_default():
    agents = tuple(AgentSpec(name=name) for name in ("Ann", "Ben", "Cal"))
    cfg = config("parallel", agents=agents)
    script = Recording(cfg)
    run(cfg, script)
    assert script.kinds() == ["answer"] * 3 + ["revise"] * 9  # a first answer, then three revisions


def test_round_one_is_zero_shot_an_answer_asked_for_directly_with_the_options_format():
    cfg = config()
    script = Recording(cfg)
    run(cfg, script)
    first = script.prompts("answer")[0]
    assert "Answer the question directly" in first and "Answer with the letter of one option." in first
    assert "step by step" not in first.lower() and "example" not in first.lower()  # no CoT, no shots


def test_each_step_is_capped_by_its_own_parameter():
    cfg = config(answer_tokens=100, analyze_tokens=50, compose_tokens=40, pick_tokens=8, rounds=2)
    script = Recording(cfg, analyze=NEVER_STOP, answer=STUBBORN, execute=STUBBORN)
    run(cfg, script)
    caps = {r.kind: r.sampling.max_new_tokens for r in script.requests}
    assert caps == {"answer": 100, "analyze": 50, "compose": 40, "execute": 100, "pick": 8}


def test_a_small_model_is_sent_the_schema_and_the_paper_is_not():
    """The paper's free JSON stays the default; ACE recommends constrained=true for small models, which the web
    app writes into the parameters field when the embedded model is chosen and the terminal's --small-model sets."""
    import json

    from console.cli import build_parser, config_from_args
    from debate_core.protocols.registry import small_model_params
    from ui.model_presets import SMALL_MODELS, default_params, model_chosen
    from ui.session import SCRIPTED

    assert AceParams().constrained is False
    assert small_model_params("ace") == {"constrained": True}
    *_, chosen = model_chosen(SMALL_MODELS[0], "ace", default_params("ace"))
    assert json.loads(chosen["value"])["constrained"] is True
    *_, back = model_chosen(SCRIPTED, "ace", chosen["value"])
    assert json.loads(back["value"])["constrained"] is False
    args = build_parser().parse_args(["run", "--protocol", "ace", "--small-model"])
    assert config_from_args(args).params["constrained"] is True
    plain = build_parser().parse_args(["run", "--protocol", "ace"])
    assert config_from_args(plain).params.get("constrained", False) is False
