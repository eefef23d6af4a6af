"""DebateConfig: invalid set-ups fail at construction with a clear message; defaults follow the paper."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from debate_core import (
    DEFAULT_TOKEN_BUDGET,
    AgentSpec,
    Condition,
    DebateConfig,
    Question,
    SuppliedInitialAnswer,
)
from tests.conftest import QUESTION, agents


def test_defaults_follow_the_paper():
    config = DebateConfig(question=QUESTION)
    assert config.token_budget == 500 == DEFAULT_TOKEN_BUDGET
    assert config.temperature == 0.3
    assert config.agent_names == ("Alex", "Chris", "Jenny")
    assert config.condition is Condition.INTERRUPTIBLE
    assert config.initial_answers == {}


def test_config_is_immutable():
    config = DebateConfig(question=QUESTION)
    with pytest.raises(ValidationError):
        config.token_budget = 10  # type: ignore[misc]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"agents": ()}, "at least 1 agent"),
        ({"agents": agents("Alex", "Chris", "alex")}, "duplicate agent name 'alex'"),
        ({"agents": agents("Alex", "ALEX ")}, "duplicate agent name"),
        ({"token_budget": 0}, "token_budget must be a positive"),
        ({"token_budget": -5}, "token_budget must be a positive"),
        (
            {"initial_answers": {"Zoe": SuppliedInitialAnswer(answer="A")}},
            "initial answer given for unknown agent 'Zoe'",
        ),
        (
            {"initial_answers": {"Alex": SuppliedInitialAnswer(answer="E")}},
            "initial answer 'E' for Alex is not one of A, B, C, D",
        ),
        (
            {"initial_answers": {"Alex": SuppliedInitialAnswer(answer="B because")}},
            "is not one of A, B, C, D",
        ),
    ],
)
def test_invalid_debate_config_fails_with_a_clear_message(overrides, message):
    with pytest.raises(ValidationError, match=message):
        DebateConfig(question=QUESTION, **overrides)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "   ", "options": ("x", "y")}, "the question text is blank"),
        ({"text": "Q?", "options": ("only one",)}, "at least 2 options"),
        ({"text": "Q?", "options": ("x", "y"), "answer": "C"}, "'C' is not one of the option labels A, B"),
        ({"text": "Q?", "options": ("x", "  ")}, "an option is blank"),
    ],
)
def test_invalid_question_fails_with_a_clear_message(fields, message):
    with pytest.raises(ValidationError, match=message):
        Question(**fields)


def test_question_normalises_the_correct_answer_and_renders_options():
    question = Question(text=" Q? ", options=("x", "y", "z"), answer="(c)")
    assert question.answer == "C"
    assert question.labels == ("A", "B", "C")
    assert question.render() == "Q?\nA) x\nB) y\nC) z"


def test_free_form_question_has_no_labels():
    question = Question(text="What is 2+2?", answer="4")
    assert question.labels == ()
    assert not question.is_multiple_choice


def test_supplied_initial_answers_accept_label_spellings():
    config = DebateConfig(question=QUESTION, initial_answers={"Alex": SuppliedInitialAnswer(answer="(b)")})
    assert config.initial_answers["Alex"].answer == "(b)"


@pytest.mark.parametrize("name", ["", "   ", "Al<ex>", "x" * 41])
def test_invalid_agent_names_are_refused(name):
    with pytest.raises(ValidationError):
        AgentSpec(name=name)
