"""SID's own event: what one agent was shown of the others' messages (``ContextCompressed``).

What it does: defines the event SID emits when it compresses the others'
messages for an agent, with the spans kept (character offsets), the ratio and
the attention layer (or, with ``all_layers``, the last of the layers scored);
with ``method`` ``summary`` (the ``summary`` variant) the agent's model
summarized the others' text instead: ``kept_text`` is the summary, no span
is kept, the ratio is the summary's length over the text's (at most 1).
It is registered through the ``register_event_types`` hook (``plugin``), so
it is serialised, stored, imported and replayed like a built-in event; its
``type`` string and fields are those of every stream recorded before it
moved here.

What it does not do: measure anything (``compression``), or render it
(``terminal`` for the console; the web app's renderers).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from debate_core.events.records import MAX_COUNT, Count, Probability
from debate_core.events.types import EventBase


class ContextCompressed(EventBase):
    """What one agent was shown of others' messages: the spans kept, by character offsets."""

    type: Literal["context_compressed"] = "context_compressed"
    agent: str
    round: Count
    source_text: str
    source_tokens: Count
    kept_spans: tuple[tuple[Count, Count], ...]
    kept_text: str
    ratio: Probability
    top_p: Probability
    layer: Annotated[int, Field(ge=-MAX_COUNT, le=MAX_COUNT)] | None = None
    all_layers: bool = False  # the scores are the maximum over layers 0 to ``layer``
    method: Literal["attention", "summary"] = "attention"  # summary: kept_text is the model's summary
