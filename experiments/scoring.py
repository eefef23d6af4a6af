r"""Free-form answers scored two more ways beside the engine's: normalized exact match and containment.

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

MATH's answers are LaTeX (``\frac{1}{2}``, ``(3, \infty)``): when either side has
LaTeX markup (a backslash, ``$``, ``^`` or a brace), ``exact_match`` also
accepts ``math_equal(answer, gold)``: ``math_key`` of both is equal, or both
are plain rationals of equal value (``\frac{1}{2}``, ``1/2`` and ``0.5``).
``math_key`` takes the last ``\boxed{...}`` of a text (``last_boxed``: its
braces matched, ``\{`` and ``\}`` kept as content; also ``\fbox{...}`` and
``\boxed 5``), drops ``$``, ``\left``, ``\right``, ``\!`` and the other spacing
commands, ``\displaystyle``, degrees (``^\circ``), percent signs, a unit
written as MATH writes one (a final ``\text{ cm}`` with a space first), a
leading ``x =``, every space and a final period; unwraps ``\text{...}`` and
the like; writes ``\dfrac`` and ``\tfrac`` as ``\frac``, ``\sqrt3`` as
``\sqrt{3}``, and ``\frac{a}{b}`` or ``\frac ab`` with plain ``a`` and ``b`` as
``a/b``. Its limits: no algebra (``x+1`` is not ``1+x``, ``\frac{\sqrt{3}}{2}``
is not ``\sqrt{3}/2``, ``2\sqrt{2}`` is not ``\sqrt{8}``), no decimal for an
irrational (``1.414`` is not ``\sqrt{2}``), units other than MATH's trailing
``\text{ ...}`` kept, and the order of a set's or a tuple's elements kept;
case is kept (LaTeX's is meaningful), though the normalized match above
folds it where both sides are plain words.

What it does not do: score multiple-choice answers (an option label is right
only when it is the correct label: the engine's exact scoring), change
``DebateEnded.correct`` (``endings.is_correct``: case-insensitive exact
match, numbers by value), read an answer out of a longer text (but a MATH
answer's last ``\boxed{...}``), or build the report (``compare_report``).
"""

from __future__ import annotations

import re
import string
import unicodedata
from fractions import Fraction

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
    if (_MARKUP.search(answer) or _MARKUP.search(gold)) and math_equal(answer, gold):
        return True
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


# --- MATH's LaTeX answers -----------------------------------------------------------------

_MARKUP = re.compile(r"[\\$^{}]")
_BOX = re.compile(r"\\(?:boxed|fbox)(?![A-Za-z])\s*")
_UNIT = re.compile(r"\\(?:text|mbox)\{\s[^{}]*\}\s*$")  # MATH's unit: "5\text{ cm}"
_WRAPPED = re.compile(r"\\(?:text|textbf|textrm|textnormal|mathrm|mathbf|mbox)\s*\{([^{}]*)\}")
_DROPPED = re.compile(r"\$|\\(?:left|right|displaystyle)(?![A-Za-z])|\\[!,;: ]|\^\s*\{?\\circ\}?|\\?%")
_FRAC_KIND = re.compile(r"\\[dt]frac(?![A-Za-z])")
_SHORT_SQRT = re.compile(r"\\sqrt(\w)")
_SHORT_FRAC = re.compile(r"\\frac(\w)(\w)")
_PLAIN_FRAC = re.compile(r"\\frac\{(-?[\w.]+)\}\{(-?[\w.]+)\}")
_RATIONAL = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:/(?:\d+(?:\.\d*)?|\.\d+))?")
_GROUPED = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?")


def last_boxed(text: str) -> str | None:
    """What the last ``\\boxed{...}`` (or ``\\fbox{...}``) of ``text`` holds, its braces matched and ``\\{``,
    ``\\}`` kept as content; ``\\boxed 5`` gives ``5``; None without one, or when its braces never close."""
    found = list(_BOX.finditer(text))
    if not found:
        return None
    start = found[-1].end()
    if not text.startswith("{", start):
        word = re.match(r"[^\s$]+", text[start:])
        return word.group(0) if word else None
    depth, at = 0, start
    while at < len(text):
        char = text[at]
        if char == "\\":
            at += 2  # an escaped character (\{, \}, \\) is content
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1 : at].strip()
        at += 1
    return None


def math_key(text: str) -> str:
    """A MATH answer written one way (see the module docstring)."""
    boxed = last_boxed(text)
    text = _UNIT.sub("", boxed if boxed is not None else text)
    text = _WRAPPED.sub(r"\1", text)
    text = _FRAC_KIND.sub(r"\\frac", _DROPPED.sub("", text))
    text = "".join(text.split())
    text = _SHORT_SQRT.sub(r"\\sqrt{\1}", text)
    text = _PLAIN_FRAC.sub(r"\1/\2", _SHORT_FRAC.sub(r"\1/\2", text))
    name, equals, value = text.partition("=")
    if equals and value and "=" not in value and len(name) <= 2:
        text = value  # "x=5" is 5
    return text.rstrip(".")


def _rational(key: str) -> Fraction | None:
    if _GROUPED.fullmatch(key):
        key = key.replace(",", "")
    if not _RATIONAL.fullmatch(key):
        return None
    numerator, _, denominator = key.partition("/")
    if denominator and Fraction(denominator) == 0:
        return None
    return Fraction(numerator) / (Fraction(denominator) if denominator else 1)


def math_equal(answer: str | None, gold: str | None) -> bool:
    """Whether a MATH answer is the gold one: equal ``math_key``s, or plain rationals of equal value."""
    if answer is None or gold is None:
        return False
    said, wanted = math_key(answer), math_key(gold)
    if not wanted:
        return False
    if said == wanted:
        return True
    value = _rational(wanted)
    return value is not None and _rational(said) == value
