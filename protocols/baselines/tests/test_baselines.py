"""The baselines built so far on the scripted backend: what each asks, in what order, and how it answers.

Each test runs a variant the way a user does (a ``Debate`` over a scripted backend, or the study
harness from its command line) and asserts what the variant's paper makes it do: IO asks once for
the answer alone; CoT reasons and ends with its answer line; Self-Consistency asks k samples and
answers their majority; Step-Back reasons from the principles it first stated; Self-Contrast
solves from each perspective, contrasts the solutions and reconciles them with the checklist in
view; parallel debate's debaters answer, read the others' last answers and revise, and the
majority decides; in TAR the negative side answers the affirmative's words and the judge ends the
debate for a side, or gives its own verdict after the last round; DMAD's debaters keep their own
ways of reasoning; RTC's agents answer with confidence, discuss the grouped answers until they
agree, and the confidence-weighted vote decides; RPD's debaters speak one by one in their roles.
A person in a seat, every fold, the store and the study report are the conformance suite's
(``tests/conformance``).
"""

from __future__ import annotations

import csv
import random

import pytest
from pydantic import ValidationError

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.backends.base import GenerationRequest
from debate_core.config import Question
from debate_core.events import AgentAnswer, DebateEnded, EndReason, PhaseStarted, UtteranceGenerated
from debate_core.protocols.registry import protocol_class
from experiments.cli import main
from protocols.baselines.demo import BaselinesDemo
from protocols.baselines.forms import DEFAULT_PERSPECTIVES, final_answer, read_perspectives
from protocols.baselines.judge import Judged, judge_form
from protocols.baselines.reconcile import read_confidence, weight, weighted_vote
from protocols.baselines.views import SolverView
from tests.conftest import QUESTION, of_type
from tests.experiments.offline import block_downloads

SINGLE = ("io", "cot", "self_consistency", "step_back", "self_contrast")
BUILT = (*SINGLE, "parallel", "tar", "dmad", "rtc", "rpd")


def config(variant: str, **params: object) -> DebateConfig:
    return DebateConfig(
        question=QUESTION, agents=(AgentSpec(name="Solo"),), protocol="baselines", variant=variant, params=params
    )


def run(cfg: DebateConfig, responder=None) -> tuple[list, ScriptedBackend]:
    backend = ScriptedBackend(responder or BaselinesDemo(cfg).reply)
    return Debate(cfg, backend).run(), backend


def ended(events: list) -> DebateEnded:
    end = events[-1]
    assert isinstance(end, DebateEnded)
    return end


def prompt(request: GenerationRequest) -> str:
    return request.messages[-1].content


def test_io_asks_once_for_the_answer_alone_and_it_is_the_debates():
    events, backend = run(config("io"))
    assert [r.kind for r in backend.requests] == ["answer"]
    assert "no explanation" in prompt(backend.requests[0])
    end = ended(events)
    assert (end.final_answer, end.rule, end.decided_by, end.correct) == ("B", "single", "Solo", True)
    assert end.reason is EndReason.PHASES_DONE


def test_a_direct_answer_may_be_the_label_alone_but_a_reasoning_needs_its_final_answer_line():
    view = SolverView(agent="Solo", question=QUESTION)
    assert final_answer("B", view, bare=True) == "B"
    assert final_answer("Beta", view, bare=True) == "B"
    assert final_answer("I think B.\n**Final Answer:** (C)", view) == "C"
    assert final_answer("Final Answer: A\nOn reflection...\nFinal Answer: D", view) == "D"  # the last line counts
    assert final_answer("It is B, surely.", view) is None


def test_cot_reasons_step_by_step_and_ends_with_its_answer():
    events, backend = run(config("cot"))
    assert [r.kind for r in backend.requests] == ["reasoning"]
    assert "step by step" in prompt(backend.requests[0])
    (said,) = of_type(events, UtteranceGenerated)
    assert said.text.rstrip().endswith("Final Answer: B") and len(said.units) > 1
    assert ended(events).final_answer == "B"


def test_a_reasoning_without_an_answer_line_leaves_no_answer_and_says_why():
    events, _ = run(config("cot"), lambda request: "I am not sure which it is.")
    end = ended(events)
    assert end.final_answer is None and end.correct is False
    (said,) = of_type(events, UtteranceGenerated)
    assert "no Final Answer line" in (said.structured or {}).get("problem", "")


def test_self_consistency_samples_k_chains_of_thought_and_answers_their_majority():
    events, backend = run(config("self_consistency"))  # samples=3: SID's setting
    assert [r.kind for r in backend.requests] == ["sample"] * 3
    assert len({r.sampling.seed for r in backend.requests}) == 3  # each sample its own draw
    end = ended(events)  # the demo's second sample strays to A
    assert (end.final_answer, end.rule) == ("B", "majority")
    assert {(v.answer, v.count) for v in end.votes} == {("B", 2), ("A", 1)}
    events, backend = run(config("self_consistency", samples=5))
    assert len(backend.requests) == 5 and ended(events).final_answer == "B"


def test_a_sample_that_names_no_answer_casts_no_vote():
    replies = iter(["Final Answer: C", "I cannot tell.", "Final Answer: C"])
    events, _ = run(config("self_consistency"), lambda request: next(replies))
    end = ended(events)
    assert (end.final_answer, [(v.answer, v.count) for v in end.votes]) == ("C", [("C", 2)])


def test_step_back_states_the_principles_first_and_reasons_from_them():
    events, backend = run(config("step_back"))
    first, second = backend.requests
    assert (first.kind, second.kind) == ("step_back", "step_back_reasoning")
    assert "Do not answer the original question yet" in prompt(first)
    principles = next(e.text for e in of_type(events, UtteranceGenerated) if e.kind == "step_back")
    assert "Principles:" in principles and principles in prompt(second)
    assert ended(events).final_answer == "B"


def test_self_contrast_solves_from_each_perspective_contrasts_them_and_reconciles_with_the_checklist():
    events, backend = run(config("self_contrast"))
    kinds = [r.kind for r in backend.requests]
    assert kinds == ["perspectives", "perspective", "perspective", "perspective", "contrast", "reconcile"]
    solving = backend.requests[1:4]
    assert [DEFAULT_PERSPECTIVES[i] in prompt(r) for i, r in enumerate(solving)] == [True] * 3
    said = {e.kind: e.text for e in of_type(events, UtteranceGenerated)}
    assert "Final Answer: A" in prompt(backend.requests[4])  # the second perspective's stray solution is contrasted
    assert said["contrast"] in prompt(backend.requests[5])  # the checklist is in view when reconciling
    assert ended(events).final_answer == "B"
    _, backend = run(config("self_contrast", perspectives=2))
    assert [r.kind for r in backend.requests].count("perspective") == 2


def test_perspectives_are_read_one_per_line_and_missing_ones_are_the_defaults():
    assert read_perspectives("1. Use algebra.\n- Draw a diagram\n\n- Use algebra.", 3) == (
        "Use algebra.",
        "Draw a diagram",
        DEFAULT_PERSPECTIVES[0],
    )
    assert read_perspectives("a\nb\nc\nd", 2) == ("a", "b")


def test_a_free_form_question_is_answered_in_a_few_words():
    question = Question(text="What is the capital of France?", answer="Paris")
    cfg = DebateConfig(question=question, agents=(AgentSpec(name="Solo"),), protocol="baselines", variant="cot")
    events, _ = run(cfg, lambda request: "France's capital is well known.\nFinal Answer: Paris.")
    assert (ended(events).final_answer, ended(events).correct) == ("Paris", True)


def test_the_family_lists_its_variants_with_the_study_temperature_of_sids_setup():
    cls = protocol_class("baselines")
    assert set(BUILT) == set(cls.variants) and cls.default_variant() == "cot"
    assert cls.study_temperature is None  # the backend's default, as SID's code runs its baselines


def test_a_comparison_of_the_built_baselines_runs_end_to_end_and_reports_each(tmp_path, monkeypatch):
    block_downloads(monkeypatch, tmp_path)
    db, out = str(tmp_path / "s.sqlite3"), tmp_path / "report"
    systems = ",".join(f"baselines/{v}" for v in BUILT)
    common = ["--experiment", "bl", "--db", db, "--backend", "scripted", "--no-progress"]
    assert main(["compare", *common, "--systems", systems, "--mmlu", "2", "--strategyqa", "0"]) == 0
    assert main(["report", "bl", "--db", db, "--out", str(out), "--no-png"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    with open(out / "debates.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for variant in BUILT:
        assert f"| mmlu | baselines/{variant} |" in text
        mine = [row for row in rows if row["system"] == f"baselines/{variant}"]
        reason = {"parallel": "rounds", "dmad": "rounds", "rpd": "rounds", "tar": "verdict", "rtc": "consensus"}.get(
            variant, "phases_done"
        )
        assert len(mine) == 2 and all(row["end_reason"] == reason for row in mine)
        assert all(int(row["generated_tokens"]) > 0 for row in mine)  # tokens are counted as every protocol's


def test_a_reasoning_is_capped_at_reasoning_tokens_and_a_direct_answer_at_answer_tokens():
    _, backend = run(config("cot", reasoning_tokens=200))
    assert backend.requests[0].sampling.max_new_tokens == 200
    _, backend = run(config("io"))
    assert backend.requests[0].sampling.max_new_tokens == 48


def debaters(n: int = 3, **params: object) -> DebateConfig:
    agents = tuple(AgentSpec(name=f"D{i}") for i in range(1, n + 1))
    return DebateConfig(question=QUESTION, agents=agents, protocol="baselines", variant="parallel", params=params)


def test_parallel_debaters_answer_alone_then_revise_after_reading_the_others_last_answers():
    events, backend = run(debaters())  # rounds=2: Du et al.'s 3 agents over 2 rounds
    assert [r.kind for r in backend.requests] == ["first_answer"] * 3 + ["revise"] * 3
    assert len(backend.batches) == 2  # each round is asked in one batch
    first = {r.agent: prompt(r) for r in backend.requests[:3]}
    assert all("other agents" not in text for text in first.values())  # round 1: the question alone
    revised = {r.agent: prompt(r) for r in backend.requests[3:]}
    said = {e.speaker: e.text for e in of_type(events, UtteranceGenerated) if e.kind == "first_answer"}
    for agent, text in revised.items():
        others = [name for name in said if name != agent]
        assert all(f"{name}: {said[name]}" in text for name in others)  # the others' last answers, named
        assert f"{agent}: " not in text.split("other agents:")[1]  # not its own among them
        assert said[agent] in text  # its own last answer, as its own
    end = ended(events)  # the demo's second debater strays in round 1 and comes round
    assert (end.final_answer, end.rule, end.reason) == ("B", "majority", EndReason.ROUNDS)
    assert [(v.answer, v.count) for v in end.votes] == [("B", 3)]


def test_parallel_runs_its_rounds_and_the_majority_of_the_last_answers_decides():
    def stubborn(request: GenerationRequest) -> str:
        return "Final Answer: C" if request.agent == "D1" else "Final Answer: A"

    events, backend = run(debaters(rounds=4), stubborn)  # ACE's Table 1 runs its baselines over 4 rounds
    assert [r.kind for r in backend.requests].count("revise") == 9
    end = ended(events)
    assert (end.final_answer, [(v.answer, v.count) for v in end.votes]) == ("A", [("A", 2), ("C", 1)])
    assert len(of_type(events, PhaseStarted)) == 4


def sides_and_judge(**params: object) -> DebateConfig:
    agents = (AgentSpec(name="Aff"), AgentSpec(name="Neg"), AgentSpec(name="Judge"))
    return DebateConfig(question=QUESTION, agents=agents, protocol="baselines", variant="tar", params=params)


def test_tar_sides_debate_each_round_and_the_judge_ends_it_when_one_side_is_clearly_right():
    events, backend = run(sides_and_judge())
    kinds = [r.kind for r in backend.requests]
    assert kinds == ["affirmative", "negative", "judge_check"] * 2  # the demo's judge prefers a side in round 2
    said = of_type(events, UtteranceGenerated)
    negative, judge = backend.requests[1:3]
    assert said[0].text in prompt(negative) and "You disagree" in prompt(negative)  # tit for tat on its words
    assert said[1].text in prompt(backend.requests[3])  # the affirmative answers the negative next round
    assert "affirmative side answers B; the negative side answers A" in prompt(judge)
    end = ended(events)
    assert (end.final_answer, end.rule, end.decided_by, end.reason) == ("B", "judge", "Judge", EndReason.VERDICT)


def test_tar_without_a_preference_runs_max_rounds_and_the_judge_gives_its_own_verdict():
    def undecided(request: GenerationRequest) -> str:
        if request.kind == "judge_check":
            return '{"preference": "no", "side": "affirmative", "answer": "A", "reason": "Both are plausible."}'
        if request.kind == "judge_final":
            return "Weighing both sides, the negative side is right.\nFinal Answer: C"
        return "Final Answer: A" if request.kind == "affirmative" else "Final Answer: C"

    events, backend = run(sides_and_judge(), undecided)  # max_rounds=3
    kinds = [r.kind for r in backend.requests]
    assert kinds == ["affirmative", "negative", "judge_check"] * 3 + ["judge_final"]
    end = ended(events)
    assert (end.final_answer, end.rule, end.decided_by, end.reason) == ("C", "judge", "Judge", EndReason.ROUNDS)
    _, backend = run(sides_and_judge(max_rounds=1), undecided)
    assert [r.kind for r in backend.requests] == ["affirmative", "negative", "judge_check", "judge_final"]


def test_the_judges_call_names_a_side_and_its_answer_and_a_bare_preference_lets_the_debate_go_on():
    form = judge_form(200)
    view = SolverView(agent="Judge", question=QUESTION, sides=("B", "A"))
    assert form.parse('{"preference": "yes", "side": "negative", "answer": "", "reason": "r"}', view)[0] == Judged(
        True, "negative", "A", "r"
    )
    lines = "Preference: yes\nSide: affirmative\nReason: sound.\nFinal Answer: (C)"
    assert form.parse(lines, view)[0] == Judged(True, "affirmative", "C", "sound.")
    judged, note = form.parse('{"preference": "yes", "side": "neither", "answer": "?"}', view)
    assert not judged.stop and "goes on" in (note or "")
    person = form.from_human({"preference": "yes", "side": "affirmative"}, view)
    assert (person.stop, person.answer) == (True, "B")


def test_dmad_debaters_each_reason_by_their_own_method_in_every_round():
    cfg = debaters().model_copy(update={"variant": "dmad"})
    events, backend = run(cfg)  # methods: chain of thought, step-back, program of thought, in seat order
    assert [r.kind for r in backend.requests] == ["method_answer"] * 3 + ["method_revise"] * 3
    assert len(backend.batches) == 2
    first = {r.agent: prompt(r) for r in backend.requests[:3]}
    assert "step by step" in first["D1"] and "take a step back" in first["D2"] and "Python program" in first["D3"]
    revised = {r.agent: prompt(r) for r in backend.requests[3:]}
    assert "Your way of reasoning is chain of thought" in revised["D1"]
    assert "Your way of reasoning is step-back prompting" in revised["D2"]
    assert "Your way of reasoning is program of thought" in revised["D3"]
    end = ended(events)
    assert (end.final_answer, end.rule, end.reason) == ("B", "majority", EndReason.ROUNDS)


def test_dmad_gives_the_methods_in_turn_and_refuses_one_it_does_not_know():
    agents = tuple(AgentSpec(name=f"D{i}") for i in range(1, 5))
    cfg = DebateConfig(
        question=QUESTION, agents=agents, protocol="baselines", variant="dmad", params={"methods": ["cot", "step_back"]}
    )
    _, backend = run(cfg)
    first = {r.agent: prompt(r) for r in backend.requests[:4]}
    assert ["step by step" in first[f"D{i}"] for i in range(1, 5)] == [True, False, True, False]
    with pytest.raises(ValidationError):
        protocol_class("baselines").Params.model_validate({"methods": ["program_of_thought"]})


def test_rtc_answers_with_confidence_discusses_the_grouped_answers_and_a_consensus_ends_it():
    events, backend = run(debaters().model_copy(update={"variant": "rtc"}))
    assert [r.kind for r in backend.requests] == ["rtc_first"] * 3 + ["rtc_revise"] * 3  # round 3 is not held
    shown = prompt(backend.requests[3])
    assert "2 agent(s) answer B" in shown and "1 agent(s) answer A" in shown
    assert "D2 (confidence 0.6)" in shown and "D1 (confidence 0.9)" in shown
    end = ended(events)
    assert (end.final_answer, end.rule, end.reason) == ("B", "confidence_weighted", EndReason.CONSENSUS)
    vote = [e for e in of_type(events, PhaseStarted) if e.phase == "vote"]
    assert vote and "B: 2.4" in vote[0].detail  # three agents at 0.9, each weighing 0.8


def test_rtc_without_a_consensus_runs_its_discussion_rounds_and_the_confident_answer_wins():
    def split(request: GenerationRequest) -> str:
        if request.agent == "D1":
            return "Final Answer: C\nConfidence: 1.0"
        return "Final Answer: A\nConfidence: 0.7"

    events, backend = run(debaters().model_copy(update={"variant": "rtc"}), split)  # discussion_rounds=3
    assert len(backend.requests) == 3 * 4
    end = ended(events)  # one sure agent (weight 1.0) outweighs two at 0.7 (0.3 each)
    assert (end.final_answer, end.reason) == ("C", EndReason.ROUNDS)


def test_reconciles_recalibration_and_confidence_lines():
    assert [weight(p) for p in (1.0, 0.95, 0.85, 0.7, 0.6, None)] == [1.0, 0.8, 0.5, 0.3, 0.1, 0.1]
    assert (read_confidence("x\nConfidence: 0.7"), read_confidence("**Confidence:** 85%"), read_confidence("x")) == (
        0.7,
        0.85,
        None,
    )
    answers = (AgentAnswer(agent="a", answer="A"), AgentAnswer(agent="b", answer="B"))
    decision, tally = weighted_vote(answers, {"a": 0.9, "b": 0.9}, random.Random(0))
    assert decision.tie == ("A", "B") and decision.answer in ("A", "B") and tally == "A: 0.8, B: 0.8"


def test_rpd_debaters_speak_one_by_one_in_their_roles_each_reading_the_whole_discussion():
    agents = (AgentSpec(name="D1"), AgentSpec(name="D2", persona="You play a judge of chess."), AgentSpec(name="D3"))
    cfg = DebateConfig(question=QUESTION, agents=agents, protocol="baselines", variant="rpd")
    events, backend = run(cfg)  # rounds=2
    assert [(r.kind, r.agent) for r in backend.requests] == [("rpd_turn", f"D{i}") for i in (1, 2, 3)] * 2
    assert len(backend.batches) == 6  # one by one, not in parallel
    systems = [r.messages[0].content for r in backend.requests[:3]]
    assert "critic" in systems[0] and "judge of chess" in systems[1] and "psychologist" in systems[2]
    said = [e.text for e in of_type(events, UtteranceGenerated)]
    assert said[0] in prompt(backend.requests[1]) and said[1] in prompt(backend.requests[2])  # this round's turns
    assert all(text in prompt(backend.requests[5]) for text in said[:5])
    end = ended(events)
    assert (end.final_answer, end.rule, end.reason) == ("B", "majority", EndReason.ROUNDS)
