"""Reading a model's structured reply: one JSON object, however the model wrapped or mangled it.

What it does: ``load_object(raw)`` parses the JSON object in a model's text
and returns it with a note, or raises ``FormInvalid`` with what is wrong, for
every request kind that asks for JSON:

* plain JSON gives no note; an object wrapped in other text (a code fence, a
  sentence before it) is taken with a note saying so, since unconstrained
  backends do this and the object is still what the model wrote;
* text that is no JSON object, JSON nested more than ``MAX_DEPTH`` levels
  (even past Python's recursion limit), or an integer literal too long for
  Python to read (over 4,300 digits) is invalid, never a crash;
* every string in the object passes ``debate_core.text.clean``: a JSON
  escape such as ``"\\ud83d"`` (half an emoji, legal under a grammar) must not
  reach the events as a lone surrogate that cannot be stored.

What it does not do: check the object's fields (each request kind does).
"""

from __future__ import annotations

import json
from typing import Any

from debate_core.kernel.forms import FormInvalid
from debate_core.text import clean

MAX_DEPTH = 32


def _cleaned(value: Any, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise FormInvalid(f"JSON nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(key): _cleaned(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [_cleaned(item, depth + 1) for item in value]
    return value


def _why(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return f"nested more than {MAX_DEPTH} levels deep"
    return str(error)[:120]


def load_object(raw: str) -> tuple[dict[str, Any], str | None]:
    """The JSON object in ``raw`` (strings cleaned) and a note; raises ``FormInvalid``."""
    text = raw.strip()
    note: str | None = None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        start = text.find("{")
        if start < 0:
            raise FormInvalid("no JSON object in the output") from None
        try:
            value, _ = json.JSONDecoder().raw_decode(text, start)
        except json.JSONDecodeError as error:
            raise FormInvalid(f"invalid JSON: {error.msg} at position {error.pos}") from None
        except (RecursionError, ValueError) as error:
            raise FormInvalid(f"unreadable JSON: {_why(error)}") from None
        note = "JSON object taken from surrounding text"
    except (RecursionError, ValueError) as error:  # nested too deeply, an integer of thousands of digits
        raise FormInvalid(f"unreadable JSON: {_why(error)}") from None
    if not isinstance(value, dict):
        raise FormInvalid(f"expected a JSON object, got {type(value).__name__}")
    return _cleaned(value), note
