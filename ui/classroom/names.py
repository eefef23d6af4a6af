"""Display names people give when they join a classroom debate: cleaned, bounded, escaped when drawn.

What it does: ``clean_name`` turns what a person typed into the name the
room keeps: Unicode-normalized (NFKC: full-width and compatibility forms
folded), every control, format, private-use and unassigned character
removed (newlines, bidi overrides, zero-width joiners), white space
collapsed to single spaces, at most ``MAX_NAME_CHARS`` characters; a name
with no letter or digit left is refused (``Invalid``). ``distinct`` makes a
name unique in a room by adding " (2)", " (3)"... (within the same bound). ``html_name`` escapes a
kept name for HTML: every place that draws a name must draw it through it
(or an escaping renderer).

What it does not do: judge what a name says, or keep names (``room``).
"""

from __future__ import annotations

import html
import unicodedata
from collections.abc import Collection

from storage.classroom import MAX_NAME_CHARS  # the bound the stored record holds it to
from ui.classroom.roles import Invalid

MAX_INPUT_CHARS = 1_000  # longer input is refused before any work is done on it
_DROPPED = ("C",)  # Unicode categories Cc, Cf, Cs, Co, Cn


def clean_name(text: object) -> str:
    """The display name kept for ``text``, or ``Invalid`` with words for the page."""
    if not isinstance(text, str):
        raise Invalid("Say your name in a few letters.")
    if len(text) > MAX_INPUT_CHARS:
        raise Invalid(f"A name is at most {MAX_NAME_CHARS} characters.")
    normal = unicodedata.normalize("NFKC", text)
    kept = "".join(
        " " if ch.isspace() else ch for ch in normal if ch.isspace() or unicodedata.category(ch)[0] not in _DROPPED
    )
    name = " ".join(kept.split())
    if not any(ch.isalnum() for ch in name):
        raise Invalid("Say your name in a few letters.")
    if len(name) > MAX_NAME_CHARS:
        raise Invalid(f"A name is at most {MAX_NAME_CHARS} characters; yours has {len(name)}.")
    return name


def distinct(name: str, taken: Collection[str]) -> str:
    """``name``, or ``name (2)``, ``name (3)``...: the first not in ``taken`` (compared without case)."""
    lowered = {t.casefold() for t in taken}
    if name.casefold() not in lowered:
        return name
    n = 2
    while _numbered(name, n).casefold() in lowered:
        n += 1
    return _numbered(name, n)


def _numbered(name: str, n: int) -> str:
    suffix = f" ({n})"
    return name[: MAX_NAME_CHARS - len(suffix)].rstrip() + suffix


def html_name(name: str) -> str:
    """A kept name, safe inside HTML text or a quoted attribute."""
    return html.escape(name, quote=True)
