"""ACE's own events: the observer's analysis (``AnalysisMade``) and an agent's composed acts (``ActionComposed``).

What it does: defines the two events of Analyze-Compose-Execute beyond the
generic ones. They are registered through the ``register_event_types`` hook
(``plugin``), so they are serialised, stored, imported and replayed like the
built-in events; their ``type`` strings and fields are those of every stream
recorded before they moved here. Both say ``records_mistakes``: a model's
invalid analysis or act is one of its mistakes, as a comparison report counts them.

What it does not do: decide anything (``loop``), or render them (``terminal``
for the console; the web app's renderers).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from debate_core.events.records import Count
from debate_core.events.types import ReplyBase


class AnalysisMade(ReplyBase):
    """An observer's analysis of the others' replies, and whether the debate should stop.

    ``findings`` is the analysis as structured data (per pair of agents, say:
    answers agree, explanations similar, which items match); ``stop`` and
    ``reason`` its verdict on ending.
    """

    records_mistakes: ClassVar[bool] = True  # an invalid one from a model is a model's mistake (the reports count them)
    type: Literal["analysis_made"] = "analysis_made"
    analyst: str
    round: Count
    findings: dict[str, Any] = Field(default_factory=dict)
    stop: bool = False
    reason: str = ""


class ActionComposed(ReplyBase):
    """An agent chose discussion acts and composed them into an action to carry out."""

    records_mistakes: ClassVar[bool] = True
    type: Literal["action_composed"] = "action_composed"
    agent: str
    round: Count
    acts: tuple[str, ...]
    action_text: str
