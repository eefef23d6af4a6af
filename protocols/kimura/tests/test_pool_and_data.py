"""The conditioned initial states (Section IV-B); the MMLU data itself: tests/experiments/test_mmlu.py."""

from __future__ import annotations

import pytest

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


def test_realisable_needs_two_of_a_side_for_the_setting_that_has_two():
    from protocols.kimura.study.pool import realisable

    one_right = [S("B", ""), S("A", ""), S("C", ""), S("A", ""), S("D", "")]
    assert realisable(one_right, "B", [Setting.TWO_INCORRECT])
    assert not realisable(one_right, "B", [Setting.ONE_INCORRECT])
    assert not realisable(one_right, "B", [Setting.TWO_INCORRECT, Setting.ONE_INCORRECT])
    assert realisable([S("B", ""), S("B", ""), S("A", ""), S("C", "")], "B", list(Setting))
