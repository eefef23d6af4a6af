"""Checking a recorded stream against the protocol that made it: the kernel's rules plus the protocol's own.

What it does: ``stream_checker(started)`` resolves the protocol that the
``DebateStarted`` configuration names through the registry: a protocol that
is not installed, a variant it does not have, parameters its ``Params``
refuse or a protocol label that does not match is an ``ImpossibleEvent`` at
the start. It returns a ``kernel.consistency.StreamChecker`` with the
protocol's ``stream_rules``; ``check_stream(events)`` feeds it a whole stream
and raises ``ImpossibleEvent`` naming the first event that cannot have
happened.

What it does not do: build a protocol (no classifier, library or model its
parameters name is opened), validate event shapes (the event models do), or
read files (``storage.transcript`` does).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from debate_core.errors import ImpossibleEvent
from debate_core.events.codec import Event
from debate_core.events.types import DebateStarted
from debate_core.kernel.consistency import StreamChecker
from debate_core.protocols.registry import available


def stream_checker(started: DebateStarted) -> StreamChecker:
    """A checker for the stream ``started`` begins, with its protocol's rules (``ImpossibleEvent`` if none)."""
    config = started.config

    def impossible(why: str) -> ImpossibleEvent:
        return ImpossibleEvent(started.seq, started.type, why)

    installed = available()
    cls = installed.get(config.protocol)
    if cls is None:
        raise impossible(f"protocol {config.protocol!r} is not installed (installed: {', '.join(installed)})")
    variant = config.variant or cls.default_variant()
    if variant not in cls.variants:
        raise impossible(f"protocol {cls.name} has no variant {variant[:80]!r} (variants: {', '.join(cls.variants)})")
    try:
        params = cls.Params.model_validate(config.params)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(all)"
        raise impossible(f"{cls.name} parameter {where[:80]}: {str(first['msg'])[:200]}") from None
    if started.protocol not in (f"{cls.name}/{variant}", variant):
        raise impossible(f"it labels the protocol {started.protocol[:80]!r}, not {cls.name}/{variant}")
    return StreamChecker(started, cls.stream_rules(variant, params, config))


def check_stream(events: Sequence[Event]) -> None:
    """Raise ``ImpossibleEvent`` at the first event of ``events`` that cannot have happened."""
    if not events:
        return
    first = events[0]
    if not isinstance(first, DebateStarted):
        raise ImpossibleEvent(first.seq, first.type, "a debate begins with debate_started")
    stream_checker(first).check(events)
