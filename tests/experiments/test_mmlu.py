"""The MMLU data (experiments.mmlu): rows read into questions, the packaged set, seeded samples."""

from __future__ import annotations

import json

from experiments.mmlu import EXPECTED_QUESTIONS, load_mmlu, parse_rows, sample


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
