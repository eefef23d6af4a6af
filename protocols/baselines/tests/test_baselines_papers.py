"""What the baselines took from their papers in #26's last part: each row the ledger turned from ``not yet``.

Self-Contrast keeps one solution per answer before the contrast; RPD talks simultaneously, with or
without a summarizer whose summary stands in for the round; DMAD's debaters reason by Liu et al.'s
methods for language models, program of thought traced and never run; CoT, Self-Consistency and
Step-Back may quote worked examples (zero-shot by default, as SID and ACE ran them); RTC may quote
convincing samples in its discussion prompt; each variant has its paper's study temperature. Each
test runs the variant as a user does, on the scripted demo (or a script of its own).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.backends.base import GenerationRequest
from debate_core.config import Question
from debate_core.errors import ConfigError
from debate_core.events import DebateEnded, EndReason, PhaseStarted, UtteranceGenerated
from debate_core.protocols.registry import protocol_class
from debate_core.testing import Case, check_demo, check_people
from protocols.baselines.demo import BaselinesDemo
from protocols.baselines.examples import builtin, shape_of
from protocols.baselines.forms import ASKED
from protocols.baselines.params import Method
from protocols.baselines.prompting import METHOD_NAMES
from protocols.baselines.selection import representatives
from protocols.baselines.views import SolverView
from tests.conftest import QUESTION, of_type

YES_NO = Question(text="Is the sun a star?", options=("Yes", "No"), answer="A")
FREE = Question(text="What is the capital of France?", answer="Paris")


def config(variant: str, n: int = 3, question: Question = QUESTION, **params: object) -> DebateConfig:
    agents = tuple(AgentSpec(name=f"D{i}") for i in range(1, n + 1))
    return DebateConfig(question=question, agents=agents, protocol="baselines", variant=variant, params=params)


def run(cfg: DebateConfig, responder=None) -> tuple[list, ScriptedBackend]:
    backend = ScriptedBackend(responder or BaselinesDemo(cfg).reply)
    return Debate(cfg, backend).run(), backend


def prompt(request: GenerationRequest) -> str:
    return request.messages[-1].content


def ended(events: list) -> DebateEnded:
    assert isinstance(events[-1], DebateEnded)
    return events[-1]


def jsonl(path: Path, rows: list[dict[str, str]]) -> str:
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return str(path)


# --- Self-Contrast's selection -------------------------------------------------------------------


def test_self_contrast_contrasts_one_solution_per_answer_and_says_which_it_kept():
    events, backend = run(config("self_contrast", n=1))  # the demo's solutions answer B, A, B
    contrast = next(r for r in backend.requests if r.kind == "contrast")
    shown = prompt(contrast).split("several perspectives:")[1]
    assert "Solution 2:" in shown and "Solution 3:" not in shown  # one B solution and the A one
    assert shown.count("Final Answer: B") == 1 and shown.count("Final Answer: A") == 1
    select = [e for e in of_type(events, PhaseStarted) if e.phase == "select"]
    assert [e.detail for e in select] == ["one solution per answer: kept 1, 2 of 3"]
    reconcile = next(r for r in backend.requests if r.kind == "reconcile")
    assert "Solution 3:" not in prompt(reconcile)
    assert ended(events).final_answer == "B"
    events, backend = run(config("self_contrast", n=1, selection="none"))  # every solution, as before #26
    assert "Solution 3:" in prompt(next(r for r in backend.requests if r.kind == "contrast"))
    assert not [e for e in of_type(events, PhaseStarted) if e.phase == "select"]


def test_a_clusters_representative_is_its_medoid_by_word_overlap():
    texts = [
        "the sun is a star so yes. Final Answer: A",
        "stars shine; the sun is a star like others so yes. Final Answer: A",
        "no idea",
        "a star is what the sun is so yes. Final Answer: A",
        "it is a planet. Final Answer: B",
    ]
    answers = ["A", "a", None, "A", "B"]  # spelling aside, three name A
    assert representatives(answers, texts) == (0, 2, 4)
    assert representatives(["A", "A"], ["x y", "x y"]) == (0,)  # a tie keeps the earliest


# --- ChatEval's communication strategies --------------------------------------------------------


def test_rpd_talking_simultaneously_asks_each_round_in_one_batch_reading_only_the_rounds_before():
    events, backend = run(config("rpd", strategy="simultaneous"))
    assert [(r.kind, r.agent) for r in backend.requests] == [("rpd_turn", f"D{i}") for i in (1, 2, 3)] * 2
    assert len(backend.batches) == 2  # all at once, not one by one
    said = [e.text for e in of_type(events, UtteranceGenerated)]
    assert all(text not in prompt(r) for r in backend.requests[:3] for text in said)  # nothing of its own round
    assert all(f"D{i}: {said[i - 1]}" in prompt(backend.requests[4]) for i in (1, 2, 3))  # every round-1 message
    assert "critic" in backend.requests[0].messages[0].content  # in their roles, as one by one
    end = ended(events)
    assert (end.final_answer, end.rule, end.reason) == ("B", "majority", EndReason.ROUNDS)


def test_with_a_summarizer_the_summary_of_a_round_stands_in_for_its_messages():
    agents = (*config("rpd").agents, AgentSpec(name="Sam", role="summarizer"))
    cfg = config("rpd", strategy="simultaneous_summarizer", rounds=3).model_copy(update={"agents": agents})
    events, backend = run(cfg)
    kinds = [(r.kind, r.agent) for r in backend.requests]
    turns = [("rpd_turn", f"D{i}") for i in (1, 2, 3)]
    assert kinds == [*turns, ("rpd_summary", "Sam"), *turns, ("rpd_summary", "Sam"), *turns]  # none after the last
    said = {(e.speaker, e.kind): e.text for e in of_type(events, UtteranceGenerated)}
    summary, first = backend.requests[3], backend.requests[:3]
    assert all(f"{r.agent}: " in prompt(summary) for r in first)  # the summarizer reads the round's messages
    second = prompt(backend.requests[4])
    assert f"Summary of round 1: {said[('Sam', 'rpd_summary')]}" in second
    round_one = [e.text for e in of_type(events, UtteranceGenerated) if e.kind == "rpd_turn"][:3]
    assert all(text not in second for text in round_one)  # the summary, not the messages
    assert "earlier rounds:\nSummary of round 1" in prompt(backend.requests[7])  # summaries so far in view
    end = ended(events)
    assert (end.final_answer, end.reason) == ("B", EndReason.ROUNDS)
    assert "Sam" not in {v.agent for v in end.answers if v.answer is not None}  # the summarizer does not vote


def test_without_a_summarizer_seated_the_first_debaters_seat_summarizes_out_of_its_role():
    _, backend = run(config("rpd", strategy="simultaneous_summarizer"))
    summary = next(r for r in backend.requests if r.kind == "rpd_summary")
    assert summary.agent == "D1" and "critic" not in summary.messages[0].content  # no persona
    assert "You are the summarizer" in prompt(summary)


def test_the_summarizer_seat_conforms_and_a_person_may_take_it():
    agents = (*(AgentSpec(name=f"D{i}", role="debater") for i in (1, 2)), AgentSpec(name="Sam", role="summarizer"))
    case = Case(protocol_class("baselines"), "rpd", {"strategy": "simultaneous_summarizer"}, agents)
    check_demo(case)  # the stream is one that can have happened: the summarizer speaks
    assert "rpd_summary" in check_people(case)["Sam"]
    with pytest.raises(ConfigError):  # one-by-one seats no summarizer
        Debate(config("rpd").model_copy(update={"agents": agents}), ScriptedBackend(lambda r: "Final Answer: B"))


# --- DMAD's methods ------------------------------------------------------------------------------


def test_dmad_reasons_by_liu_et_als_methods_for_language_models_the_program_traced_never_run():
    cls = protocol_class("baselines")
    assert cls.Params().methods == ("cot", "step_back", "pot")
    _, backend = run(config("dmad"))
    third = prompt(backend.requests[2])
    assert "program of thought" in third and "Nothing will run the program" in third
    assert "Your way of reasoning is program of thought" in prompt(backend.requests[5])
    _, backend = run(config("dmad", methods=["cot", "step_back", "self_contrast"]))  # self-contrast in a seat
    assert "perspectives" in prompt(backend.requests[2])


def test_every_method_dmad_accepts_has_a_name_that_a_person_and_a_model_read():
    accepted = get_args(Method)
    assert set(accepted) == set(METHOD_NAMES)  # none accepted without its name, none named that is not accepted
    for method in accepted:
        view = SolverView(agent="D1", question=QUESTION, round=2, method=method)
        for kind in ("method_answer", "method_revise"):
            assert ASKED[kind](view).endswith(f"your way of reasoning, {METHOD_NAMES[method]}.")
    assert "program of thought" in ASKED["method_answer"](SolverView(agent="D1", question=QUESTION, method="pot"))


# --- exemplars -----------------------------------------------------------------------------------


def test_cot_and_step_back_are_zero_shot_by_default_as_sid_and_ace_ran_them():
    for variant in ("cot", "self_consistency", "step_back"):
        _, backend = run(config(variant, n=1))
        assert all("Worked examples" not in prompt(r) for r in backend.requests)


def test_built_in_exemplars_fit_the_questions_shape_and_each_step_quotes_its_part():
    assert (shape_of(QUESTION), shape_of(YES_NO), shape_of(FREE)) == ("choice", "yes_no", "short")
    assert all(len(builtin(shape)) == 3 for shape in ("choice", "yes_no", "short"))
    _, backend = run(config("cot", n=1, question=YES_NO, exemplars="builtin"))
    shown = prompt(backend.requests[0])
    assert shown.index("Worked examples") < shown.index("Is the sun a star?")  # before the question
    assert all(f"Reasoning: {e.reasoning}\nFinal Answer: {e.answer}" in shown for e in builtin("yes_no"))
    _, backend = run(config("self_consistency", n=1, question=FREE, exemplars="builtin"))
    assert all(builtin("short")[0].reasoning in prompt(r) for r in backend.requests)  # every sample
    _, backend = run(config("step_back", n=1, exemplars="builtin"))
    abstraction, reasoning = (prompt(r) for r in backend.requests)
    example = builtin("choice")[0]
    assert example.step_back in abstraction and example.reasoning not in abstraction  # the abstraction alone
    assert f"{example.step_back}\nReasoning: {example.reasoning}" in reasoning


def test_exemplars_may_come_from_a_file_and_a_bad_file_is_refused_saying_where(tmp_path):
    rows = [{"question": "What is 2 + 2?\nA) 3\nB) 4", "reasoning": "Two and two make four.", "answer": "B"}]
    path = jsonl(tmp_path / "mine.jsonl", rows)
    _, backend = run(config("cot", n=1, exemplars=path))
    assert "Two and two make four.\nFinal Answer: B" in prompt(backend.requests[0])
    _, backend = run(config("step_back", n=1, exemplars=path))  # no step_back field: not quoted at the abstraction
    assert "Worked examples" not in prompt(backend.requests[0])
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "reasoning": "r", "answer": "a"}\n{"question": "q"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="line 2: no reasoning, answer"):
        run(config("cot", n=1, exemplars=str(bad)))
    with pytest.raises(ConfigError, match="no such file"):
        run(config("cot", n=1, exemplars=str(tmp_path / "missing.jsonl")))


# --- ReConcile's convincing samples --------------------------------------------------------------


def test_rtc_quotes_convincing_samples_in_its_discussion_prompt_each_to_the_agents_it_did_not_correct(tmp_path):
    rows = [
        {"question": "Can a fish climb a tree?", "explanation": "Some fish, like mudskippers, do.", "answer": "yes"},
        {"question": "Is ice denser than water?", "explanation": "Ice floats.", "answer": "no", "agent": "D2"},
    ]
    cfg = config("rtc", convincing=jsonl(tmp_path / "convincing.jsonl", rows))
    _, backend = run(cfg)
    first = [prompt(r) for r in backend.requests if r.kind == "rtc_first"]
    revise = {r.agent: prompt(r) for r in backend.requests if r.kind == "rtc_revise"}
    assert all("mudskippers" not in text for text in first)  # the discussion prompt only
    assert all("mudskippers" in text for text in revise.values())
    assert "Ice floats." in revise["D1"] and "Ice floats." not in revise["D2"]  # it convinced D2: shown the others
    _, backend = run(config("rtc"))
    assert all("convinced" not in prompt(r) for r in backend.requests)  # none by default


# --- study temperatures --------------------------------------------------------------------------


def test_each_variant_samples_at_its_papers_temperature_in_a_study():
    cls = protocol_class("baselines")
    temperatures = {variant: cls.variant_study_temperature(variant) for variant in cls.variants}
    assert temperatures["self_consistency"] == 0.7  # Wang et al. §3.1
    assert temperatures["tar"] == temperatures["rtc"] == temperatures["rpd"] == 0.0  # ACE's rows
    rest = ("cot", "io", "step_back", "self_contrast", "parallel", "dmad")
    assert all(temperatures[variant] is None for variant in rest)  # SID's: the backend's default
