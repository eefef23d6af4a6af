"""The round-robin debate's own event: the answers counted after a round (``TallyTaken``).

What it does: defines ``TallyTaken`` (the round and how many agents hold each
answer), registered through the ``register_event_types`` hook, so the host
serialises, stores, imports and replays it like its own events; with no
renderer of its own, the web app and the terminal show it in their generic,
readable way.

What it does not do: count anything (the loop in ``protocol`` does).
"""

from __future__ import annotations

from typing import Literal

from debate_core.events.records import Count
from debate_core.events.types import EventBase


class TallyTaken(EventBase):
    """How many agents hold each answer once a round's answers are in."""

    type: Literal["round_robin_tally"] = "round_robin_tally"
    round: Count
    counts: tuple[tuple[str, Count], ...]
