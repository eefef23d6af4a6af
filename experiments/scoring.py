"""Free-form answers scored two more ways beside the engine's: normalized exact match and containment.

What it does: ``normalize(text)`` is SQuAD's answer normalization (lower
case; punctuation removed, Unicode quotes, dashes and currency signs too;
the articles a, an and the removed; whitespace collapsed), with numbers kept
whole, which SQuAD does not do: thousands commas inside a number are dropped
("1,200" -> "1200"), a decimal point between digits and a minus sign before a
number are kept ("3.5" stays "3.5", never SQuAD's "35"), and every number is
written one way ("18.0" -> "18", "0.50" -> "0.5").

``exact_match(answer, gold)``: the normalized texts are equal, or, when both
are plain numbers (``endings.as_number``: "$1,200." is 1200), their values.
``contains(answer, gold)``: the normalized gold answer occurs in the
normalized answer as whole words ("Eiffel Tower" in "it is the eiffel tower,
in Paris"), or they match exactly. This is the Parliament paper's "exact
match or containment"; its code tested ``gold in prediction`` on the raw
text, which also finds "no" inside "not" and "1200" inside "12000" (whole
words here). A missing answer or gold is never right; a gold answer that
normalizes to nothing (only articles or punctuation) is compared as the
engine compares it (``endings.answer_key``).

What it does not do: score multiple-choice answers (an option label is right
only when it is the correct label: the engine's exact scoring), change
``DebateEnded.correct`` (``endings.is_correct``: case-insensitive exact
match, numbers by value), read an answer out of a longer text, or build the
report (``compare_report``).
"""

from __future__ import annotations

import re
import string
import unicodedata

from debate_core.kernel.endings import answer_key, as_number

_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_DECIMAL_POINT = re.compile(r"(?<=\d)\.(?=\d)")
_MINUS = re.compile(r"(?<![\w.])[-\u2212](?=\d)")
_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_POINT, _NEGATIVE = "\x00", "\x01"  # stand-ins that survive the removal of punctuation


def _is_punctuation(char: str) -> bool:
    return char in string.punctuation or unicodedata.category(char) in {"Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sc"}


def _number(token: str) -> str:
    """``-0018.50`` -> ``-18.5``: no leading zeros, no trailing zeros of a fraction, no ``-0``."""
    if not _NUMBER.fullmatch(token):
        return token
    sign = "-" if token.startswith("-") else ""
    whole, _, fraction = token.lstrip("-").partition(".")
    whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0")
    text = f"{whole}.{fraction}" if fraction else whole
    return text if text == "0" else sign + text


def normalize(text: str) -> str:
    """SQuAD's normalization with numbers kept whole (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = _THOUSANDS.sub("", text)
    text = _DECIMAL_POINT.sub(_POINT, text)
    text = _MINUS.sub(_NEGATIVE, text)
    text = "".join(char for char in text if not _is_punctuation(char))
    text = text.replace(_POINT, ".").replace(_NEGATIVE, "-")
    text = _ARTICLES.sub(" ", text)
    return " ".join(_number(token) for token in text.split())


def exact_match(answer: str | None, gold: str | None) -> bool:
    """Normalized exact match; plain numbers by value."""
    if answer is None or gold is None:
        return False
    said, wanted = as_number(answer), as_number(gold)
    if said is not None and wanted is not None:
        return said == wanted
    expected = normalize(gold)
    if not expected:
        return answer_key(answer) == answer_key(gold)
    return normalize(answer) == expected


def contains(answer: str | None, gold: str | None) -> bool:
    """The normalized gold answer occurs in the normalized answer as whole words (or they match exactly)."""
    if answer is None or gold is None:
        return False
    if exact_match(answer, gold):
        return True
    wanted, said = normalize(gold).split(), normalize(answer).split()
    if not wanted:
        return False
    width = len(wanted)
    return any(said[start : start + width] == wanted for start in range(len(said) - width + 1))
