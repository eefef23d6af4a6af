"""A validation error of the set-up form in the person's words: where, and what is wrong.

What it does: ``friendly(error, names)`` turns one pydantic error of the
config the set-up form builds into a sentence ("option B is 120,000
characters long; the limit is 2,000", "the question is empty"), naming the
field as the form does (option C, the persona of Ann) rather than by
pydantic's location or wording; a model's own message follows a colon
("an agent's name: ...").

``agent_names(text, limit)`` reads the Agents field (names separated by
commas), and says what is wrong with it naming that field and what it takes,
before anything else is read: a persona line is never blamed for a bad
Agents value.

What it does not do: validate the config (its models do) or build the form
(``setup_panel``).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from debate_core.config import MAX_NAME_LENGTH, AgentSpec

_FIELDS = {"text": "the question", "answer": "the correct answer", "persona": "a persona", "name": "an agent's name"}


def _where(loc: tuple[Any, ...], names: list[str]) -> str:
    """A pydantic location in the person's words: ``('question', 'options', 2)`` -> "option C"."""
    parts = [part for part in loc if not (isinstance(part, str) and part.startswith(("function-", "constrained-")))]
    if parts[:1] in (["options"], ["text"], ["context"]):  # raised by the Question model, before the config
        parts = ["question", *parts]
    if parts[:2] == ["question", "options"] and len(parts) > 2 and isinstance(parts[2], int):
        return f"option {chr(ord('A') + parts[2])}" if parts[2] < 26 else f"option {parts[2] + 1}"
    if parts[:1] == ["agents"] and len(parts) > 2 and isinstance(parts[1], int) and parts[1] < len(names):
        return f"{_FIELDS.get(str(parts[2]), str(parts[2]))} of {names[parts[1]]}"
    if parts[:1] == ["question"] and len(parts) > 1:
        return _FIELDS.get(str(parts[1]), f"the question's {parts[1]}")
    if len(parts) == 1 and str(parts[0]) in _FIELDS:  # raised by an agent's own model
        return _FIELDS[str(parts[0])]
    return " ".join(str(part).replace("_", " ") for part in parts)


def friendly(error: Any, names: list[str]) -> str:
    """One validation error as a sentence for the person: where, and what is wrong, without pydantic's wording."""
    where = _where(tuple(error.get("loc", ())), names)
    kind, ctx, value = error.get("type", ""), error.get("ctx") or {}, error.get("input")
    if kind in ("string_too_long", "too_long") and isinstance(value, str):
        what = f"is {len(value):,} characters long; the limit is {ctx.get('max_length', 0):,}"
    elif kind in ("string_too_short", "too_short"):
        what = "is empty"
    elif kind == "too_long":
        what = f"has too many entries; the limit is {ctx.get('max_length', 0):,}"
    else:
        what = str(error.get("msg", "is not valid")).removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if what[:1].isupper() and not what[:2].isupper():
            what = what[0].lower() + what[1:]
    if not where or what.lower().startswith(where.lower()):  # "the question text is blank": names it already
        return what
    return f"{where} {what}" if what.startswith(("is ", "has ")) else f"{where}: {what}"


class FormError(ValueError):
    """The form describes a debate that cannot run; the message is for the person."""


def agent_names(text: str | None, limit: int) -> list[str]:
    """The Agents field's names (separated by commas), or ``FormError`` naming the field and what it takes."""
    rule = (
        f"1 to {limit} names separated by commas, each up to {MAX_NAME_LENGTH} letters, digits, spaces "
        "and _-.' (such as: Alex, Chris, Jenny)"
    )
    names = [name.strip() for name in (text or "").split(",") if name.strip()]
    if not 1 <= len(names) <= limit:
        raise FormError(f"Agents: {len(names)} names given; the field takes {rule}")
    for name in names:
        try:
            AgentSpec(name=name)
        except ValidationError:
            shown = name if len(name) <= MAX_NAME_LENGTH else name[:MAX_NAME_LENGTH] + "…"
            raise FormError(f"Agents: {shown!r} is not a name; the field takes {rule}") from None
    twice = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if twice is not None:
        raise FormError(f"Agents: {twice!r} is named twice; each agent needs a name of its own")
    return names
