"""A person's seat at the terminal: any request kind answered on one line.

What it does: ``ask_line(request, channel, console, stdin)`` shows what the
debate asks (the request's prompt and a one-line hint built from its fields)
and reads one line, which ``parse_line`` maps onto the fields: choice,
integer and yes/no fields take the first word that fits them (a choice by a
unique prefix: ``i`` is ``interrupt``), in the order of the fields; the rest
of the line is the first text field. ``i 8 B`` is "interrupt, urgency 8,
answer B"; an empty line takes every default (for a plan: listen). A refused
line is explained and asked again; the end of input closes the channel, so
the seat falls back.

What it does not do: validate (the channel does, at submit time).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from rich.console import Console
from rich.text import Text

from debate_core.errors import HumanInputError
from debate_core.kernel.forms import FieldSpec
from debate_core.kernel.human import HumanChannel, HumanRequest

_LABEL_PUNCTUATION = "()[].:"


def _fits(spec: FieldSpec, word: str) -> bool:
    folded = word.strip(_LABEL_PUNCTUATION).casefold()
    if spec.kind == "integer":
        return folded.lstrip("-").isdigit()
    if spec.kind == "boolean":
        return folded in {"y", "n", "yes", "no", "true", "false"}
    exact = [c for c in spec.choices if c.casefold() == folded]
    prefixed = [c for c in spec.choices if c.casefold().startswith(folded)]
    return bool(folded) and (len(exact) == 1 or len(prefixed) == 1)


def _value(spec: FieldSpec, word: str) -> Any:
    folded = word.strip(_LABEL_PUNCTUATION).casefold()
    if spec.kind == "integer":
        return int(folded)
    if spec.kind == "boolean":
        return folded in {"y", "yes", "true"}
    exact = [c for c in spec.choices if c.casefold() == folded]
    return exact[0] if exact else next(c for c in spec.choices if c.casefold().startswith(folded))


def parse_line(fields: Sequence[FieldSpec], line: str) -> dict[str, Any]:
    """Map one typed line onto a request's fields (see the module docstring)."""
    texts = [spec for spec in fields if spec.kind == "text" and not spec.choices]
    if len(fields) == len(texts) == 1:
        return {texts[0].name: line.strip()}
    words = line.split()
    used: set[int] = set()
    values: dict[str, Any] = {}
    for spec in fields:
        if spec in texts:
            continue
        for index, word in enumerate(words):
            if index not in used and _fits(spec, word):
                values[spec.name] = _value(spec, word)
                used.add(index)
                break
    rest = " ".join(word for index, word in enumerate(words) if index not in used)
    if rest:
        if not texts:
            raise HumanInputError(f"did not understand {rest!r}")
        values[texts[0].name] = rest
    return values


def hint(fields: Sequence[FieldSpec]) -> str:
    """``[action: listen|interrupt] [urgency 0-9] [answer: A|B|C|D] [purpose…]``."""
    parts = []
    for spec in fields:
        if spec.kind == "integer":
            parts.append(f"[{spec.name} {spec.minimum}-{spec.maximum}]")
        elif spec.kind == "boolean":
            parts.append(f"[{spec.name}: y/n]")
        elif spec.choices:
            parts.append(f"[{spec.name}: {'|'.join(spec.choices)}]")
        else:
            parts.append(f"[{spec.name}…]")
    return " ".join(parts)


def _heading(request: HumanRequest) -> str:
    """What a request without a prompt asks for: its description (never its kind's program name)."""
    what = request.description.strip()
    return what[:1].upper() + what[1:] if what else "Your turn"


def ask_line(request: HumanRequest, channel: HumanChannel, console: Console, stdin: IO[str]) -> None:
    """Prompt for ``request`` until a line is accepted or input ends."""
    title = request.prompt.replace("### ", "").strip() or _heading(request)
    console.print(Text(title, style="bold"))
    while True:
        console.print(Text(f"{hint(request.fields)} (Enter = defaults): ", style="bold"), end="")
        line = stdin.readline()
        if not line:  # end of input: stop answering, the seat falls back
            channel.close()
            return
        try:
            channel.submit(request.request_id, parse_line(request.fields, line))
            return
        except HumanInputError as error:
            console.print(Text(f"  {error}", style="red"))
