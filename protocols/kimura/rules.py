"""Kimura's three conditions as turn rules: who speaks, and how much is shown at a time.

What it does: a ``TurnRule`` answers three questions for Kimura's loop:

* ``allowed_actions(floor_held)``: what a planning agent may choose now;
* ``chunker(sentences)``: how an utterance is cut into disclosure units
  (sentences, or one whole message);
* ``select(plans, context, rng)``: who takes the floor next turn, or nobody.

The three conditions of the paper (Section IV-C):

============== =================== ================ ============
condition      speaker selection   disclosure unit  interruption
============== =================== ================ ============
fixed          fixed agent order   whole message    never
dynamic        highest urgency     whole message    never
interruptible  highest urgency     one sentence     yes
============== =================== ================ ============

Ties for the highest urgency are broken by ``rng`` (seeded by the debate's
seed), so the same seed gives the same debate.

What it does not do: generate text, count tokens, or keep state between turns
beyond what ``SelectionContext`` hands it.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

from debate_core.config import Condition
from debate_core.events.records import Action, ActionPlan, Candidate
from debate_core.kernel.chunkers import Chunker, WholeMessage
from protocols.kimura.plans import allowed_actions


@dataclass(frozen=True, slots=True)
class SelectionContext:
    """The floor as the rule needs to see it when choosing a speaker."""

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


class TurnRule(ABC):
    """Base class of the conditions; see the module docstring."""

    name: str = "abstract"
    condition: Condition
    whole_messages: bool = False
    _whole = WholeMessage()

    def allowed_actions(self, floor_held: bool) -> tuple[Action, ...]:
        return allowed_actions(floor_held)

    def chunker(self, sentences: Chunker) -> Chunker:
        return self._whole if self.whole_messages else sentences

    @abstractmethod
    def select(
        self, plans: Mapping[str, ActionPlan], context: SelectionContext, rng: random.Random
    ) -> Selection | None: ...


class FixedOrder(TurnRule):
    """Agents speak in their configured order, each message disclosed whole.

    Plans are still made every turn (for the intermediate answers) but do not
    influence who speaks.
    """

    name = "fixed"
    condition = Condition.FIXED
    whole_messages = True

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


class DynamicOrder(TurnRule):
    """Highest urgency takes the floor; whole messages; nobody is cut off."""

    name = "dynamic"
    condition = Condition.DYNAMIC
    whole_messages = True

    def select(
        self, plans: Mapping[str, ActionPlan], context: SelectionContext, rng: random.Random
    ) -> Selection | None:
        if context.floor_holder is not None:
            return None
        return select_by_urgency(plans, rng)


class Interruptible(TurnRule):
    """The paper's framework: urgency, sentence-by-sentence disclosure, interruption."""

    name = "interruptible"
    condition = Condition.INTERRUPTIBLE

    def select(
        self, plans: Mapping[str, ActionPlan], context: SelectionContext, rng: random.Random
    ) -> Selection | None:
        return select_by_urgency(plans, rng)


RULES: dict[Condition, type[TurnRule]] = {
    Condition.FIXED: FixedOrder,
    Condition.DYNAMIC: DynamicOrder,
    Condition.INTERRUPTIBLE: Interruptible,
}


def rule_for(condition: Condition | str) -> TurnRule:
    """A fresh turn rule for one of the paper's conditions."""
    return RULES[Condition(condition)]()
