r"""SID's per-data-set prompts and answer formats (the paper's Tables 4 and 5), their readers, free-form LaTeX
answers read whole, and a study that names each question's data set."""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.config import Question
from debate_core.events import DebateStarted, UtteranceGenerated
from experiments.cli import main
from protocols.sid import formats
from protocols.sid.demo import SidDemo
from protocols.sid.formats import ONE, PAPER, format_for, read
from protocols.sid.prompting import render
from protocols.sid.views import SidView
from storage import Store
from tests.conftest import QUESTION, of_type

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"
INTERVAL = Question(text="For which real x is 3 < x? Give your answer in interval notation.", answer="(3, \\infty)")
AGENTS = (AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny"))


@pytest.mark.parametrize(
    ("dataset", "question", "expected"),
    [
        ("mmlu_pro", QUESTION, "mmlu_pro"),
        ("mmlu", QUESTION, "mmlu_pro"),  # the authors' code gives MMLU MMLU-Pro's prompts
        ("gpqa", QUESTION, "gpqa"),
        ("scienceqa", QUESTION, "scienceqa"),
        ("math", INTERVAL, "math"),
        ("math_intermediate_algebra", INTERVAL, "math"),
        ("gsm8k", INTERVAL, "one"),  # the paper gives GSM8K no prompt
        ("strategyqa", QUESTION, "one"),
        (None, QUESTION, "one"),  # outside a study
        ("mmlu_pro", INTERVAL, "one"),  # a free-form question under a letter format
        ("math", QUESTION, "one"),
    ],
)
def test_each_data_set_has_the_papers_format_where_the_paper_gives_one(dataset, question, expected):
    assert format_for("paper", dataset, question).name == expected
    assert format_for("one", dataset, question) is ONE


def test_the_prompts_are_tables_four_and_five_as_printed():
    view = SidView(agent="Alex", question=INTERVAL, answer_format=PAPER["math"])
    system, user = render("answer", view)
    assert system.content == (
        "You are a math expert. You are tasked to determine the answer to the following question. Give your final "
        "answer in the form of \\boxed{answer} in the last sentence of your response, e.g., \\boxed{[1, 3]}."
    )
    assert user.content.startswith(INTERVAL.text) and user.content.endswith(
        "Give your final answer in the form of \\boxed{answer} at the end of your response, e.g., \\boxed{[1, 3]}."
    )
    mmlu = render("revise", SidView(agent="Alex", question=QUESTION, answer_format=PAPER["mmlu_pro"], own="x"))
    assert mmlu[0].content.startswith("You are a trivia expert who knows everything. You are tasked to answer")
    assert mmlu[1].content.endswith("Give your final answer in the format of '(X)'")
    gpqa = render("answer", SidView(agent="Alex", question=QUESTION, answer_format=PAPER["gpqa"]))[1].content
    assert gpqa.endswith("Your last sentence should be 'The correct answer is (insert answer here).' e.g., The "
                         "correct answer is (A).")  # fmt: skip
    one = render("answer", SidView(agent="Alex", question=QUESTION))
    assert one[0].content.startswith("You are Alex, one of several agents") and '"The answer is"' in one[1].content


def test_answers_are_read_in_their_format_and_free_form_answers_keep_their_parentheses():
    math, label, gpqa = PAPER["math"], PAPER["mmlu_pro"], PAPER["gpqa"]
    assert read("So x > 3. The answer is (3, \\infty).", ONE, INTERVAL) == "(3, \\infty)"
    assert read("The answer is (42).", ONE, Question(text="6 * 7?", answer="42")) == "42"
    assert read("The answer is (x+1)(x-1).", ONE, Question(text="Factor.", answer="x")) == "(x+1)(x-1)"
    assert read("Hence $x \\in \\boxed{(3, \\infty)}$.", math, INTERVAL) == "(3, \\infty)"
    assert read("First \\boxed{8}, then \\boxed{\\{3\\}}.", math, INTERVAL) == "\\{3\\}"
    assert read("The answer is \\boxed{\\frac{3}{4}}.", ONE, INTERVAL) == "\\frac{3}{4}"
    assert read("Option (A) fails; (B) holds, as (a) and (b) show.", label, QUESTION) == "B"  # the code's last (X)
    assert read("The answer is (B), not (C).", label, QUESTION) == "B"  # an answer line first
    assert read("Option (A) fails; (B) holds.", ONE, QUESTION) is None  # the single rule wants its line
    assert read("The correct answer is (insert answer here). So (C).", gpqa, QUESTION) == "C"
    assert formats.last_boxed("\\boxed{unclosed") is None


def test_the_demo_debates_a_free_form_latex_answer_under_both_rules():
    for params in ({"dataset": "math"}, {"dataset": "math", "prompts": "one"}, {}):
        config = DebateConfig(question=INTERVAL, agents=AGENTS, protocol="sid", variant="mad", params=params)
        events = Debate(config, ScriptedBackend(SidDemo(config).reply)).run()
        said = of_type(events, UtteranceGenerated)
        assert ("\\boxed{(3, \\infty)}" in said[0].text) is (params.get("prompts") != "one" and bool(params))
        assert [u.structured["answer"] for u in said] == ["(3, \\infty)", "something else", "(3, \\infty)"] + [
            "(3, \\infty)"
        ] * 3  # the revisions take the majority, read whole
        assert events[-1].final_answer == "(3, \\infty)" and events[-1].correct


def test_a_study_names_each_questions_data_set_and_asks_with_its_prompts(tmp_path):
    db = str(tmp_path / "f.sqlite3")
    data = ["--mmlu", "0", "--strategyqa", "0"]
    for name, rows in (("math", "math_rows.jsonl"), ("mmlu_pro", "mmlu_pro_rows.json")):
        data += ["--data", f"{name}=2", "--data-file", f"{name}={FIXTURES / rows}"]
    run = ["compare", "--experiment", "f", "--db", db, "--backend", "scripted", "--no-progress", "--systems"]
    assert main([*run, "sid/mad", *data]) == 0
    store = Store(db)
    try:
        runs = store.experiments.runs("f")
        started = {r.setting: store.events(r.debate_id) for r in runs}
    finally:
        store.close()
    assert sorted(started) == ["math", "mmlu_pro"]
    for dataset, events in started.items():
        start = events[0]
        assert isinstance(start, DebateStarted) and start.config.params["dataset"] == dataset
        assert events[-1].correct  # the demo's majority, read in the data set's format
    first = of_type(started["math"], UtteranceGenerated)[0].text
    assert "\\boxed{" in first  # asked for MATH's \boxed{}
