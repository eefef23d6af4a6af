"""Analyze-Compose-Execute (Gu et al.): two debaters, an observer, and a library of discussion acts.

What it does: ``AceProtocol`` is the protocol ``ace``: two roles (``debater``:
two debaters answer, compose acts and carry them out; ``observer``: compares
their replies, decides when to stop, and picks the answer when they still
disagree at the end; it never speaks in the debate), the variants ``ace``
(the full method), the ablations ``no_analyze``, ``no_compose`` and
``no_execute``, and ``parallel`` (Du et al.'s multi-agent debate, the
baseline: two or more debaters and no observer), with the parameters of
``params``. ``run`` reads the act library (``library``) and hands a
``Circle`` (the run state, ``state``) to the variant's loop in ``loop``. A
person may take any seat: as a debater they answer, choose acts and carry
them out through forms; as the observer they fill in the analysis
(agreement, similarity, matching and differing items, stop) and the final
pick. None of the variants uses the public-token budget.

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
from debate_core.kernel.endings import FinalDecision, consensus, majority
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, RoleSpec
from protocols.ace.forms import ace_forms
from protocols.ace.library import load_library
from protocols.ace.loop import ace, parallel
from protocols.ace.params import AceParams
from protocols.ace.state import Circle

if TYPE_CHECKING:
    from debate_core.kernel.table import Table

DEBATER = RoleSpec("debater", "answers with itemised explanations, composes discussion acts, carries them out", 2, 2)
OBSERVER = RoleSpec("observer", "compares the debaters' replies, decides when to stop, never argues", 1, 1)
CROWD = RoleSpec("debater", "answers, reads the others' answers, revises", 2, None)


class AceProtocol(Protocol):
    """Debaters compose discussion acts from a library, guided by an observer's analysis."""

    name = "ace"
    title = "Analyze-Compose-Execute: debaters, an observer and discussion acts (Gu et al.)"
    source = "Analyze-Compose-Execute: A Dynamic Dialogue Framework for Multi-Agent Debate"
    variants = ("ace", "no_analyze", "no_compose", "no_execute", "parallel")
    Params = AceParams
    roles: ClassVar[tuple[RoleSpec, ...]] = (DEBATER, OBSERVER)
    min_agents = 2
    # The paper decodes JSON freely; a tiny model breaks it, so the app's embedded-model choice and
    # --small-model send the schema (the default stays the paper's).
    small_model_params: ClassVar[Mapping[str, Any]] = {"constrained": True}
    study_temperature = 0.0  # Implementation Details (sections unnumbered): "set the temperature of LLMs to 0.0"

    def __init__(self, variant: str, params: ProtocolParams) -> None:
        super().__init__(variant, params)
        self.library = load_library(self.settings.acts)  # a broken library fails here, before any debate starts

    @property
    def settings(self) -> AceParams:
        assert isinstance(self.params, AceParams)
        return self.params

    def role_specs(self) -> tuple[RoleSpec, ...]:
        return (CROWD,) if self.variant == "parallel" else (DEBATER, OBSERVER)

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return ace_forms(self.settings, self.variant).by_kind()

    def unit_name(self, table: Table) -> str:
        return "line"

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.ace.demo import AceDemo

        return AceDemo(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.ace.consistency import stream_rules

        return stream_rules(variant)

    def run(self, table: Table) -> Iterator[Event]:
        circle = Circle(table, self.settings, self.variant, ace_forms(self.settings, self.variant), self.library)
        yield from parallel(circle) if self.variant == "parallel" else ace(circle)

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        answers = tuple(a for a in table.answer_list() if table.role_of(a.agent) == "debater")
        return consensus(answers) or majority(answers, table.rng)
