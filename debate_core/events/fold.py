"""The base of every consumer of events: one handler per event type, or an explicit ignore.

What it does: an ``EventFold`` subclass defines ``_<type>(self, event)`` for
each event type it handles and lists the types it ignores in ``IGNORED``.
``dispatch(event)`` calls the handler; an event type that is neither handled
nor ignored raises ``UnhandledEvent`` (a programming error: a new event type
reached a consumer nobody taught about it). ``unhandled()`` lists such types
without running anything, and ``tests/test_folds.py`` checks it is empty for
every consumer in the project (recorder, view model, terminal, metrics), so a
new event type can never be dropped silently.

The event types are those of the registry (``registry``): the built-ins and
every plugin's. A consumer that cannot know a plugin's events (the recorder
keeps them in ``events`` alone; the terminal shows a generic line) opts in
explicitly with ``PLUGIN_EVENTS = "default"`` and a
``default_for_plugin_event(event)`` method: it then receives every
*plugin* event type it has no ``_<type>`` handler for. A built-in type never
falls to the default: each consumer still handles or ignores every one.

What it does not do: decide what a consumer does with an event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Literal

from debate_core.events import registry
from debate_core.events.codec import EVENT_TYPES, Event


class UnhandledEvent(RuntimeError):
    """An event type reached a consumer that neither handles nor ignores it."""


class EventFold:
    """Dispatch by event type to ``_<type>`` methods; ``IGNORED`` types are skipped on purpose.

    ``PLUGIN_EVENTS``: ``"strict"`` (the default) makes a plugin's event type
    like a built-in one, to be handled or ignored by name; ``"default"`` sends
    each plugin event type without a handler to ``default_for_plugin_event``.
    """

    IGNORED: ClassVar[frozenset[str]] = frozenset()
    PLUGIN_EVENTS: ClassVar[Literal["strict", "default"]] = "strict"

    def default_for_plugin_event(self, event: Event) -> None:
        """What a ``PLUGIN_EVENTS = "default"`` consumer does with a plugin event it has no handler for."""
        raise NotImplementedError(f"{type(self).__name__} sets PLUGIN_EVENTS = 'default' but defines no default")

    @classmethod
    def _defaults_plugin_events(cls) -> bool:
        if cls.PLUGIN_EVENTS not in ("strict", "default"):
            raise TypeError(f"{cls.__name__}.PLUGIN_EVENTS is {cls.PLUGIN_EVENTS!r}, not 'strict' or 'default'")
        if cls.PLUGIN_EVENTS == "default" and cls.default_for_plugin_event is EventFold.default_for_plugin_event:
            raise TypeError(f"{cls.__name__} sets PLUGIN_EVENTS = 'default' but defines no default_for_plugin_event")
        return cls.PLUGIN_EVENTS == "default"

    @classmethod
    def unhandled(cls) -> list[str]:
        """Event types this consumer neither handles nor ignores (should be empty)."""
        defaulted = registry.plugin_types() if cls._defaults_plugin_events() else frozenset()
        return [
            kind
            for kind in EVENT_TYPES
            if not hasattr(cls, f"_{kind}") and kind not in cls.IGNORED and kind not in defaulted
        ]

    @classmethod
    def defaulted(cls) -> list[str]:
        """The plugin event types this consumer takes through ``default_for_plugin_event``."""
        if not cls._defaults_plugin_events():
            return []
        return [kind for kind in registry.plugin_types() if not hasattr(cls, f"_{kind}") and kind not in cls.IGNORED]

    @classmethod
    def unknown(cls) -> list[str]:
        """Names in ``IGNORED`` that are not event types (a typo, or a removed type)."""
        return sorted(kind for kind in cls.IGNORED if kind not in EVENT_TYPES)

    @classmethod
    def _table(cls) -> dict[str, Callable[[Any, Any], None] | None]:
        version = registry.version()
        cached = cls.__dict__.get("_dispatch_table")
        if cached is None or cached[0] is not version:
            defaulted = set(cls.defaulted())
            default = cls.default_for_plugin_event
            table = {
                kind: getattr(cls, f"_{kind}", None) or (default if kind in defaulted else None) for kind in EVENT_TYPES
            }
            cached = (version, table)
            setattr(cls, "_dispatch_table", cached)  # noqa: B010 - a per-class cache
        return cached[1]  # type: ignore[no-any-return]

    def dispatch(self, event: Event) -> None:
        handler = self._table().get(event.type)
        if handler is None:
            if event.type in self.IGNORED:
                return
            raise UnhandledEvent(f"{type(self).__name__} has no handler for {event.type} events")
        handler(self, event)
