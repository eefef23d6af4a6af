"""Meeting Scheduling (HandRaiser's 3-agent task): a traveler and two planners; the traveler may cut in.

What it does: ``SchedulingProtocol`` is the protocol ``scheduling``: three
roles (``traveler``: knows the travel times and its day, learns the rest by
asking, and writes the schedule; ``planner_a`` and ``planner_b``: each knows
only its person's private information), with HandRaiser's listener policies
as its variants (``prompted``, ``generic``, ``concise``, ``random``,
``threshold``, ``learned``, ``human``) applied to the traveler, who hears a
planner's message in chunks of ``chunk_tokens`` (16) tokens and may cut it
off; with ``symmetric`` every seat may cut in on every other (§4.5). The
case comes from the question (``cases``); ``run`` hands a ``Chat`` (the run
state, ``state``) to ``loop.game``. The submitted schedule is checked by
``scheduling.verify``; the game succeeds only when all three hard
constraints hold. A person may take any seat: as the traveler they press
Interrupt (it lands at the next chunk), pick whom to write to, and type a
message or the schedule.

The ``learned`` variant seats the fine-tuned listener in the traveler's seat
(every seat under ``symmetric``; ``seat_models()``); the ``human`` variant
needs a person in a listening seat. The paper's cost is folded from the
events by HandRaiser's ``cost``, as for the debate.

What it does not do: word prompts (``prompts/``), parse replies (``forms``),
check schedules (``scheduling``) or make kernel moves itself (``loop`` and
``state`` call the ``Table``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from debate_core.backends.base import Capability
from debate_core.backends.scripted import Responder
from debate_core.config import DebateConfig, Question, SeatKind
from debate_core.errors import ConfigError
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.consistency import StreamRules
from debate_core.kernel.endings import FinalDecision
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, Requirement, RoleSpec
from protocols.handraiser.meeting.cases import case_for, committed, scheduling_question
from protocols.handraiser.meeting.forms import meeting_forms
from protocols.handraiser.meeting.loop import game
from protocols.handraiser.meeting.params import SchedulingParams
from protocols.handraiser.meeting.state import Chat
from protocols.handraiser.meeting.views import SCHEDULE
from protocols.handraiser.state import NEVER

if TYPE_CHECKING:
    from debate_core.kernel.table import Table

TRAVELER = RoleSpec("traveler", "asks the planners, may cut a planner off after any chunk, writes the schedule", 1, 1,
                    controls="interrupt")  # fmt: skip
PLANNER_A = RoleSpec("planner_a", "knows the first person's location, free times, meeting length and wishes", 1, 1)
PLANNER_B = RoleSpec("planner_b", "knows the second person's location, free times, meeting length and wishes", 1, 1)


class SchedulingProtocol(Protocol):
    """A traveler schedules meetings with two people through their planners; it may interrupt them."""

    name = "scheduling"
    title = "Meeting Scheduling: a traveler and two planners (HandRaiser's 3-agent task)"
    source = "Learning to Interrupt in Language-based Multi-agent Communication"
    variants = ("prompted", "generic", "concise", "random", "threshold", "learned", "human")
    Params = SchedulingParams
    roles: ClassVar[tuple[RoleSpec, ...]] = (TRAVELER, PLANNER_A, PLANNER_B)
    min_agents = 3
    study_temperature = 0.7  # App. C.5: "The temperature is set to the default value of 0.7 during inference"

    @property
    def settings(self) -> SchedulingParams:
        assert isinstance(self.params, SchedulingParams)
        return self.params

    @classmethod
    def demo_question(cls) -> Question:
        """The question of a demo game: the first committed case."""
        return scheduling_question(next(iter(committed().values())))

    def listening_roles(self) -> tuple[str, ...]:
        if self.variant in NEVER:
            return ()
        return ("traveler", "planner_a", "planner_b") if self.settings.symmetric else ("traveler",)

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return meeting_forms(self.settings).by_kind()

    def requirements(self) -> tuple[Requirement, ...]:
        speakers = ("traveler", "planner_a", "planner_b") if self.settings.symmetric else ("planner_a", "planner_b")
        needs = [Requirement(Capability.TOKENIZER, "messages are disclosed in token chunks", speakers)]
        if self.variant == "threshold":
            why = "the threshold policy reads P(Yes) at the first generated position"
            needs.append(Requirement(Capability.CHOICE_PROBS, why, self.listening_roles()))
        return tuple(needs)

    def controls_for(self, role: str | None) -> str:
        return "interrupt" if role in self.listening_roles() else "none"

    def seat_models(self) -> Mapping[str, str]:
        if self.variant == "learned" and self.settings.listener:
            return {role: self.settings.listener for role in self.listening_roles()}
        return {}

    def assign_roles(self, config: DebateConfig) -> dict[str, str]:
        roles = super().assign_roles(config)
        if any(name.casefold() == SCHEDULE for name in roles):
            raise ConfigError(f"an agent may not be called {SCHEDULE!r}: it is the traveler's choice to submit")
        people = {name for name, role in roles.items()
                  if role in self.listening_roles() and config.agent(name).seat is SeatKind.HUMAN}  # fmt: skip
        if self.variant == "human" and not people:
            where = "a listening seat" if self.settings.symmetric else "the traveler's seat"
            raise ConfigError(f"the human policy needs a person in {where}")
        if self.variant == "learned" and not self.settings.listener and not people:
            raise ConfigError(
                "the learned policy needs the fine-tuned listener: set the parameter listener=PATH "
                "(what python -m experiments train-listener saved)"
            )
        case_for(config, self.settings)  # a case that does not fit fails here, not mid-run
        return roles

    def unit_name(self, table: Table) -> str:
        return f"tokens:{self.settings.chunk_tokens}"

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.handraiser.meeting.demo import SchedulingDemo

        return SchedulingDemo(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.handraiser.meeting.consistency import stream_rules

        assert isinstance(params, SchedulingParams)
        return stream_rules(variant, params.symmetric)

    def run(self, table: Table) -> Iterator[Event]:
        params = self.settings
        yield from game(Chat(table, params, self.variant, meeting_forms(params), case_for(table.config, params)))

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        (traveler,) = table.with_role("traveler")
        return FinalDecision(table.answers.get(traveler), "single", table.answer_list(), decided_by=traveler)
