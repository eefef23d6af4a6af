"""Every field of an OpenAI-compatible server's answer, checked where it arrives.

What it does: ``usage(chunk, server)`` gives a streamed chunk's token counts as
whole numbers 0 to ``MAX_COUNT`` (far above any context window, far below
what a store's integer column holds even summed over a long study);
``choices(chunk, server)`` gives each choice's text piece, its logprobs
entries (``logprobs.checked_entries``) and its finish reason, every one of
the right type; ``model_entry_problem(entry)`` says what is wrong with one
entry of ``/v1/models`` (None when nothing this backend reads is wrong).
Anything else is a ``BackendError`` naming the server (``server``: its
address) and the field, so a broken server ends a debate with one clear
error instead of a crash inside the engine or the recorder.

What it does not do: talk to the server (``transport``), or turn the checked
fields into a ``Completion`` (``backend``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debate_core.backends.openai import logprobs
from debate_core.errors import BackendError

#: the most tokens one request may report (prompt or completion)
MAX_COUNT = 10_000_000


def _broken(server: str, what: str) -> BackendError:
    return BackendError(f"the server at {server} {what}")


def usage(chunk: Mapping[str, Any], server: str) -> Mapping[str, int] | None:
    """The chunk's ``usage`` as clean counts (``BackendError`` for anything that is not one)."""
    counts = chunk.get("usage")
    if counts is None:
        return None
    if not isinstance(counts, Mapping):
        raise _broken(server, f"sent a usage that is a {type(counts).__name__}, not an object")
    details = counts.get("prompt_tokens_details")
    if details is not None and not isinstance(details, Mapping):
        raise _broken(server, f"sent prompt_tokens_details that are a {type(details).__name__}, not an object")
    return {
        "prompt_tokens": _count(counts.get("prompt_tokens"), "prompt_tokens", server),
        "completion_tokens": _count(counts.get("completion_tokens"), "completion_tokens", server),
        "cached_tokens": _count((details or {}).get("cached_tokens"), "cached_tokens", server),
    }


def _count(value: Any, name: str, server: str) -> int:
    if value is None:
        return 0
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, float) and not value.is_integer())
        or not 0 <= value <= MAX_COUNT
    ):
        raise _broken(server, f"reported {name} = {value!r:.40} in its usage, not a token count (0 to {MAX_COUNT:,})")
    return int(value)


def choices(chunk: Mapping[str, Any], server: str) -> list[tuple[str, list[Mapping[str, Any]], str | None]]:
    """Per choice of a chunk: its text piece, its logprobs entries and its finish reason, all checked."""
    listed = chunk.get("choices")
    if listed is None:
        return []
    if not isinstance(listed, list):
        raise _broken(server, f"sent choices that are a {type(listed).__name__}, not a list")
    found = []
    for choice in listed:
        if not isinstance(choice, Mapping):
            raise _broken(server, f"sent a choice that is a {type(choice).__name__}, not an object")
        index = choice.get("index", 0)
        if index != 0 or isinstance(index, bool):
            raise _broken(server, f"sent a choice with index {index!r:.40} (one was asked for, index 0)")
        delta = choice.get("delta")
        if delta is None:
            delta = {}
        if not isinstance(delta, Mapping):
            raise _broken(server, f"sent a delta that is a {type(delta).__name__}, not an object")
        piece = delta.get("content")
        if piece is not None and not isinstance(piece, str):
            raise _broken(server, f"sent content that is a {type(piece).__name__}, not text")
        lp = choice.get("logprobs")
        if lp is not None and not isinstance(lp, Mapping):
            raise _broken(server, f"sent logprobs that are a {type(lp).__name__}, not an object")
        try:
            new = logprobs.checked_entries((lp or {}).get("content"))
        except BackendError as error:
            raise _broken(server, f"sent malformed logprobs: {error}") from error
        reason = choice.get("finish_reason")
        if reason is not None and not isinstance(reason, str):
            raise _broken(server, f"sent a finish_reason that is a {type(reason).__name__}, not text")
        found.append((piece or "", new, reason))
    return found


def model_entry_problem(entry: Any) -> str | None:
    """What is wrong with one entry of a model list, in words (None: nothing this backend reads)."""
    if not isinstance(entry, Mapping):
        return f"is a {type(entry).__name__}, not a model"
    if not isinstance(entry.get("id"), str) or not entry["id"]:
        return f"has an id that is not a name: {entry.get('id')!r:.60}"
    aliases = entry.get("aliases")
    if aliases is not None and (not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases)):
        return f"({entry['id'][:60]!r}) has aliases that are not a list of names: {aliases!r:.60}"
    if entry.get("owned_by") is not None and not isinstance(entry["owned_by"], str):
        return f"({entry['id'][:60]!r}) has an owned_by that is not text: {entry['owned_by']!r:.60}"
    if entry.get("meta") is not None and not isinstance(entry["meta"], Mapping):
        return f"({entry['id'][:60]!r}) has a meta that is not an object: {entry['meta']!r:.60}"
    return None
