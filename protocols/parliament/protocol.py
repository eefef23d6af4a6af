"""Prover and critic (Hu, Yu and Zhou): British Parliament, American Congress, Socratic dialogue, and CoT.

What it does: ``ParliamentProtocol`` is the protocol ``parliament`` with four
variants, two roles (``prover``: Government, Affirmative or Student, whose
final line is the debate's answer; ``critic``: Opposition, Negative or
Socrates) and the parameters of ``params`` (the paper's defaults, the
authors' code one value away). ``run``
builds the debate's ``Hall`` (the run state, ``state``) and hands it to the
variant's loop in ``loop``. A person may take either role: as the critic
they raise a point of information (or a Socratic question) from the page at
any moment, taking effect at the next chunk; as the prover they write the
speech and answer the points. The ``cot`` variant is the single-agent control: one prover, no
critic.

Answers are option labels for multiple-choice questions and scored exactly;
free-form answers are compared case-insensitively, never by containment.
None of the variants uses the public-token budget: they end when their
phases or rounds are done.

What it does not do: word prompts (``prompts/``), parse replies (``forms``)
or make kernel moves itself (``loop`` and ``state`` call the ``Table``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from debate_core.backends.scripted import Responder
from debate_core.config import DebateConfig
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.consistency import StreamRules
from debate_core.kernel.endings import FinalDecision, single
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, Requirement, RoleSpec
from protocols.parliament import loop
from protocols.parliament.catalogue import parliament_forms
from protocols.parliament.params import ParliamentParams
from protocols.parliament.state import Hall

if TYPE_CHECKING:
    from debate_core.kernel.table import Table

PROVER = RoleSpec("prover", "argues for an answer; its final line is the debate's answer", 1, 1)
CRITIC = RoleSpec(
    "critic", "examines the prover's case: points of information, critiques, questions", 1, 1, controls="point"
)


class ParliamentProtocol(Protocol):
    """A prover defends an answer while a critic examines it; the prover's final line is the answer."""

    name = "parliament"
    title = "Prover and critic: Parliament, Congress, Socratic (Hu, Yu, Zhou)"
    source = "Probabilistic Interventions for Stabilizing Multi-Agent Debate"
    variants = ("british", "congress", "socratic", "cot")
    Params = ParliamentParams
    roles: ClassVar[tuple[RoleSpec, ...]] = (PROVER, CRITIC)
    min_agents = 1
    study_temperature = None  # GPT-4o-mini at the API's default (the paper names no temperature)
    # A tiny model writes no usable answer line (every critic check invalid): ask for JSON under a schema instead.
    small_model_params: ClassVar[Mapping[str, Any]] = {"reply_format": "json"}

    @property
    def settings(self) -> ParliamentParams:
        assert isinstance(self.params, ParliamentParams)
        return self.params

    def role_specs(self) -> tuple[RoleSpec, ...]:
        return (PROVER,) if self.variant == "cot" else (PROVER, CRITIC)

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return parliament_forms(self.settings).by_kind()

    def requirements(self) -> tuple[Requirement, ...]:
        """None: every variant runs on any backend. A prover whose backend continues a partial reply streams its
        speech in steps and goes on from what it said as its own reply (prefill); one whose backend cannot (the
        plain OpenAI API) answers whole and goes on with what it said in its prompt (the kernel's streaming moves
        choose, ``UtteranceRevised.continued`` records which)."""
        return ()

    def unit_name(self, table: Table) -> str:
        streamed = self.variant == "british" or (
            self.variant == "socratic" and self.settings.socratic_mode == "streaming"
        )
        return loop.chunker_for_params(self.settings).name if streamed else table.sentences.name

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.parliament.demo import ParliamentDemo

        return ParliamentDemo(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.parliament.consistency import stream_rules

        assert isinstance(params, ParliamentParams)
        return stream_rules(variant, params)

    def run(self, table: Table) -> Iterator[Event]:
        hall = Hall(table, self.settings, self.variant, parliament_forms(self.settings))
        drive = {"british": loop.british, "congress": loop.congress, "socratic": loop.socratic, "cot": loop.cot}
        yield from drive[self.variant](hall)

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        (prover,) = table.with_role("prover")
        return single(prover, table.answers.get(prover), table.answer_list())
