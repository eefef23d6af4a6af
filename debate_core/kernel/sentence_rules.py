"""Sentence boundaries for what models and people write in a debate: pySBD plus a few rules of our own.

What it does: ``RuleSegmenter().split(text)`` returns the sentences of a
text, in order, as substrings of it. It uses pySBD (a maintained rule-based
segmenter built on the "Golden Rules" of sentence boundaries: abbreviations,
initials, decimals, ellipses, quotations, numbered lists) and adds what a
debate needs on top:

* a line break always ends a sentence; a fenced code block (```` ``` ````
  ... ```` ``` ````) is one unit, never split at the dots inside it;
* URLs, e-mail addresses and inline code are never split (they are masked
  before pySBD sees the line, then put back);
* an option letter ends a sentence: "The answer is B. Oxygen is common." is
  two sentences (pySBD takes "B." for an initial). A capital letter A-H with
  a period, after a lowercase word, a colon, or the words option, answer or
  choice, and before a capitalised word, ends the sentence; after a name
  ("John F. Kennedy"), another initial ("J. R. R.") or "by"/"of" it does
  not;
* a sentence in parentheses ends at its closing parenthesis.

pySBD is imported on first use.

What it does not do: tidy units (``chunkers.tidy_units`` glues pieces with no
letter or digit to a neighbour) or count tokens.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from typing import Any

# Spans that no sentence boundary may fall inside.
_PROTECTED = re.compile(
    r"`[^`\n]+`"  # inline code
    r"|(?:https?|ftp)://[^\s<>\"')\]]+[^\s<>\"')\].,;:!?]"  # URLs (not their closing punctuation)
    r"|www\.[^\s<>\"')\]]+[^\s<>\"')\].,;:!?]"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail addresses
)
# An option letter with its period (and closing emphasis), before the next sentence's capital.
_OPTION = re.compile(r"(?<![\w.])([A-H])\.(\*\*|__|\*|_)?(?=[ \t]*[\"'(\[]?[A-Z])")
# A parenthesised sentence ends where its parenthesis closes: "(Oxygen is second.) I am sure."
_CLOSED_SENTENCE = re.compile(r"[.!?]\)(?=[ \t]+[\"'(\[]?[A-Z])")
_OPTION_WORDS = {"option", "options", "answer", "choice", "choose", "pick", "letter"}
_NOT_BEFORE = {"by", "of", "from", "dear", "and", "mr", "mrs", "ms", "dr", "st"}
_FENCE = re.compile(r"^\s*(```|~~~)")
_WORD = re.compile(r"\S+")  # what str.split() calls a word
MAX_LINE_CHARS = 10_000


def bounded(line: str) -> list[str]:
    """A line cut at spaces into pieces of at most ``MAX_LINE_CHARS`` (segmenters slow down or refuse beyond)."""
    pieces = []
    while len(line) > MAX_LINE_CHARS:
        cut = line.rfind(" ", 0, MAX_LINE_CHARS)
        cut = cut if cut > 0 else MAX_LINE_CHARS
        pieces.append(line[:cut])
        line = line[cut:]
    pieces.append(line)
    return pieces


class RuleSegmenter:
    """pySBD with the debate's own rules; thread-safe (one pySBD segmenter, used under a lock)."""

    name = "pysbd+rules"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pysbd: Any = None

    def split(self, text: str) -> list[str]:
        units: list[str] = []
        fence: list[str] | None = None
        for line in text.splitlines():
            if fence is not None:
                fence.append(line)
                if _FENCE.match(line):
                    units.append("\n".join(fence).strip())
                    fence = None
                continue
            if _FENCE.match(line):
                fence = [line]
                continue
            if line.strip():
                for piece in bounded(line):
                    units.extend(self.split_line(piece))
        if fence is not None:  # an unclosed fence: the rest is code
            units.append("\n".join(fence).strip())
        return units

    def split_line(self, line: str) -> list[str]:
        """One line's sentences (no line breaks inside)."""
        masked = _mask(line)
        cuts = set(self._boundaries(masked)) | set(_option_boundaries(masked))
        cuts |= {match.end() for match in _CLOSED_SENTENCE.finditer(masked)}
        cuts = {cut for cut in cuts if 0 < cut < len(line)}
        pieces, start = [], 0
        for cut in sorted(cuts):
            pieces.append(line[start:cut])
            start = cut
        pieces.append(line[start:])
        return [piece.strip() for piece in pieces if piece.strip()]

    def _boundaries(self, masked: str) -> list[int]:
        """Where pySBD ends sentences in ``masked``: offsets just after each sentence but the last."""
        with self._lock:
            if self._pysbd is None:
                import pysbd

                self._pysbd = pysbd.Segmenter(language="en", clean=False, char_span=False)
            sentences = self._pysbd.segment(masked)
        offsets, cursor = [], 0
        for sentence in sentences:
            found = masked.find(sentence.strip(), cursor)
            if found < 0:  # pySBD changed the text: keep what we have rather than guess
                break
            cursor = found + len(sentence.strip())
            offsets.append(cursor)
        return offsets[:-1]


def _mask(line: str) -> str:
    """``line`` with URLs, e-mail addresses and inline code replaced by letters of the same length."""
    return _PROTECTED.sub(lambda match: "x" * len(match.group(0)), line)


def _option_boundaries(masked: str) -> list[int]:
    cuts = []
    words = [(m.start(), m.end()) for m in _WORD.finditer(masked)]  # found once: no rescan per match
    starts = [start for start, _ in words]
    for match in _OPTION.finditer(masked):
        last = bisect_left(starts, match.start()) - 1  # the last word that begins before the letter
        word = masked[words[last][0] : min(words[last][1], match.start())] if last >= 0 else ""
        bare = word.strip("*_\"'(").lower()
        if (
            word.endswith(":")
            or bare in _OPTION_WORDS
            or (word[:1].islower() and bare.rstrip(",;") not in _NOT_BEFORE and word[-1:].isalpha())
        ):
            cuts.append(match.end())
    return cuts
