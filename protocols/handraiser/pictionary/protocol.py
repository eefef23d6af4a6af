"""Text Pictionary (HandRaiser's first task): a describer describes a secret, a guesser listens and may cut in.

What it does: ``PictionaryProtocol`` is the protocol ``pictionary``: two
roles (``describer`` knows the secret entity and describes it without
saying it; ``guesser`` listens chunk by chunk, in chunks of
``chunk_tokens`` (8) tokens, may cut the describer off after any chunk, and
then guesses or asks a question), with HandRaiser's listener policies as
its variants (``prompted``, ``generic``, ``concise``, ``random``,
``threshold``, ``learned``, ``human``) applied to the guesser. The secret is
the question's answer (``entities.secret_of``: a free-form answer, or a
multiple-choice question's correct option), its aliases the pool's and the
``aliases`` parameter's. ``run`` hands a ``Game`` (the run state, ``state``)
to ``loop.game``. A person may take either seat: as the guesser they press
Interrupt at any moment (it lands at the next chunk) and type a guess or a
question each round; as the describer they write descriptions, disclosed
chunk by chunk, which end the game if they say the secret.

The ``learned`` variant seats the fine-tuned listener in the guesser's seat
(``seat_models()``); the ``human`` variant needs a person there. The
paper's cost is folded from the events by HandRaiser's ``cost``, as for the
debate.

What it does not do: word prompts (``prompts/``), parse replies
(``forms``), check guesses and reveals (``matching``) or make kernel moves
itself (``loop`` and ``state`` call the ``Table``).
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
from debate_core.kernel.endings import FinalDecision
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, Requirement, RoleSpec
from protocols.handraiser.pictionary.entities import secret_of
from protocols.handraiser.pictionary.forms import pictionary_forms
from protocols.handraiser.pictionary.loop import game
from protocols.handraiser.pictionary.params import PictionaryParams
from protocols.handraiser.pictionary.state import Game
from protocols.handraiser.state import NEVER

if TYPE_CHECKING:
    from debate_core.kernel.table import Table

DESCRIBER = RoleSpec("describer", "describes the secret entity without saying it; may be cut off after any chunk", 1, 1)
GUESSER = RoleSpec("guesser", "listens chunk by chunk, may cut the describer off, guesses or asks", 1, 1,
                   controls="interrupt")  # fmt: skip


class PictionaryProtocol(Protocol):
    """A describer describes a secret entity; the guesser may interrupt after each token chunk, and guesses."""

    name = "pictionary"
    title = "Text Pictionary: a describer and a listening guesser (HandRaiser's first task)"
    source = "Learning to Interrupt in Language-based Multi-agent Communication"
    variants = ("prompted", "generic", "concise", "random", "threshold", "learned", "human")
    Params = PictionaryParams
    roles: ClassVar[tuple[RoleSpec, ...]] = (DESCRIBER, GUESSER)
    min_agents = 2
    study_temperature = 0.7  # App. C.5: "The temperature is set to the default value of 0.7 during inference"

    @property
    def settings(self) -> PictionaryParams:
        assert isinstance(self.params, PictionaryParams)
        return self.params

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return pictionary_forms(self.settings).by_kind()

    def requirements(self) -> tuple[Requirement, ...]:
        needs = [Requirement(Capability.TOKENIZER, "descriptions are disclosed in token chunks", ("describer",))]
        if self.variant == "threshold":
            why = "the threshold policy reads P(Yes) at the first generated position"
            needs.append(Requirement(Capability.CHOICE_PROBS, why, ("guesser",)))
        return tuple(needs)

    def controls_for(self, role: str | None) -> str:
        if role == "guesser" and self.variant in NEVER:
            return "none"  # nobody interrupts in these baselines: a seated guesser only guesses
        return super().controls_for(role)

    def seat_models(self) -> Mapping[str, str]:
        if self.variant == "learned" and self.settings.listener:
            return {"guesser": self.settings.listener}
        return {}

    def assign_roles(self, config: DebateConfig) -> dict[str, str]:
        roles = super().assign_roles(config)
        (guesser,) = [name for name, role in roles.items() if role == "guesser"]
        seated = config.agent(guesser).seat is SeatKind.HUMAN
        if self.variant == "human" and not seated:
            raise ConfigError("the human policy needs a person in the guesser's seat")
        if self.variant == "learned" and not self.settings.listener and not seated:
            raise ConfigError(
                "the learned policy needs the fine-tuned listener: set the parameter listener=PATH "
                "(what python -m experiments train-listener saved)"
            )
        secret_of(config.question, self.settings.aliases)  # a question with no secret fails here, not mid-run
        return roles

    def unit_name(self, table: Table) -> str:
        return f"tokens:{self.settings.chunk_tokens}"

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.handraiser.pictionary.demo import PictionaryDemo

        return PictionaryDemo(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.handraiser.pictionary.consistency import stream_rules

        return stream_rules(variant)

    def run(self, table: Table) -> Iterator[Event]:
        params = self.settings
        secret = secret_of(table.config.question, params.aliases)
        yield from game(Game(table, params, self.variant, pictionary_forms(params), secret))

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        (guesser,) = table.with_role("guesser")
        return FinalDecision(table.answers.get(guesser), "single", table.answer_list(), decided_by=guesser)
