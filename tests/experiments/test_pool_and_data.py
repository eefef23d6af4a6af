"""The conditioned initial states (Section IV-B) and the MMLU data."""

from __future__ import annotations

import json

import pytest

from experiments.mmlu import EXPECTED_QUESTIONS, load_mmlu, parse_rows, sample
from protocols.kimura.study.pool import Sampled, Setting, assign, usable

S = Sampled


def test_a_question_is_usable_only_with_both_sides_at_least_twice():
    assert usable([S("A", ""), S("A", ""), S("B", ""), S("B", ""), S("C", "")], "B")
    assert not usable([S("B", ""), S("B", ""), S("B", ""), S("B", ""), S("A", "")], "B")
    assert not usable([S("A", ""), S("C", ""), S("D", ""), S("A", ""), S("B", "")], "B")
    assert not usable([S(None, ""), S(None, ""), S("B", ""), S("B", ""), S("A", "")], "B")  # invalid is not wrong
    assert usable([S("A", ""), S("B", "")], "B", threshold=1)


def test_two_incorrect_one_correct_puts_the_correct_answer_with_jenny():
    samples = [S("A", "r1"), S("B", "r2"), S("C", "r3"), S("B", "r4"), S("A", "r5")]
    chosen = assign(samples, "B", Setting.TWO_INCORRECT)
    assert {name: a.answer for name, a in chosen.items()} == {"Alex": "A", "Chris": "C", "Jenny": "B"}
    assert chosen["Jenny"].reason == "r2"


def test_one_incorrect_two_correct_makes_alex_the_incorrect_one():
    samples = [S("A", "r1"), S("B", "r2"), S("C", "r3"), S("B", "r4"), S("A", "r5")]
    chosen = assign(samples, "B", Setting.ONE_INCORRECT)
    assert {name: a.answer for name, a in chosen.items()} == {"Alex": "A", "Chris": "B", "Jenny": "B"}
    assert [chosen["Chris"].reason, chosen["Jenny"].reason] == ["r2", "r4"]


def test_assignment_is_identical_every_time_and_refuses_impossible_settings():
    samples = [S("A", "x"), S("B", "y"), S("A", "z"), S("B", "w"), S("D", "v")]
    assert assign(samples, "B", Setting.ONE_INCORRECT) == assign(samples, "B", Setting.ONE_INCORRECT)
    with pytest.raises(ValueError, match="needs 2 correct"):
        assign([S("A", ""), S("B", ""), S("C", "")], "B", Setting.ONE_INCORRECT)


def test_header_rows_are_dropped_and_rows_become_questions(tmp_path):
    header = {
        "question": "question",
        "answer_a": "answer_a",
        "answer_b": "answer_b",
        "answer_c": "answer_c",
        "answer_d": "answer_d",
        "correct_answer": "answer",
        "topic": "elementary mathematics",
    }
    row = {
        "question": "2+2?",
        "answer_a": "3",
        "answer_b": "4",
        "answer_c": "5",
        "answer_d": "6",
        "correct_answer": "B",
        "topic": "elementary mathematics",
    }
    path = tmp_path / "mmlu.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (header, row, {**row, "topic": "astronomy"})))
    questions = load_mmlu(path)
    assert len(questions) == 2 and questions[0].question().answer == "B"
    assert questions[0].question().options == ("3", "4", "5", "6")
    assert [q.subject for q in sample(questions, 1, subjects=["Astronomy"])] == ["astronomy"]
    assert parse_rows([header]) == []


def test_the_packaged_mmlu_has_57_subjects_and_14042_questions():
    questions = load_mmlu()
    assert len(questions) == EXPECTED_QUESTIONS
    assert len({q.subject for q in questions}) == 57
    first = sample(questions, 5, seed=7)
    assert first == sample(questions, 5, seed=7) and first != sample(questions, 5, seed=8)


def test_realisable_needs_two_of_a_side_for_the_setting_that_has_two():
    from protocols.kimura.study.pool import realisable

    one_right = [S("B", ""), S("A", ""), S("C", ""), S("A", ""), S("D", "")]
    assert realisable(one_right, "B", [Setting.TWO_INCORRECT])
    assert not realisable(one_right, "B", [Setting.ONE_INCORRECT])
    assert not realisable(one_right, "B", [Setting.TWO_INCORRECT, Setting.ONE_INCORRECT])
    assert realisable([S("B", ""), S("B", ""), S("A", ""), S("C", "")], "B", list(Setting))
