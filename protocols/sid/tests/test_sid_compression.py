"""SID's compression on hand-made attention: the top fraction of tokens, SemanticPreserve's units (the paper's
boundaries and the authors' code's), merging, and widening in linear time; no model, no debate."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from debate_core.backends.base import ScoredSpan
from debate_core.backends.scripted import scripted_tokens
from protocols.sid.compression import CODE, PAPER, SEPARATORS, Boundaries, compress, keep_top, merge, widen

# -- compression on hand-made attention --------------------------------------------------------------------------
TEXT = "Chris: It is A. Oxygen feeds fire; fire needs air.\nJenny: It is B, since nitrogen is most of the air."


def scored(hot: dict[str, float]) -> list[ScoredSpan]:
    """Whitespace tokens of ``TEXT``, scored 0.1 unless named in ``hot``."""
    spans, at = [], 0
    for word in TEXT.split():
        start = TEXT.index(word, at)
        at = start + len(word)
        spans.append(ScoredSpan(start, at, hot.get(word, 0.1)))
    return spans


def test_the_top_fraction_of_tokens_is_kept_ties_going_to_the_earlier():
    tokens = scored({"nitrogen": 0.9, "Oxygen": 0.8, "fire;": 0.8})
    assert [TEXT[t.start : t.end] for t in keep_top(tokens, 0.1)] == ["Oxygen", "nitrogen"]  # n = floor(21 * 0.1)
    assert len(keep_top(tokens, 0.0)) == 0 and len(keep_top(tokens, 0.01)) == 1  # at least one
    assert [TEXT[t.start : t.end] for t in keep_top(tokens, 0.15)] == ["Oxygen", "fire;", "nitrogen"]


def test_kept_tokens_widen_to_their_clauses_and_overlaps_merge():
    start = TEXT.index("nitrogen")
    # the paper's boundaries: commas, periods and coordinating conjunctions (§4.2, App. C.1)
    assert TEXT[slice(*widen(TEXT, (start, start + 8)))] == " since nitrogen is most of the air."
    assert TEXT[slice(*widen(TEXT, (start, start + 8), PAPER))] == " since nitrogen is most of the air."
    # the code's separators (. ! ? ; and line breaks, not commas): back to the line's start
    assert TEXT[slice(*widen(TEXT, (start, start + 8), CODE))] == "Jenny: It is B, since nitrogen is most of the air."
    oxygen = TEXT.index("Oxygen")
    assert TEXT[slice(*widen(TEXT, (oxygen, oxygen + 6)))] == " Oxygen feeds fire;"
    assert TEXT[slice(*widen(TEXT, (oxygen, oxygen + 6), CODE))] == " Oxygen feeds fire;"
    assert merge([(5, 9), (0, 3), (8, 12), (12, 14), (20, 22)]) == [(0, 3), (5, 14), (20, 22)]


def test_a_coordinating_conjunction_begins_a_unit_and_a_number_keeps_its_comma_and_point():
    text = "Both burn, but only oxygen feeds fire and nitrogen dilutes it; 1,200 of 3.5 or so."
    cuts = PAPER.cuts(text)
    units = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True) if b > a]
    assert units == [
        "Both burn,", " but only oxygen feeds fire", " and nitrogen dilutes it;", " 1,200 of 3.5", " or", " so.",
    ]  # fmt: skip
    dilutes = text.index("dilutes")
    assert text[slice(*widen(text, (dilutes, dilutes + 7)))] == " and nitrogen dilutes it;"
    conjunction = text.index(" and")  # a kept conjunction keeps the unit it begins
    assert text[slice(*widen(text, (conjunction, conjunction + 4)))] == " and nitrogen dilutes it;"
    assert text[slice(*widen(text, (dilutes, dilutes + 7), CODE))] == text[: text.index(";") + 1]
    assert CODE.cuts("1,200 of 3.5") == [11] and PAPER.cuts("1,200 of 3.5") == []  # the code cuts 3.5 too


def test_compression_keeps_whole_clauses_or_bare_tokens_without_widening():
    tokens = scored({"nitrogen": 0.9, "Oxygen": 0.8})
    widened = compress(TEXT, tokens, 0.1, boundaries=CODE)
    assert widened.text == "… Oxygen feeds fire; … Jenny: It is B, since nitrogen is most of the air."
    assert [TEXT[s:e] for s, e in widened.spans] == [
        "Oxygen feeds fire;", "Jenny: It is B, since nitrogen is most of the air.",
    ]  # fmt: skip
    paper = compress(TEXT, tokens, 0.1)
    assert paper.text == "… Oxygen feeds fire; … since nitrogen is most of the air."
    bare = compress(TEXT, tokens, 0.1, expand=False)
    assert bare.text == "… Oxygen … nitrogen …" and bare.ratio < paper.ratio < widened.ratio
    assert (bare.kept_tokens, bare.tokens) == (2, 21)


def _cut_walk(text: str, boundaries: Boundaries) -> set[int]:
    """Every cut, found one position at a time: after a mark (not inside a number where the rule says so), and
    before the whitespace leading a conjunction that stands as a whole word."""
    cuts = set()
    for i, ch in enumerate(text):
        digits = 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()
        if ch in boundaries.marks and (boundaries.in_numbers or not digits):
            cuts.add(i + 1)
        for word in boundaries.conjunctions:
            after = i + len(word)
            whole = (i == 0 or (not text[i - 1].isalnum() and text[i - 1] != "_")) and (
                after >= len(text) or (not text[after].isalnum() and text[after] != "_")
            )
            if text[i:after].lower() == word and whole:
                lead = i
                while lead > 0 and text[lead - 1].isspace():
                    lead -= 1
                cuts.add(lead)
    return cuts


def _walked(text: str, span: tuple[int, int], boundaries: Boundaries = CODE) -> tuple[int, int]:
    """The clause around ``span`` by walking the text character by character (the authors' code, with the
    boundaries' cuts in place of its separators)."""
    cuts = _cut_walk(text, boundaries)
    start, end = span
    while start > 0 and start not in cuts:
        start -= 1
    while end < len(text) and (end == start or end not in cuts):
        end += 1
    return start, end


def _code_walk(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """The authors' ``extract_semantic_spans`` walk for one token, verbatim in its logic."""
    start, end = span
    while start > 0 and text[start - 1] not in SEPARATORS:
        start -= 1
    while end < len(text) and (end == start or text[end - 1] not in SEPARATORS):
        end += 1
    return start, end


@settings(max_examples=300, deadline=None, derandomize=True)
@given(data=st.data(), text=st.text(alphabet=st.sampled_from("ab .;\n!。"), max_size=40))
def test_widening_by_binary_search_finds_the_clause_the_authors_walk_finds(data, text):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert widen(text, (start, end), CODE) == _code_walk(text, (start, end)) == _walked(text, (start, end))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    data=st.data(),
    pieces=st.lists(st.sampled_from(["a", "b", "1", " ", ",", ".", "\n", "and", "Or", "so"]), max_size=20),
)
def test_the_papers_units_by_binary_search_are_the_walks(data, pieces):
    text = "".join(pieces)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert sorted(_cut_walk(text, PAPER)) == PAPER.cuts(text)
    assert widen(text, (start, end)) == _walked(text, (start, end), PAPER)


@pytest.mark.parametrize("kilobytes", [50, 200])
def test_an_answer_of_one_long_clause_is_compressed_in_linear_time(kilobytes):
    """Every token of a clause used to walk the whole clause: 40 KB took 72 s; now it takes milliseconds."""
    text = "word " * (kilobytes * 1024 // 5) + "The answer is (B)."
    tokens = [ScoredSpan(s.start, s.end, (i * 7919 % 1000) / 1000) for i, s in enumerate(scripted_tokens(text))]
    began = time.perf_counter()
    kept = compress(text, tokens, 0.4)
    elapsed = time.perf_counter() - began
    assert kept.spans == ((0, len(text)),) and kept.ratio == 1.0  # one clause, kept whole
    assert elapsed < 5.0, f"{kilobytes} KB took {elapsed:.1f} s"  # about 0.05 s on a busy two-core machine
