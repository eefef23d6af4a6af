"""One rule for text that enters a debate from outside: model output, human input, imported files.

What it does: ``clean(text)`` returns text that every consumer can store and
render: lone UTF-16 surrogates (legal in a browser's JSON and in a model's
``\\ud83d`` escape, but not encodable as UTF-8) become U+FFFD, and NUL
characters (refused by PostgreSQL text columns) are dropped. Everything else,
markup included, is kept verbatim: renderers escape, they never interpret.

What it does not do: cut length (each boundary has its own limit) or judge
content.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD and NUL characters removed."""
    if "\x00" in text:
        text = text.replace("\x00", "")
    if text.isascii():  # the common case, checked at C speed
        return text
    return _SURROGATE.sub("\ufffd", text)
