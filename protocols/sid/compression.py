"""Attention-guided compression of the other agents' messages (SID), as pure functions.

What it does: given the scored tokens of the others' messages
(``AttentionScores``: each token's character span in the scored text and its
attention to the focus instruction), ``keep_top`` keeps the fraction ``rho``
of the tokens with the highest scores (``n = max(1, floor(len * rho))``; a
fraction of tokens, not nucleus sampling; ties go to the earlier token);
``widen`` stretches each kept token to the unit around it, left and right to
the nearest boundary (SemanticPreserve, §4.2 and App. C.1 of the paper);
``merge`` joins overlapping or touching spans; ``compress`` does all three
(widening optional: the ``no_expand`` ablation) and returns the kept
character spans, the kept text (the spans in order, with "…" where text was
dropped) and the kept fraction of characters.

The boundaries (``Boundaries``) are named sets (``BOUNDARIES``): ``paper``
(the default) ends a unit at commas (``, ， 、``), periods and the other
sentence marks (``. ! ? ;`` and their full-width forms) and line breaks, and
begins one at a coordinating conjunction (``and but or nor yet so`` as whole
words; "for" is left out, mostly a preposition, which a rule on words cannot
tell apart), a comma or period between two digits (``3.5``, ``1,200``) being
part of a number; ``code`` is the authors' code's ``clause_separators`` (the
sentence marks and line breaks: no commas, no conjunctions). A mark belongs
to the unit it ends; a conjunction, with the whitespace before it, to the
unit it begins.

Everything is linear in the text (up to a logarithm): the boundaries are
found once and each kept token finds its unit by binary search
(``Clauses``), never by walking the text, so an answer of one long clause
costs no more than one of many short ones.

What it does not do: compute attention (backends do), choose the focus
instruction or write prompts (``prompting``), or decide who is compressed
(``loop``).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from debate_core.backends.base import ScoredSpan

SEPARATORS = frozenset(".!?;。！？；\n")  # the authors' code's clause_separators
COMMAS = frozenset(",，、")
CONJUNCTIONS = frozenset({"and", "but", "or", "nor", "yet", "so"})
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Boundaries:
    """Where a unit of text ends (``marks``: characters kept with the unit they end) and where one begins
    (``conjunctions``: whole words, case-insensitive, the whitespace before them going with them)."""

    marks: frozenset[str]
    conjunctions: frozenset[str] = frozenset()
    in_numbers: bool = True  # False: a mark between two digits (3.5, 1,200) ends nothing

    def cuts(self, text: str) -> list[int]:
        """The positions in ``text`` where one unit ends and the next begins, ascending."""
        found = {
            i + 1 for i, ch in enumerate(text) if ch in self.marks and (self.in_numbers or not _in_number(text, i))
        }
        if self.conjunctions:
            words = "|".join(sorted(self.conjunctions))
            found.update(m.start() for m in re.finditer(rf"\s*\b(?:{words})\b", text, re.IGNORECASE))
        return sorted(found)


def _in_number(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()


PAPER = Boundaries(SEPARATORS | COMMAS, CONJUNCTIONS, in_numbers=False)
CODE = Boundaries(SEPARATORS)
BOUNDARIES = {"paper": PAPER, "code": CODE}


@dataclass(frozen=True, slots=True)
class Compressed:
    """What one recipient keeps of the others' messages."""

    spans: tuple[tuple[int, int], ...]
    text: str
    ratio: float  # kept characters / all characters (0 for an empty source)
    kept_tokens: int
    tokens: int


def keep_top(tokens: Sequence[ScoredSpan], rho: float) -> list[ScoredSpan]:
    """The ``max(1, floor(len(tokens) * rho))`` highest-scoring tokens (ties: the earlier), in text order."""
    if not tokens or rho <= 0:
        return []
    n = max(1, math.floor(len(tokens) * rho))
    ranked = sorted(range(len(tokens)), key=lambda i: (-tokens[i].score, i))[:n]
    return [tokens[i] for i in sorted(ranked)]


class Clauses:
    """The boundaries of one text, found once: any span's unit by binary search."""

    def __init__(self, text: str, boundaries: Boundaries = PAPER) -> None:
        self.size = len(text)
        self.cuts = boundaries.cuts(text)  # ascending

    def widen(self, span: tuple[int, int]) -> tuple[int, int]:
        """``span`` stretched to its unit: back to the last cut at or before its start, on to the first cut at or
        after its end (a cut inside the span is passed over; an empty span at a cut takes the unit after it)."""
        start, end = span
        before = bisect_right(self.cuts, start) - 1
        start = self.cuts[before] if before >= 0 else 0
        after = bisect_left(self.cuts, max(end, start + 1))
        end = self.cuts[after] if after < len(self.cuts) else self.size
        return start, end


def widen(text: str, span: tuple[int, int], boundaries: Boundaries = PAPER) -> tuple[int, int]:
    """``span`` stretched to its unit (one span; for many spans of one text build ``Clauses`` once)."""
    return Clauses(text, boundaries).widen(span)


def merge(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping or touching spans joined, in order."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _trimmed(text: str, span: tuple[int, int]) -> tuple[int, int] | None:
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def compress(
    text: str, tokens: Sequence[ScoredSpan], rho: float, *, expand: bool = True, boundaries: Boundaries = PAPER
) -> Compressed:
    """The kept spans and text of ``text`` (see the module docstring)."""
    kept = keep_top(tokens, rho)
    spans = [(t.start, t.end) for t in kept]
    if expand:
        clauses = Clauses(text, boundaries)
        spans = [clauses.widen(span) for span in spans]
    trimmed = [s for s in (_trimmed(text, span) for span in merge(spans)) if s is not None]
    final = merge(trimmed)
    pieces: list[str] = []
    last = 0
    for start, end in final:
        if text[last:start].strip():
            pieces.append(ELLIPSIS)  # something was dropped here
        pieces.append(text[start:end])
        last = end
    if final and text[last:].strip():
        pieces.append(ELLIPSIS)
    characters = sum(end - start for start, end in final)
    ratio = characters / len(text) if text else 0.0
    return Compressed(tuple(final), " ".join(pieces), min(1.0, ratio), len(kept), len(tokens))
