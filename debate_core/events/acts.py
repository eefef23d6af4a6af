"""The events of listening and reflecting: decisions, interventions, signals, compressions, analyses, acts.

What it does: defines the event classes protocols use beyond the floor's own
(``types``): a listener's yes/no after a unit (``ListenerDecision``), a point
of information or a question (``Intervention``), a model's signals on its own
reply (``SignalsMeasured``), what an agent was shown of others' messages
(``ContextCompressed``), an observer's analysis (``AnalysisMade``) and the
discussion acts an agent composed (``ActionComposed``).

What it does not do: decide anything, or convert to and from JSON (``codec``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from debate_core.events.records import MAX_COUNT, Count, Finite, Probability, TokenStats
from debate_core.events.types import UnitIndex, _Event, _Reply

# -- listening and intervening ------------------------------------------------------------------


class ListenerDecision(_Reply):
    """A listener's yes/no after a disclosed unit: interrupt (or raise a point) now, or not.

    ``policy`` names how it was decided (``never``, ``random``, ``prompted``,
    ``threshold``, ``forced``, ``human``, ...); ``p_interrupt`` is the
    probability of interrupting when the policy knows it; ``text`` carries a
    payload (a point of information) when the decision has one.
    """

    type: Literal["listener_decision"] = "listener_decision"
    listener: str
    speaker: str
    utterance_id: Count
    unit_index: UnitIndex
    interrupt: bool
    policy: Annotated[str, Field(max_length=32)]  # the width of its column
    p_interrupt: Probability | None = None
    text: str | None = None


class Intervention(_Reply):
    """A point of information or a question put to a speaker, blocking its speech or not."""

    type: Literal["intervention"] = "intervention"
    author: str
    target: str
    kind: Annotated[str, Field(max_length=32)]  # the width of its column
    text: str
    blocking: bool
    utterance_id: Count | None = None
    unit_index: UnitIndex | None = None


# -- reflection -------------------------------------------------------------------------------------


class SignalsMeasured(_Event):
    """A model's own signals about one of its replies, and the gate they were checked against.

    ``stats`` are the aggregated token statistics; ``score`` is what the
    ``rule`` compares with ``threshold`` (or a classifier's output), and
    ``passed`` the outcome (e.g. confident enough to exit early).
    """

    type: Literal["signals_measured"] = "signals_measured"
    agent: str
    stats: TokenStats
    score: Finite
    threshold: Finite | None
    rule: str
    passed: bool


class ContextCompressed(_Event):
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


class AnalysisMade(_Reply):
    """An observer's analysis of the others' replies, and whether the debate should stop.

    ``findings`` is the analysis as structured data (per pair of agents, say:
    answers agree, explanations similar, which items match); ``stop`` and
    ``reason`` its verdict on ending.
    """

    type: Literal["analysis_made"] = "analysis_made"
    analyst: str
    round: Count
    findings: dict[str, Any] = Field(default_factory=dict)
    stop: bool = False
    reason: str = ""


class ActionComposed(_Reply):
    """An agent chose discussion acts and composed them into an action to carry out."""

    type: Literal["action_composed"] = "action_composed"
    agent: str
    round: Count
    acts: tuple[str, ...]
    action_text: str
