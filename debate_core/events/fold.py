"""The base of every consumer of events: one handler per event type, or an explicit ignore.

What it does: an ``EventFold`` subclass defines ``_<type>(self, event)`` for
each event type it handles and lists the types it ignores in ``IGNORED``.
``dispatch(event)`` calls the handler; an event type that is neither handled
nor ignored raises ``UnhandledEvent`` (a programming error: a new event type
reached a consumer nobody taught about it). ``unhandled()`` lists such types
without running anything, and ``tests/test_folds.py`` checks it is empty for
every consumer in the project (recorder, view model, terminal, metrics), so a
new event type can never be dropped silently.

What it does not do: decide what a consumer does with an event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from debate_core.events.codec import EVENT_TYPES, Event


class UnhandledEvent(RuntimeError):
    """An event type reached a consumer that neither handles nor ignores it."""


class EventFold:
    """Dispatch by event type to ``_<type>`` methods; ``IGNORED`` types are skipped on purpose."""

    IGNORED: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def unhandled(cls) -> list[str]:
        """Event types this consumer neither handles nor ignores (should be empty)."""
        return [kind for kind in EVENT_TYPES if not hasattr(cls, f"_{kind}") and kind not in cls.IGNORED]

    @classmethod
    def unknown(cls) -> list[str]:
        """Names in ``IGNORED`` that are not event types (a typo, or a removed type)."""
        return sorted(kind for kind in cls.IGNORED if kind not in EVENT_TYPES)

    @classmethod
    def _table(cls) -> dict[str, Callable[[Any, Any], None] | None]:
        table = cls.__dict__.get("_dispatch_table")
        if table is None:
            table = {kind: getattr(cls, f"_{kind}", None) for kind in EVENT_TYPES}
            setattr(cls, "_dispatch_table", table)  # noqa: B010 - a per-class cache
        return table  # type: ignore[no-any-return]

    def dispatch(self, event: Event) -> None:
        handler = self._table().get(event.type)
        if handler is None:
            if event.type in self.IGNORED:
                return
            raise UnhandledEvent(f"{type(self).__name__} has no handler for {event.type} events")
        handler(self, event)
