"""Learning to interrupt (HandRaiser): Pro and Con argue, a moderator listens chunk by chunk.

What it does: ``HandRaiserProtocol`` is the protocol ``handraiser``: three
roles (``pro`` and ``con`` argue assigned answers; ``moderator`` listens,
may cut a speaker off after any chunk of ``chunk_tokens`` tokens, and votes),
one variant per listener policy (``prompted``, ``generic``, ``concise``,
``random``, ``threshold``, ``learned``, ``human``; see ``loop``) and the
parameters of ``params`` (the paper's defaults). ``run`` assigns the sides
(``sides``) and hands a ``Room`` (the run state, ``state``) to
``loop.debate``. A person may take any seat: as the moderator they press
Interrupt at any moment (it takes effect at the next chunk; under any
variant that interrupts, the person's button is the policy; under
``generic`` and ``concise`` they only vote) and vote at the end of each
round, asking both sides a clarifying question when they wait (the
``questions`` parameter, on by default as in the paper); as Pro or Con
they write statements, which are disclosed chunk by chunk and can be cut
off.

The ``learned`` variant is the prompted policy on a fine-tuned listener:
``seat_models()`` names it for the moderator's seat (``params.listener``),
so the command line and the studies give the moderator its own backend,
and the debate refuses to start when the moderator's backend is another
model. The ``human`` variant needs a person in the moderator's seat.

The paper's cost (every generated token until the end, a cut speaker's only
up to the cut, one token per decision) is folded from the events by
``cost``; it is not a field of the events.

What it does not do: word prompts (``prompts/``), parse replies (``forms``)
or make kernel moves itself (``loop`` and ``state`` call the ``Table``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from debate_core.backends.base import Capability
from debate_core.backends.scripted import Responder
from debate_core.config import DebateConfig, SeatKind
from debate_core.errors import ConfigError
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.consistency import StreamRules
from debate_core.kernel.endings import FinalDecision, verdict
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, Requirement, RoleSpec
from protocols.handraiser.forms import handraiser_forms
from protocols.handraiser.loop import debate
from protocols.handraiser.params import HandRaiserParams
from protocols.handraiser.sides import assign_sides
from protocols.handraiser.state import NEVER, Room

if TYPE_CHECKING:
    from debate_core.kernel.table import Table

PRO = RoleSpec("pro", "argues its assigned answer; may be cut off after any chunk", 1, 1)
CON = RoleSpec("con", "argues the other answer; cutting it off makes the moderator vote", 1, 1)
MODERATOR = RoleSpec(
    "moderator", "listens chunk by chunk, may cut a speaker off; votes, or waits and asks", 1, 1, controls="interrupt"
)


class HandRaiserProtocol(Protocol):
    """Pro and Con argue assigned answers; the moderator may interrupt after each token chunk, and votes."""

    name = "handraiser"
    title = "Learning to interrupt: Pro, Con and a listening moderator (HandRaiser)"
    source = "Learning to Interrupt in Language-based Multi-agent Communication"
    variants = ("prompted", "generic", "concise", "random", "threshold", "learned", "human")
    Params = HandRaiserParams
    roles: ClassVar[tuple[RoleSpec, ...]] = (PRO, CON, MODERATOR)
    min_agents = 3
    study_temperature = 0.7  # App. C.5: "The temperature is set to the default value of 0.7 during inference"

    @property
    def settings(self) -> HandRaiserParams:
        assert isinstance(self.params, HandRaiserParams)
        return self.params

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return handraiser_forms(self.settings).by_kind()

    def requirements(self) -> tuple[Requirement, ...]:
        needs = [Requirement(Capability.TOKENIZER, "statements are disclosed in token chunks", ("pro", "con"))]
        if self.variant == "threshold":
            why = "the threshold policy reads P(Yes) at the first generated position"
            needs.append(Requirement(Capability.CHOICE_PROBS, why, ("moderator",)))
        return tuple(needs)

    def controls_for(self, role: str | None) -> str:
        if role == "moderator" and self.variant in NEVER:
            return "none"  # nobody interrupts in these baselines: a seated moderator only votes
        return super().controls_for(role)

    def seat_models(self) -> Mapping[str, str]:
        if self.variant == "learned" and self.settings.listener:
            return {"moderator": self.settings.listener}
        return {}

    def assign_roles(self, config: DebateConfig) -> dict[str, str]:
        roles = super().assign_roles(config)
        (moderator,) = [name for name, role in roles.items() if role == "moderator"]
        seated = config.agent(moderator).seat is SeatKind.HUMAN
        if self.variant == "human" and not seated:
            raise ConfigError("the human policy needs a person in the moderator's seat")
        if self.variant == "learned" and not self.settings.listener and not seated:
            raise ConfigError(
                "the learned policy needs the fine-tuned listener: set the parameter listener=PATH "
                "(what python -m experiments train-listener saved)"
            )
        assign_sides(config, self.settings)  # a question the sides cannot be assigned for fails here, not mid-run
        return roles

    def unit_name(self, table: Table) -> str:
        return f"tokens:{self.settings.chunk_tokens}"

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.handraiser.demo import HandRaiserDemo

        return HandRaiserDemo(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.handraiser.consistency import stream_rules

        return stream_rules(variant)

    def run(self, table: Table) -> Iterator[Event]:
        params = self.settings
        room = Room(table, params, self.variant, handraiser_forms(params), assign_sides(table.config, params))
        yield from debate(room)

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        (moderator,) = table.with_role("moderator")
        return verdict(moderator, table.answers.get(moderator), table.answer_list())
