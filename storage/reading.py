"""Reading a stored debate's events back, as the engine's own event objects.

What it does: ``read_events(engine, debate_id)`` returns every stored event of
a debate in order, validated into the engine's event classes (payloads
written at an older event schema are upgraded by ``event_from_dict``), so a
replay and a live view fold the very same objects.

What it does not do: write anything, or list debates (``store`` does).
"""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from debate_core.events import Event, event_from_dict
from storage.models import DebateRow, EventRow


def read_events(engine: Engine, debate_id: str) -> list[Event]:
    """Every stored event of a debate, in order; ``KeyError`` if there is no such debate."""
    with Session(engine) as session:
        if session.get(DebateRow, debate_id) is None:
            raise KeyError(f"no debate {debate_id!r} in the store")
        payloads = session.scalars(
            select(EventRow.payload).where(EventRow.debate_id == debate_id).order_by(EventRow.seq)
        ).all()
    return [event_from_dict(payload) for payload in payloads]
