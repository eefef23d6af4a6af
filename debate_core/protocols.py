"""Turn-taking protocols: the pluggable rules for who speaks and how much is shown.

What it does: a ``TurnProtocol`` answers three questions for the engine:

* ``allowed_actions(floor_held)``: what a planning agent may choose now;
* ``units(text, segmenter)``: how an utterance is cut into disclosure units
  (sentences, or one whole message);
* ``select(plans, context, rng)``: who takes the floor next turn, or nobody.

The three conditions of the paper (Section IV-C) are three small classes:

============== =================== ================ ============
condition      speaker selection   disclosure unit  interruption
============== =================== ================ ============
fixed          fixed agent order   whole message    never
dynamic        highest urgency     whole message    never
interruptible  highest urgency     one sentence     yes
============== =================== ================ ============

Ties for the highest urgency are broken by ``rng`` (seeded by the debate's
seed), so the same seed gives the same debate. Later protocols (a streaming
critic with points of information, token-chunk interruption policies,
discussion acts, confidence-gated early exit) subclass ``TurnProtocol`` and
override what differs; the engine loop stays as it is.

What it does not do: generate text, count tokens, or keep state between turns
beyond what ``SelectionContext`` hands it.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

from debate_core.config import Condition
from debate_core.events import Candidate
from debate_core.plans import Action, ActionPlan, allowed_actions
from debate_core.segmentation import Segmenter, WholeMessage


@dataclass(frozen=True, slots=True)
class SelectionContext:
    """The floor as the protocol needs to see it when choosing a speaker."""

    agents: tuple[str, ...]
    floor_holder: str | None
    last_speaker: str | None
    turn: int


@dataclass(frozen=True, slots=True)
class Selection:
    speaker: str
    rule: str
    urgency: int | None
    candidates: tuple[Candidate, ...]
    tie: tuple[str, ...] = ()


def candidates_of(plans: Mapping[str, ActionPlan]) -> tuple[Candidate, ...]:
    """Agents whose plan asks for the floor (speak or interrupt), in plan order."""
    return tuple(
        Candidate(agent=agent, action=plan.action, urgency=plan.urgency)
        for agent, plan in plans.items()
        if plan.wants_floor
    )


def select_by_urgency(plans: Mapping[str, ActionPlan], rng: random.Random) -> Selection | None:
    """The highest-urgency candidate; a seeded random choice among ties; None if none."""
    candidates = candidates_of(plans)
    if not candidates:
        return None
    top = max(candidate.urgency for candidate in candidates)
    tied = [candidate.agent for candidate in candidates if candidate.urgency == top]
    speaker = tied[0] if len(tied) == 1 else rng.choice(tied)
    return Selection(speaker, "urgency", top, candidates, tuple(tied) if len(tied) > 1 else ())


class TurnProtocol(ABC):
    """Base class of turn-taking rules; see the module docstring."""

    name: str = "abstract"
    condition: Condition | None = None

    def allowed_actions(self, floor_held: bool) -> tuple[Action, ...]:
        return allowed_actions(floor_held)

    @abstractmethod
    def units(self, text: str, segmenter: Segmenter) -> tuple[str, ...]: ...

    @abstractmethod
    def select(
        self, plans: Mapping[str, ActionPlan], context: SelectionContext, rng: random.Random
    ) -> Selection | None: ...

    @property
    def discloses_whole_messages(self) -> bool:
        return False


class _WholeMessages(TurnProtocol):
    _whole = WholeMessage()

    def units(self, text: str, segmenter: Segmenter) -> tuple[str, ...]:
        return self._whole.split(text)

    @property
    def discloses_whole_messages(self) -> bool:
        return True


class FixedOrder(_WholeMessages):
    """Agents speak in their configured order, each message disclosed whole.

    Plans are still made every turn (for the intermediate answers) but do not
    influence who speaks.
    """

    name = "fixed"
    condition = Condition.FIXED

    def select(
        self, plans: Mapping[str, ActionPlan], context: SelectionContext, rng: random.Random
    ) -> Selection | None:
        if context.floor_holder is not None:
            return None
        if context.last_speaker is None:
            speaker = context.agents[0]
        else:
            speaker = context.agents[(context.agents.index(context.last_speaker) + 1) % len(context.agents)]
        return Selection(speaker, "fixed_order", None, candidates_of(plans))


class DynamicOrder(_WholeMessages):
    """Highest urgency takes the floor; whole messages; nobody is cut off."""

    name = "dynamic"
    condition = Condition.DYNAMIC

    def select(
        self, plans: Mapping[str, ActionPlan], context: SelectionContext, rng: random.Random
    ) -> Selection | None:
        if context.floor_holder is not None:
            return None
        return select_by_urgency(plans, rng)


class Interruptible(TurnProtocol):
    """The paper's framework: urgency, sentence-by-sentence disclosure, interruption."""

    name = "interruptible"
    condition = Condition.INTERRUPTIBLE

    def units(self, text: str, segmenter: Segmenter) -> tuple[str, ...]:
        return segmenter.split(text)

    def select(
        self, plans: Mapping[str, ActionPlan], context: SelectionContext, rng: random.Random
    ) -> Selection | None:
        return select_by_urgency(plans, rng)


PROTOCOLS: dict[Condition, type[TurnProtocol]] = {
    Condition.FIXED: FixedOrder,
    Condition.DYNAMIC: DynamicOrder,
    Condition.INTERRUPTIBLE: Interruptible,
}


def protocol_for(condition: Condition) -> TurnProtocol:
    """A fresh protocol object for one of the paper's conditions."""
    return PROTOCOLS[condition]()
