"""The open event vocabulary: the built-in event types plus those plugins register.

What it does: ``BUILT_IN_EVENTS`` lists the event classes the engine itself
emits (the frame, answers, the floor, listening, signals). A protocol plugin
adds its own through the ``register_event_types`` hook (``register(MyEvent)``
once per class); ``registered()`` gives every event type, built-in first,
with the plugin that brought it. Everything that reads or checks events
asks here: the codec's discriminated union (``adapter()``), the transcript
import's validation, storage's reading, and ``EventFold`` (every consumer is
exhaustive over the registered types). The plugins are asked lazily, the
first time a type is looked up, and again after the plugin manager was
rebuilt (``reset_plugin_manager``, ``registry.reload``).

A registered class must subclass ``EventBase`` (or ``ReplyBase``), declare
``type: Literal["its_type"] = "its_type"`` with a type of lower-case
letters, digits and ``_``, and take no type already taken (by a built-in, a
renamed schema-1 type or another plugin). A plugin's mistake is recorded
(``debate_core.plugins.problems()``) and its class left out; the others load.

What it does not do: convert events (``codec``) or dispatch them (``fold``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import Field, TypeAdapter

from debate_core.events.acts import Intervention, ListenerDecision, SignalsMeasured
from debate_core.events.types import (
    AnswersUpdated,
    DebateEnded,
    DebateStarted,
    EventBase,
    InitialAnswersGiven,
    Interrupted,
    PhaseStarted,
    PlansMade,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)

BUILT_IN_EVENTS: tuple[type[EventBase], ...] = (
    DebateStarted,
    PhaseStarted,
    InitialAnswersGiven,
    PlansMade,
    AnswersUpdated,
    SpeakerSelected,
    Interrupted,
    UtteranceGenerated,
    UtteranceExtended,
    UnitDisclosed,
    UtteranceCompleted,
    SilentTurn,
    UtteranceResumed,
    UtteranceRevised,
    ListenerDecision,
    Intervention,
    SignalsMeasured,
    DebateEnded,
)
"""The event classes of the engine itself, in the order ``registered()`` lists them."""

BUILT_IN = "built-in"
TYPE_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
# Event types renamed since schema version 1: old name -> current name (never a registrable type).
RENAMED_TYPES = {"sentence_disclosed": "unit_disclosed"}


@dataclass(frozen=True)
class EventType:
    """One registered event type: its ``type`` string (``kind``), its class and who brought it."""

    kind: str
    cls: type[EventBase]
    plugin: str | None  # None: built in
    source: str

    @property
    def built_in(self) -> bool:
        return self.plugin is None


@dataclass(frozen=True)
class _Snapshot:
    manager: object
    types: dict[str, EventType]
    adapter: TypeAdapter[Any]
    list_adapter: TypeAdapter[Any]


_LOCK = threading.RLock()
_SNAPSHOT: _Snapshot | None = None
_BUILDING = threading.local()


def type_of(cls: type[EventBase]) -> str:
    """The ``type`` string an event class declares; ``TypeError`` if it declares none."""
    field = cls.model_fields.get("type")
    default = field.default if field is not None else None
    if not isinstance(default, str):
        raise TypeError(f"{cls.__name__} declares no `type: Literal[...] = ...` field")
    if field is not None and get_origin(field.annotation) is Literal and get_args(field.annotation) != (default,):
        raise TypeError(f"{cls.__name__}: its type Literal{list(get_args(field.annotation))} is not {default!r}")
    return default


def _built_ins() -> dict[str, EventType]:
    return {type_of(cls): EventType(type_of(cls), cls, None, BUILT_IN) for cls in BUILT_IN_EVENTS}


def _union(classes: tuple[type[EventBase], ...]) -> Any:
    if len(classes) == 1:  # a one-member discriminated union is refused by pydantic
        return classes[0]
    return Annotated[Union[classes], Field(discriminator="type")]  # noqa: UP007 - built at run time


def _plugin_types(types: dict[str, EventType]) -> None:
    from debate_core.events.types import EventBase as Base
    from debate_core.plugins.manager import collect, record_problem

    for registration in collect("register_event_types"):
        cls, plugin, source = registration.item, registration.plugin, registration.source
        where = f"plugin {plugin} ({source})"
        if not (isinstance(cls, type) and issubclass(cls, Base)):
            record_problem(f"{where} registered {cls!r} as an event type: not a subclass of EventBase")
            continue
        try:
            kind = type_of(cls)
        except TypeError as error:
            record_problem(f"{where} registered an event type that is not one: {error}")
            continue
        if not TYPE_PATTERN.match(kind):
            record_problem(f"{where}: event type {kind!r} is not lower-case letters, digits and _ (64 at most)")
            continue
        taken = types.get(kind)
        if taken is not None and taken.cls is cls:
            continue
        if taken is not None or kind in RENAMED_TYPES:
            owner = "a schema-1 type" if taken is None else f"{taken.cls.__qualname__} of {taken.plugin or BUILT_IN}"
            record_problem(f"{where}: event type {kind!r} ({cls.__qualname__}) is taken by {owner}; left out")
            continue
        types[kind] = EventType(kind, cls, plugin, source)


def _snapshot() -> _Snapshot:
    global _SNAPSHOT
    from debate_core.plugins.manager import plugin_manager

    if getattr(_BUILDING, "active", False):
        # A plugin decoding an event while its hook runs: it sees the built-ins only.
        types = _built_ins()
        return _Snapshot(None, types, *_adapters(types))
    manager = plugin_manager()
    with _LOCK:
        if _SNAPSHOT is None or _SNAPSHOT.manager is not manager:
            _BUILDING.active = True
            try:
                types = _built_ins()
                _plugin_types(types)
            finally:
                _BUILDING.active = False
            _SNAPSHOT = _Snapshot(manager, types, *_adapters(types))
        return _SNAPSHOT


def _adapters(types: dict[str, EventType]) -> tuple[TypeAdapter[Any], TypeAdapter[Any]]:
    union = _union(tuple(t.cls for t in types.values()))
    return TypeAdapter(union), TypeAdapter(list[union])  # type: ignore[valid-type]


def registered() -> dict[str, EventType]:
    """Every event type, built-ins first, then each plugin's in the order the plugins registered them."""
    return dict(_snapshot().types)


def plugin_types() -> frozenset[str]:
    """The event types plugins registered (not the built-in ones)."""
    return frozenset(kind for kind, t in _snapshot().types.items() if not t.built_in)


def adapter() -> TypeAdapter[Any]:
    """A pydantic adapter validating one event of any registered type (by its ``type``)."""
    return _snapshot().adapter


def list_adapter() -> TypeAdapter[Any]:
    """A pydantic adapter validating a list of events of any registered types."""
    return _snapshot().list_adapter


def version() -> object:
    """Changes whenever the registered types may have changed (a cache key for consumers)."""
    return _snapshot()


class _EventTypes(Mapping[str, type[EventBase]]):
    """``EVENT_TYPES``: each registered ``type`` string to its class, read from the registry on every use."""

    def __getitem__(self, kind: str) -> type[EventBase]:
        return _snapshot().types[kind].cls

    def __iter__(self) -> Iterator[str]:
        return iter(_snapshot().types)

    def __len__(self) -> int:
        return len(_snapshot().types)

    def __repr__(self) -> str:
        return f"EVENT_TYPES({', '.join(self)})"


EVENT_TYPES: Mapping[str, type[EventBase]] = _EventTypes()
"""Every registered event type to its class (built-ins and plugins'), always current."""
