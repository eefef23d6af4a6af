"""Attention-guided compression of the other agents' messages (SID), as pure functions.

What it does: given the scored tokens of the others' messages
(``AttentionScores``: each token's character span in the scored text and its
attention to the focus instruction), ``keep_top`` keeps the fraction ``rho``
of the tokens with the highest scores (``n = max(1, floor(len * rho))``; a
fraction of tokens, not nucleus sampling; ties go to the earlier token);
``widen`` stretches each kept token to the clause around it (left and right
to the nearest separator: ``. ! ? ;`` their full-width forms and line
breaks, as the authors' code does); ``merge`` joins overlapping or touching
spans; ``compress`` does all three (widening optional: the ``no_expand``
ablation) and returns the kept character spans, the kept text (the spans in
order, with "…" where text was dropped) and the kept fraction of
characters. Everything is linear in the text (up to a logarithm): the
separators are found once and each kept token finds its clause by binary
search (``Clauses``), never by walking the text, so an answer of one long
clause costs no more than one of many short ones.

What it does not do: compute attention (backends do), choose the focus
instruction or write prompts (``prompting``), or decide who is compressed
(``loop``).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from debate_core.backends.base import ScoredSpan

SEPARATORS = frozenset(".!?;。！？；\n")
ELLIPSIS = "…"


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
    """The separators of one text, found once: any span's clause by binary search."""

    def __init__(self, text: str, separators: frozenset[str] = SEPARATORS) -> None:
        self.size = len(text)
        self.marks = [i for i, ch in enumerate(text) if ch in separators]  # ascending

    def widen(self, span: tuple[int, int]) -> tuple[int, int]:
        """``span`` stretched to its clause: back to just after the previous separator, on through the next one."""
        start, end = span
        if start > 0:
            before = bisect_left(self.marks, start) - 1  # the last separator at an index below start
            start = self.marks[before] + 1 if before >= 0 else 0
        if end < self.size:
            after = bisect_left(self.marks, max(end, start + 1) - 1)  # the first separator ending the span
            end = self.marks[after] + 1 if after < len(self.marks) else self.size
        return start, end


def widen(text: str, span: tuple[int, int], separators: frozenset[str] = SEPARATORS) -> tuple[int, int]:
    """``span`` stretched to its clause (one span; for many spans of one text build ``Clauses`` once)."""
    return Clauses(text, separators).widen(span)


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
    text: str, tokens: Sequence[ScoredSpan], rho: float, *, expand: bool = True, separators: frozenset[str] = SEPARATORS
) -> Compressed:
    """The kept spans and text of ``text`` (see the module docstring)."""
    kept = keep_top(tokens, rho)
    spans = [(t.start, t.end) for t in kept]
    if expand:
        clauses = Clauses(text, separators)
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
