"""ACE's ledger rows that no other test showed: the paper's prompt-only JSON, the seats of a study, the acts."""

from __future__ import annotations

from debate_core import AgentSpec
from experiments.compare import agents_for
from protocols.ace.library import load_library
from protocols.ace.params import AceParams
from protocols.ace.tests.test_ace import NEVER_STOP, STUBBORN, Recording, config, run
from tests.conftest import QUESTION


def test_by_default_no_schema_is_sent_and_the_prompts_ask_for_json_as_the_paper():
    assert AceParams().constrained is False
    cfg = config()
    script = Recording(cfg)
    events = run(cfg, script)
    assert script.requests and all(r.json_schema is None for r in script.requests)
    assert all("JSON" in r.messages[-1].content for r in script.requests)  # the paper's Execute: "JSON format"
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
    cfg = config(answer_tokens=100, analyze_tokens=50, compose_tokens=40, pick_tokens=8, max_rounds=2)
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


# -- the paper's Execute, and its richer option -----------------------------------------------------------------
PAPER_EXECUTE = (
    "You will be given an **action** describing what to do. Please execute it to generate a response with three"
    ' parts: 1.answer 2.explanation 3.comments(if any) Output the result in JSON format:{"answer": " ",'
    '"explanation":" ","comments":" " } Here is the action:'
)


def test_execute_is_the_papers_prompt_followed_by_the_composed_action_and_nothing_of_the_others():
    """§Execute Module: (a, E, c) = A_d(p_exe || action), the prompt as printed; the question and the format
    constraint (Implementation Details) come first, since a debater answers the question it was posed."""
    assert AceParams().execute_input == "paper"
    cfg = config()
    script = Recording(cfg)
    run(cfg, script)
    for request, composed in zip(script.requests[-3:-1], ("retain + comment: ", "adapt + withhold: "), strict=True):
        assert request.kind == "execute"
        prompt = request.messages[-1].content
        assert prompt.startswith("Question:\n" + QUESTION.render() + "\n\nAnswer with the letter of one option.\n")
        action = prompt.partition(PAPER_EXECUTE)[2]
        assert action.startswith(composed + "I will ")  # the acts and the action, as composed
        assert "last reply" not in prompt and "commented" not in prompt and "Round" not in prompt


def test_the_richer_execute_is_an_option_that_adds_the_replies_and_comments():
    cfg = config(execute_input="rich", max_rounds=3)
    script = Recording(cfg, analyze=NEVER_STOP, execute=STUBBORN_COMMENT, answer=STUBBORN)
    run(cfg, script)
    later = script.prompts("execute")[2]  # round 3: the comments of round 2 reach it
    assert "Your last reply:" in later and "'s last reply:" in later and "commented on your reply: see item 1" in later
    assert "You have been given an action to execute: " in later and PAPER_EXECUTE not in later


def STUBBORN_COMMENT(request) -> str:
    return STUBBORN(request)[:-1] + ', "comments": "see item 1"}'


# -- PAR on Du et al.'s prompts -------------------------------------------------------------------------------
def _parallel(**params):
    agents = tuple(AgentSpec(name=name) for name in ("Ann", "Ben", "Cal"))
    cfg = config("parallel", agents=agents, rounds=3, **params)
    script = Recording(cfg)
    return run(cfg, script), script


def test_the_parallel_baseline_asks_du_et_als_prompts_with_aces_format_constraint_in_their_conversation():
    """Implementation Details: the baselines on "their original prompts", only ACE's format constraint added."""
    assert AceParams().par_prompts == "du"
    events, script = _parallel(constrained=True)
    first = script.requests[0]
    assert [m.role for m in first.messages] == ["user"]  # Du et al. send no system message
    assert first.messages[0].content.startswith("Can you answer the following question as accurately as possible?")
    assert 'putting the answer in the form "Answer: X" (X: the letter of one option)' in first.messages[0].content
    last = script.requests[-1]  # round 3: the conversation so far, then the revision prompt
    assert [m.role for m in last.messages] == ["user", "assistant", "user", "assistant", "user"]
    revise = last.messages[-1].content
    assert revise.startswith("These are the solutions to the problem from other agents: \n\n One agent solution: ```")
    assert revise.count("One agent solution") == 2
    assert "Using the reasoning from other agents as additional advice" in revise
    assert "JSON" not in revise and all(r.json_schema is None for r in script.requests)  # prose: no schema
    assert events[-1].final_answer == "B"


def test_aces_own_json_prompts_for_the_baseline_are_an_option():
    events, script = _parallel(par_prompts="ace")
    assert "Ben's last reply" in script.prompts("revise")[0] and "JSON object" in script.prompts("revise")[0]
    assert events[-1].final_answer == "B"


def test_a_reply_to_du_et_als_prompts_is_read_by_its_answer_line_and_a_persona_gets_a_system_message():
    agents = (AgentSpec(name="Ann", persona="A careful reader."), AgentSpec(name="Ben"), AgentSpec(name="Cal"))
    cfg = config("parallel", agents=agents, rounds=2)
    replies = iter(["I think so.\nFinal Answer: B", "Hmm.\nAnswer: C", "No idea at all.", "x\nAnswer: Z", "", "B"])
    script = Recording(cfg, answer=lambda r: next(replies), revise=lambda r: next(replies))
    events = run(cfg, script)
    assert script.requests[0].messages[0].content == "You are Ann. A careful reader."
    said = [u for u in events if type(u).__name__ == "UtteranceGenerated"]
    assert [u.structured["answer"] for u in said] == ["B", "C", None, "B", "C", None]
    assert "not JSON" not in (said[0].structured.get("note") or "")  # prose is what was asked for
    assert "stays as it was" in said[3].structured["note"]  # "Z" names no option: Ann keeps B
    assert said[4].error  # nothing at all: the last reply is kept
