"""Free-form scoring (normalized exact match, containment) and the paired comparison's statistics."""

from __future__ import annotations

import math

import pytest

from experiments.paired import bootstrap_interval, compare_pairs, mcnemar_exact, section
from experiments.scoring import contains, exact_match, normalize

# --- normalization ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The Beatles!", "beatles"),  # case, punctuation, an article
        ("An apple a day", "apple day"),
        ("Theatre, anthem and Athena", "theatre anthem and athena"),  # articles only as whole words
        ("  New\tYork \n City ", "new york city"),  # whitespace collapsed
        ("U.S.A.", "usa"),
        ("“Hello” — world…", "hello world"),  # Unicode quotes, dashes and ellipses are punctuation too
        ("well-known", "wellknown"),  # SQuAD deletes a hyphen
        ("1,200", "1200"),  # thousands commas inside a number
        ("3.5", "3.5"),  # a decimal point is kept: never SQuAD's "35"
        ("18.0 apples", "18 apples"),  # numbers written one way
        ("0.50", "0.5"),
        ("$1,200.50", "1200.5"),  # the currency sign is punctuation
        ("(-5) degrees", "-5 degrees"),  # a minus before a number is kept
        ("1990-1995", "19901995"),  # a hyphen between numbers is not a minus
        ("Ｆｕｌｌｗｉｄｔｈ", "fullwidth"),  # compatibility forms folded
        ("", ""),
    ],
)
def test_normalization_follows_squad_with_numbers_kept_whole(text, normalized):
    assert normalize(text) == normalized


@pytest.mark.parametrize(
    ("answer", "gold", "exact", "contained"),
    [
        ("The Velka River.", "Velka River", True, True),
        ("velka river", "Velka River", True, True),
        ("It is the Velka River, in Kallby", "Velka River", False, True),
        ("Velka", "Velka River", False, False),  # part of the gold answer is not the gold answer
        ("$12,500", "12,500", True, True),  # numbers by value
        ("12500.0", "12,500", True, True),
        ("about 12,500 seats", "12,500", False, True),
        ("125000", "12,500", False, False),
        ("35", "3.5", False, False),  # "3.5" never becomes "35"
        ("3.50", "3.5", True, True),
        ("No, they are not.", "no", False, True),
        ("I do not know", "no", False, False),  # whole words: "no" is not inside "not"
        ("Yes", "no", False, False),
        ("The", "the", True, True),  # a gold answer with nothing left after normalization: the engine's comparison
        ("the end", "The", False, False),
        (None, "Velka River", False, False),  # no answer is never right
        ("Velka River", None, False, False),
    ],
)
def test_exact_match_and_containment(answer, gold, exact, contained):
    assert exact_match(answer, gold) is exact
    assert contains(answer, gold) is contained


# --- the paired comparison --------------------------------------------------------------


def test_mcnemars_exact_p_value_is_the_two_sided_binomial_tail_of_the_discordant_pairs():
    assert mcnemar_exact(0, 0) == 1.0  # nothing tells the systems apart
    assert mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)  # symmetric
    assert mcnemar_exact(4, 4) == 1.0 and mcnemar_exact(3, 4) == 1.0  # capped at 1
    tail = sum(math.comb(60, k) for k in range(11))
    assert mcnemar_exact(10, 50) == pytest.approx(2 * tail / 2**60)
    assert 0.0 <= mcnemar_exact(0, 2000) < 1e-300  # no overflow on large counts
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_the_bootstrap_interval_is_seeded_and_covers_the_observed_difference():
    differences = [1] * 30 + [-1] * 10 + [0] * 60  # A is 20 points ahead on 100 questions
    first = bootstrap_interval(differences, seed="0|a|b")
    assert first == bootstrap_interval(differences, seed="0|a|b")  # the same report every time
    low, high = first
    assert 0.05 < low < 0.2 < high < 0.35
    assert bootstrap_interval([0, 0, 0]) == (0.0, 0.0) and bootstrap_interval([]) == (0.0, 0.0)
    assert bootstrap_interval([1, 1, 1]) == (1.0, 1.0)


def test_pairs_use_only_the_questions_both_systems_answered():
    right = {
        "cot": {"q1": True, "q2": True, "q3": False, "q4": True},
        "british": {"q1": False, "q2": True, "q3": True},  # q4 not finished
        "socratic": {"q9": True},  # no question shared with the others
    }
    [row] = compare_pairs(["cot", "british", "socratic"], right)
    assert (row.a, row.b, row.n, row.a_only, row.b_only) == ("cot", "british", 3, 1, 1)
    assert (row.a_right, row.b_right, row.difference, row.p_value) == (2, 2, 0.0, 1.0)
    assert row.low <= 0.0 <= row.high
    lines = section([("By the accuracy above", [row])])
    assert "| cot vs british | 3 | 1 | 1 | +0.0 (" in "\n".join(lines)
    assert section([("By the accuracy above", [])]) == []
