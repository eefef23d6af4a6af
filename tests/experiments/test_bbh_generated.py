"""BBH's generated tasks (boolean_expressions, multistep_arithmetic_two, web_of_lies) against their definitions.

Every answer is recomputed here another way: Python's own parser (``ast``, walked by the small evaluators
below, nothing run) for the expressions, the parity of "lies" for web_of_lies; and hand-checked examples.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

import pytest

from debate_core.config import Question
from experiments.bbh_generated import (
    ARITHMETIC_OPERANDS,
    BOOLEAN_TOKENS,
    GENERATED,
    NAMES,
    POOL_SIZE,
    WEB_SENTENCES,
    BbhError,
    boolean_expressions,
    evaluate_arithmetic,
    evaluate_boolean,
    generate,
    multistep_arithmetic_two,
    web_of_lies,
    web_of_lies_answer,
)


def python_value(expression: str) -> object:
    """The value Python gives ``expression`` (constants, not/and/or, + - *, unary minus), by walking its AST."""

    def value(node: ast.expr) -> object:
        if isinstance(node, ast.Constant) and isinstance(node.value, bool | int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not value(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)  # type: ignore[operator]
        if isinstance(node, ast.BoolOp):
            values = [value(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.BinOp) and type(node.op) in (ast.Add, ast.Sub, ast.Mult):
            left, right = value(node.left), value(node.right)
            op = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__}[type(node.op)]
            return op(left, right)  # type: ignore[arg-type]
        raise AssertionError(f"unexpected node {ast.dump(node)}")

    return value(ast.parse(expression, mode="eval").body)


# --- boolean_expressions ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("not ( True ) and ( True ) is", False),  # BBH's shape
        ("True and False and not True and True is", False),
        ("not not ( not ( False ) ) is", True),
        ("True or False and False is", True),  # and before or
        ("not True or True is", True),  # not before or
        ("not ( True or True ) is", False),
        ("( False or not False ) and not not True is", True),
        ("False", False),
    ],
)
def test_the_boolean_evaluator_on_hand_checked_expressions(text, value):
    assert evaluate_boolean(text) is value


@pytest.mark.parametrize("text", ["True and", "( True", "True )", "True True", "maybe", "", "__import__('os')"])
def test_the_boolean_evaluator_refuses_what_is_not_an_expression(text):
    with pytest.raises(BbhError, match="not a boolean expression"):
        evaluate_boolean(text)


def test_boolean_expressions_follow_the_definition_and_python_agrees_with_every_answer():
    questions = boolean_expressions(POOL_SIZE)
    assert len(questions) == POOL_SIZE and len({q.text for q in questions}) == POOL_SIZE
    for question in questions:
        tokens = question.text.split()
        assert tokens[-1] == "is" and len(tokens) == BOOLEAN_TOKENS + 1
        assert set(tokens[:-1]) <= {"True", "False", "not", "and", "or", "(", ")"}
        assert question.options == ("True", "False") and question.answer in ("A", "B")
        expected = python_value(" ".join(tokens[:-1]))
        assert question.answer == ("A" if expected else "B")
    assert 0.3 < Counter(q.answer for q in questions)["A"] / POOL_SIZE < 0.7
    assert {"(", "not", "and", "or"} <= {t for q in questions for t in q.text.split()}


def test_every_boolean_expression_of_the_length_is_in_the_pool_once():
    everything = boolean_expressions(10_000)  # fewer exist: all of them
    assert len(everything) == len({q.text for q in everything}) == 2122
    assert "not ( True ) and ( True ) is" in {q.text for q in everything}
    assert [q.index for q in everything] == list(range(2122))


# --- multistep_arithmetic_two ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("((-1 + 2) * (3 - 4)) =", -1),
        ("((-5 + 9 * -4 - 0) * (4 + -7 + 0 * -5)) =", 123),  # BBH's worked examples
        ("((-9 * 7 * 7 * -9) + (4 * -9 - 8 - -4)) =", 3929),
        ("((-3 + 5 * 8 * -4) - (9 - 8 * -7 + -9)) =", -219),
        ("(2 - 3 - 4)", -5),  # left to right
        ("7", 7),
    ],
)
def test_the_arithmetic_evaluator_on_hand_checked_expressions(text, value):
    assert evaluate_arithmetic(text) == value


@pytest.mark.parametrize("text", ["(1 + 2", "1 + ", "1 2", "2 -3", "1 / 2", "(1 + 2)) =", "= 3", "x"])
def test_the_arithmetic_evaluator_refuses_what_is_not_an_expression(text):
    with pytest.raises(BbhError, match="not an arithmetic expression"):
        evaluate_arithmetic(text)


GROUP = re.compile(r"\((-?\d) ([-+*]) (-?\d) ([-+*]) (-?\d) ([-+*]) (-?\d)\)")


def test_multistep_arithmetic_follows_bbhs_shape_and_python_agrees_with_every_answer():
    questions = multistep_arithmetic_two(POOL_SIZE)
    assert len({q.text for q in questions}) == POOL_SIZE
    for question in questions:
        assert question.options == () and question.text.endswith(") =")
        inner = question.text.removesuffix(" =")
        found = re.fullmatch(rf"\(({GROUP.pattern}) ([-+*]) ({GROUP.pattern})\)", inner)
        assert found, question.text
        numbers = [int(n) for n in re.findall(r"-?\d+", inner.replace(" - ", " ~ "))]
        assert len(numbers) == 2 * ARITHMETIC_OPERANDS and all(-9 <= n <= 9 for n in numbers)
        assert question.answer == str(python_value(inner))
        posed = question.question()
        assert not posed.is_multiple_choice and posed.answer == question.answer
    operators = Counter(re.findall(r" ([-+*]) ", " ".join(q.text for q in questions)))
    assert set(operators) == {"+", "-", "*"}


# --- web_of_lies ---------------------------------------------------------------------------------------

SENTENCE = re.compile(r"(\w+) says (\w+) (tells the truth|lies)\.")


def by_parity(text: str) -> bool:
    """The last person tells the truth exactly when an even number of the sentences say "lies"."""
    return text.count(" lies.") % 2 == 0


def test_web_of_lies_answer_on_hand_checked_chains():
    assert web_of_lies_answer(True, []) is True
    assert web_of_lies_answer(False, [True]) is False  # "A lies. B says A tells the truth." B lies
    assert web_of_lies_answer(False, [False]) is True  # "A lies. B says A lies." B is right
    # BBH's: Fidel lies. Jerry says Fidel tells the truth. Vina says Jerry tells the truth. Millicent says
    # Vina lies. Raymond says Millicent lies. Does Raymond tell the truth? -> No
    assert web_of_lies_answer(False, [True, True, False, False]) is False


def test_web_of_lies_follows_bbhs_shape_and_the_parity_agrees_with_every_answer():
    questions = web_of_lies(POOL_SIZE)
    assert len({q.text for q in questions}) == POOL_SIZE
    for question in questions:
        body = question.text.removeprefix("Question: ")
        assert body != question.text
        first, *said_, asked = re.split(r"(?<=\.) ", body)
        assert len(said_) == WEB_SENTENCES - 1
        assert re.fullmatch(r"\w+ (tells the truth|lies)\.", first)
        people = [first.split()[0]]
        for sentence in said_:
            found = SENTENCE.fullmatch(sentence)
            assert found and found.group(2) == people[-1]
            people.append(found.group(1))
        assert asked == f"Does {people[-1]} tell the truth?"
        assert len(set(people)) == WEB_SENTENCES and set(people) <= set(NAMES)
        assert question.options == ("Yes", "No")
        assert question.answer == ("A" if by_parity(body) else "B")
    assert 0.4 < Counter(q.answer for q in questions)["A"] / POOL_SIZE < 0.6


# --- all three -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", GENERATED)
def test_a_generated_task_is_the_same_for_a_seed_and_another_for_another_seed(task):
    pool = generate(task)
    assert pool == generate(task) and len(pool) == POOL_SIZE
    assert generate(task, 10) == pool[:10]  # a shorter pool is the longer one's beginning
    assert generate(task, 10, seed=1) != pool[:10]
    assert [q.index for q in pool] == list(range(POOL_SIZE)) and {q.task for q in pool} == {task}
    assert all(isinstance(q.question(), Question) for q in pool)  # the engine takes every one
    assert generate(task, 0) == []


def test_the_pools_first_questions_are_pinned():
    """The questions a study keys by index: a change to a generator shows here first."""
    assert [(q.text, q.answer) for q in generate("boolean_expressions", 2)] == [
        ("True or False and ( not True ) is", "A"),
        ("not False and not not not not True is", "A"),
    ]
    assert [(q.text, q.answer) for q in generate("multistep_arithmetic_two", 2)] == [
        ("((7 - 6 + -7 + -1) * (6 + -4 * -9 * 7)) =", "-1806"),
        ("((2 - 9 - -7 - 9) + (5 + -1 + 1 - -7)) =", "3"),
    ]
    [first] = generate("web_of_lies", 1)
    assert first.text == (
        "Question: Felix tells the truth. Zachary says Felix lies. Valentin says Zachary tells the truth. "
        "Fiona says Valentin tells the truth. Edith says Fiona lies. Does Edith tell the truth?"
    )
    assert first.answer == "A"


def test_an_unknown_task_or_a_negative_count_is_refused():
    with pytest.raises(BbhError, match="not a generated BBH task"):
        generate("navigate")
    with pytest.raises(BbhError, match="cannot make -1"):
        generate("web_of_lies", -1)
