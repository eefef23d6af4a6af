"""Chunkers: how an utterance is cut into the units that are disclosed one at a time.

What it does: a ``Chunker`` has a ``name`` and ``split(text) -> units``. Five
kinds cover the protocols:

* sentences (``sentences.SentenceChunker``, spaCy; Kimura's interruptible
  condition);
* ``WholeMessage``: the whole utterance is one unit (Kimura's fixed and
  dynamic conditions, SID);
* ``LineChunker``: one unit per line (ACE's replies: each explanation item,
  the comment and the answer line);
* ``CharRuleChunker``: Parliament's streaming rule replayed on a fixed text:
  pieces (words with the whitespace before them, or the backend's tokens) are
  added to a buffer, which becomes a unit as soon as it is longer than
  ``max_chars``, or longer than ``min_chars`` and ends (right-stripped) with one
  of ``enders``;
* ``TokenChunker``: every ``size`` tokens of the backend's tokenizer
  (HandRaiser's 16-token chunks).

Every chunker tidies its units the same way (``tidy_units``): surrounding
whitespace is stripped, empty pieces are dropped, and a piece with no letter
or digit (a stray quote, bracket or ellipsis) is glued to the unit before it
(or, at the start, the one after it), so no turn discloses only punctuation.
Joining a chunker's units with spaces gives the text back up to whitespace.

What it does not do: count tokens for the public budget (the backend does) or
decide when units are disclosed (protocols do).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from debate_core.backends.base import TokenSpan

_PIECE = re.compile(r"\s*\S+")


@runtime_checkable
class Chunker(Protocol):
    """Turns an utterance into its disclosure units."""

    @property
    def name(self) -> str: ...

    def split(self, text: str) -> tuple[str, ...]: ...


def tidy_units(pieces: list[str]) -> tuple[str, ...]:
    """Strip pieces, drop empty ones, and glue letterless pieces to a neighbour.

    A piece with no letter or digit is appended to the unit before it, or, at
    the start, prepended to the unit after it; text with no letter or digit at
    all has no units.
    """
    units: list[list[str]] = []  # each unit's parts, joined once at the end (no rescan per glued piece)
    leading: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        if not any(ch.isalnum() for ch in piece):
            if units:
                units[-1].append(f" {piece}" if piece[0] in "([{" else piece)
            else:
                leading.append(piece)
            continue
        if leading and not units:
            piece = " ".join([*leading, piece])
            leading = []
        units.append([piece])
    return tuple("".join(parts) for parts in units)


def unit_spans(text: str, units: Sequence[str]) -> list[tuple[int, int] | None]:
    """Where each unit lies in ``text``: units are stripped pieces of it, in order (``tidy_units``).

    A unit that is not a piece of the text (a person's edited words) has None. Readers use the
    spans to put units back together with the text's own spacing, since a token chunk may end
    inside a word.
    """
    spans: list[tuple[int, int] | None] = []
    end = 0
    for unit in units:
        found = text.find(unit, end) if unit else -1
        if found < 0:
            spans.append(None)
            continue
        end = found + len(unit)
        spans.append((found, end))
    return spans


class WholeMessage:
    """One unit per utterance: the whole message, tidied."""

    name = "whole-message"

    def split(self, text: str) -> tuple[str, ...]:
        return tidy_units([text])


class LineChunker:
    """One unit per non-empty line (an explanation item, a comment, an answer line), tidied."""

    name = "line"

    def split(self, text: str) -> tuple[str, ...]:
        return tidy_units(text.splitlines())


def word_pieces(text: str) -> list[TokenSpan]:
    """Words with the whitespace before them, as spans (ids are 0): the default stream pieces."""
    return [TokenSpan(0, m.start(), m.end()) for m in _PIECE.finditer(text)]


class CharRuleChunker:
    """A streamed buffer becomes a unit past ``max_chars``, or past ``min_chars`` at a sentence end.

    ``pieces`` splits text into what would have been streamed (default: words
    with their leading whitespace; pass a backend's ``tokenize`` to follow its
    tokens). The rule is checked after every piece on the untrimmed buffer;
    the ending test is on the right-stripped buffer.
    """

    def __init__(
        self,
        max_chars: int = 120,
        min_chars: int = 40,
        enders: str = ".?!",
        pieces: Callable[[str], list[TokenSpan]] = word_pieces,
    ) -> None:
        if not 0 <= min_chars <= max_chars:
            raise ValueError(f"need 0 <= min_chars <= max_chars, got {min_chars} and {max_chars}")
        self.max_chars, self.min_chars, self.enders, self.pieces = max_chars, min_chars, enders, pieces

    @property
    def name(self) -> str:
        return f"chars:{self.max_chars}/{self.min_chars}"

    def split(self, text: str) -> tuple[str, ...]:
        units: list[str] = []
        start = 0
        for span in self.pieces(text):
            buffer = text[start : span.end]
            if len(buffer) > self.max_chars or (
                len(buffer) > self.min_chars and buffer.rstrip().endswith(tuple(self.enders))
            ):
                units.append(buffer)
                start = span.end
        units.append(text[start:])
        return tidy_units(units)


class TokenChunker:
    """Units of ``size`` tokens each, by a tokenizer with character offsets."""

    def __init__(self, tokenize: Callable[[str], list[TokenSpan]], size: int = 16) -> None:
        if size < 1:
            raise ValueError(f"a token chunk needs at least 1 token, got {size}")
        self.tokenize, self.size = tokenize, size

    @property
    def name(self) -> str:
        return f"tokens:{self.size}"

    def split(self, text: str) -> tuple[str, ...]:
        spans = self.tokenize(text)
        starts = [spans[i].start for i in range(0, len(spans), self.size)]
        bounds = [*starts[1:], len(text)]
        return tidy_units([text[a:b] for a, b in zip([0, *starts[1:]], bounds, strict=True)])
