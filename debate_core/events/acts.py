"""The built-in events of listening and reflecting: decisions, interventions, signals.

What it does: defines the event classes the kernel emits beyond the floor's
own (``types``): a listener's yes/no after a unit (``ListenerDecision``), a
point of information or a question (``Intervention``), a model's signals on
its own reply (``SignalsMeasured``: the kernel measures them, SID and Kimura's
confidence read them).

What it does not do: decide anything, convert to and from JSON (``codec``), or
hold one protocol's own events: those live in its package (``events.py``:
SID's ``ContextCompressed``, ACE's ``AnalysisMade`` and ``ActionComposed``)
and come in through the ``register_event_types`` hook (``registry``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from debate_core.events.records import Count, Finite, Probability, TokenStats
from debate_core.events.types import EventBase, ReplyBase, UnitIndex

# -- listening and intervening ------------------------------------------------------------------


class ListenerDecision(ReplyBase):
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


class Intervention(ReplyBase):
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


class SignalsMeasured(EventBase):
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
