"""Events as plain data: the tagged union, dicts, JSON lines, and reading schema 1.

What it does: ``Event`` is any event (the base class of the built-in and the
plugins' event classes); ``EVENT_TYPES`` maps each registered ``type`` to its
class (``registry``: the built-ins and those of the ``register_event_types``
hook; consumers are checked against it, so a new event cannot be dropped
silently), ``event_from_dict`` validates by the ``type`` tag against every
registered class, and
``event_to_dict`` / ``event_from_dict`` / ``write_jsonl`` / ``read_jsonl``
convert losslessly.

Reading older streams: ``event_from_dict`` accepts events written at schema
version 1 (before the protocol kernel) and upgrades them: the event type
``sentence_disclosed`` is now ``unit_disclosed``, ``debate_started`` gets
``schema_version`` 2, and every field added since has a default (a version-1
configuration is a ``kimura`` debate whose variant is its condition). A
``debate_started`` configuration, at either schema version, written while
``history_window``, ``prompt_layout`` and ``utterance_max_new_tokens`` were
top-level fields is read with them in Kimura's ``params``
(``config.knobs_into_params``); schema 2 covers both shapes.

What it does not do: decide anything, or write files other than JSON lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TypeAlias

from debate_core.config import knobs_into_params
from debate_core.events import registry
from debate_core.events.registry import BUILT_IN_EVENTS, EVENT_TYPES, RENAMED_TYPES
from debate_core.events.types import EVENT_SCHEMA_VERSION, EventBase

Event: TypeAlias = EventBase
"""Any event, built-in or a plugin's: its class is chosen by its ``type`` (see ``registry``)."""

EVENT_CLASSES: tuple[type[EventBase], ...] = BUILT_IN_EVENTS
"""The built-in event classes (``EVENT_TYPES`` also holds the plugins')."""

__all__ = [
    "EVENT_CLASSES",
    "EVENT_TYPES",
    "RENAMED_TYPES",
    "Event",
    "event_from_dict",
    "event_to_dict",
    "event_to_json",
    "read_jsonl",
    "upgrade",
    "write_jsonl",
]


def upgrade(data: Any) -> Any:
    """An older event dict (schema 1, or a configuration with Kimura's former top-level knobs) in today's
    shape (anything else is returned as it is)."""
    if not isinstance(data, dict):
        return data
    kind = data.get("type")
    if isinstance(kind, str) and kind in RENAMED_TYPES:
        data = {**data, "type": RENAMED_TYPES[kind]}
    if kind == "debate_started" and data.get("schema_version", 1) == 1:
        data = {**data, "schema_version": EVENT_SCHEMA_VERSION}
    if kind == "debate_started" and isinstance(data.get("config"), dict):
        data = {**data, "config": knobs_into_params(data["config"])}
    return data


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict; ``event_from_dict`` gives back an equal event."""
    return event.model_dump(mode="json")


def event_from_dict(data: Any) -> Event:
    """Validate a dict (e.g. from JSON) into the matching event class, upgrading schema 1.

    Raises ``pydantic.ValidationError`` with the offending field for anything
    that is not a well-formed event.
    """
    event: Event = registry.adapter().validate_python(upgrade(data))
    return event


def event_to_json(event: Event) -> str:
    return event.model_dump_json()


def write_jsonl(events: Iterable[Event], path: str | Path) -> int:
    """Write events one JSON object per line; returns how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as handle:
        for event in events:
            handle.write(event_to_json(event) + "\n")
            count += 1
    return count


def read_jsonl(path: str | Path) -> Iterator[Event]:
    """Read events written by ``write_jsonl`` (or the CLI's ``--events-jsonl``), any schema version."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield event_from_dict(json.loads(line))
            except (json.JSONDecodeError, ValueError) as error:
                raise ValueError(f"{path}:{number}: not a debate event: {error}") from error
