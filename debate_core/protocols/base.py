"""What a protocol is: a named rule set that owns its loop over the kernel.

What it does: ``Protocol`` is the base class of every debate protocol. A
protocol class declares its ``name``, ``variants`` (the first is the
default), a frozen ``Params`` model whose defaults are its paper's defaults,
the ``roles`` it needs (``RoleSpec``: how many agents, whether a person may
take the role), whether it ends on the public-token budget
(``uses_budget``), the temperature its studies sample at
(``study_temperature``: its paper's; ``variant_study_temperature`` where a
variant's paper ran at another), the parameters it recommends for a
small model that breaks its paper's formats (``small_model_params``: the
front ends apply them, visibly, when one is chosen) and the ``requirements`` its variant
and parameters put on the backends (``Requirement``: a capability, for which roles, and why) and the
``seat_models`` it puts in some roles' seats (a fine-tuned listener). One
instance runs one debate: ``run(table)`` is a generator that drives the
kernel's moves and yields their events, and ends by yielding
``table.finish(...)``. ``conclude(table, reason)`` gives the final decision
when the debate is stopped or fails before the protocol finishes it (by
default the majority of the agents' current answers). ``stream_rules(variant,
params, config)`` gives the rules a recorded stream of the protocol must obey
beyond the kernel's (checked when a transcript is imported; none by default).

What it does not do: know consumers (storage, UI), or re-implement a kernel
move: asking seats, chunking and disclosing, cutting off, resuming, deciding
and finishing are the table's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict

from debate_core.backends.base import Capability
from debate_core.backends.scripted import Responder
from debate_core.config import DebateConfig, Question
from debate_core.errors import ConfigError
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.consistency import StreamRules
from debate_core.kernel.endings import FinalDecision, majority
from debate_core.kernel.forms import Form

if TYPE_CHECKING:
    from debate_core.kernel.table import Table


class ProtocolParams(BaseModel):
    """Base of every protocol's parameters: frozen, no unknown fields, JSON-safe values."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True, slots=True)
class RoleSpec:
    """A role a protocol needs: how many agents hold it, and whether a person may.

    ``controls`` names the live controls a person in this role stands by
    between the requests that need their words (see ``Protocol.human_controls``).
    """

    name: str
    description: str
    minimum: int = 1
    maximum: int | None = 1
    human_ok: bool = True
    controls: str = "none"


@dataclass(frozen=True, slots=True)
class Requirement:
    """A capability the backend of some roles (all agents when ``roles`` is empty) must have.

    ``vocabulary``: the backend must also know its model's vocabulary size (``Backend.vocab_size``),
    e.g. for a threshold in units of ln|V|.
    """

    capability: Capability
    why: str
    roles: tuple[str, ...] = ()
    vocabulary: bool = False


class Protocol(ABC):
    """A debate protocol. Subclass it, then register the class (see ``registry``)."""

    name: ClassVar[str]
    title: ClassVar[str] = ""
    source: ClassVar[str] = ""
    variants: ClassVar[tuple[str, ...]]
    Params: ClassVar[type[ProtocolParams]] = ProtocolParams
    roles: ClassVar[tuple[RoleSpec, ...]] = ()
    min_agents: ClassVar[int] = 2
    uses_budget: ClassVar[bool] = False
    study_temperature: ClassVar[float | None] = 0.0
    """The sampling temperature a study (``python -m experiments compare``) runs this protocol at unless it is
    told one: its paper's. None is the backend's default (a server is sent none and uses its own; the
    in-process backend ``BACKEND_DEFAULT_TEMPERATURE``, the OpenAI API's 1.0), for a paper that ran at its
    API's default. A protocol that declares none is run greedily (0.0)."""
    small_model_params: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    """The parameters this protocol recommends for a small model (the embedded SmolLM2-135M) that breaks what its
    paper asks for, ``{parameter: JSON value}`` (e.g. a JSON reply format under a grammar instead of the paper's
    plain lines); its defaults stay the paper's. Front ends apply them, visibly and undoably, only when a small
    model is chosen: the web app's embedded-model choices write them into the parameters field, the terminal's
    ``--small-model`` adds them (``--param`` wins). Checked against ``Params`` when the protocol is registered;
    ``python -m debate_core protocols`` lists them."""
    human_controls: ClassVar[str] = "none"
    """The live controls of a person seated in a protocol without roles: ``none`` (only requests for
    words), ``floor`` (a standing plan: interrupt, raise a hand, listen, an answer) or ``point``
    (a standing yes/no with a sentence: a point of information, a question)."""

    def __init__(self, variant: str, params: ProtocolParams) -> None:
        if variant not in self.variants:
            raise ConfigError(f"protocol {self.name} has no variant {variant!r} (variants: {', '.join(self.variants)})")
        self.variant = variant
        self.params = params

    @classmethod
    def default_variant(cls) -> str:
        return cls.variants[0]

    @classmethod
    def variant_study_temperature(cls, variant: str) -> float | None:
        """The temperature a study samples ``variant`` at unless told one: ``study_temperature`` (the same for
        every variant) unless a protocol whose variants come from different papers overrides it."""
        return cls.study_temperature

    @property
    def label(self) -> str:
        """How ``DebateStarted.protocol`` names what ran."""
        return f"{self.name}/{self.variant}"

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        """The request kinds this protocol asks seats, by kind (for listings and docs)."""
        return {}

    def requirements(self) -> tuple[Requirement, ...]:
        """What this variant, with these parameters, needs from the backends."""
        return ()

    def seat_models(self) -> Mapping[str, str]:
        """Models this variant puts in roles' seats (role -> model id or path), e.g. a fine-tuned listener.

        Whoever builds the backends gives those roles their own backend for that model
        (``backends.model_for.SeatBackends``, through ``backends.factory.seated``); a debate whose
        backends do not serve them refuses to start.
        """
        return {}

    def unit_name(self, table: Table) -> str:
        """What a disclosed unit is (``DebateStarted.segmenter``)."""
        return "whole-message"

    def role_specs(self) -> tuple[RoleSpec, ...]:
        """The roles this variant needs (by default ``roles``; a variant may need fewer)."""
        return self.roles

    def controls_for(self, role: str | None) -> str:
        """The live controls a person in ``role`` uses (``human_controls`` when the role declares none)."""
        spec = next((s for s in self.role_specs() if s.name == role), None)
        return spec.controls if spec is not None and spec.controls != "none" else self.human_controls

    def max_agents(self) -> int | None:
        """How many agents this variant takes at most (None: no limit)."""
        specs = self.role_specs()
        if not specs or any(spec.maximum is None for spec in specs):
            return None
        return sum(spec.maximum or 0 for spec in specs)

    def assign_roles(self, config: DebateConfig) -> dict[str, str]:
        """Each agent's role: as configured, else the roles in declared order, filled in seat order.

        Raises ``ConfigError`` when there are fewer agents than ``min_agents``
        or the roles cannot be filled as ``role_specs()`` demands. A protocol
        without roles gives every agent none.
        """
        if len(config.agents) < self.min_agents:
            raise ConfigError(f"{self.name} needs at least {self.min_agents} agents, got {len(config.agents)}")
        specs = self.role_specs()
        if not specs:
            return {}
        known = {spec.name: spec for spec in specs}
        assigned: dict[str, str] = {}
        for agent in config.agents:
            if agent.role is not None:
                if agent.role not in known:
                    raise ConfigError(f"{agent.name}'s role {agent.role!r} is not one of {', '.join(known)}")
                assigned[agent.name] = agent.role
        counts = {name: sum(1 for r in assigned.values() if r == name) for name in known}
        for agent in config.agents:
            if agent.name in assigned:
                continue
            spec = next((s for s in specs if counts[s.name] < s.minimum), None)
            spec = spec or next((s for s in specs if s.maximum is None or counts[s.name] < s.maximum), None)
            if spec is None:
                raise ConfigError(f"{self.name} has no role left for {agent.name}")
            assigned[agent.name] = spec.name
            counts[spec.name] += 1
        for spec in specs:
            if counts[spec.name] < spec.minimum:
                raise ConfigError(f"{self.name} needs at least {spec.minimum} {spec.name}(s), got {counts[spec.name]}")
            if spec.maximum is not None and counts[spec.name] > spec.maximum:
                raise ConfigError(f"{self.name} takes at most {spec.maximum} {spec.name}(s), got {counts[spec.name]}")
        for agent in config.agents:
            if agent.seat.value == "human" and not known[assigned[agent.name]].human_ok:
                raise ConfigError(f"a person cannot take the {assigned[agent.name]} role of {self.name}")
        return assigned

    @abstractmethod
    def run(self, table: Table) -> Iterator[Event]:
        """Drive the debate: yield every event, ending with ``table.finish(...)``."""

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        """The final decision when the debate ends early (stopped, or a backend failed)."""
        return majority(table.answer_list(), table.rng)

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder | None:
        """A scripted stand-in for every seat, for demos without a model (None: no demo)."""
        return None

    @classmethod
    def demo_question(cls) -> Question | None:
        """The question a demo of this protocol starts from when none is given (None: the shared demo
        question, ``debate_core.demo.DEMO_QUESTION``). A task whose questions are not multiple choice
        (a meeting to schedule) gives one of its own, so a demo's answer can be scored."""
        return None

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        """This protocol's own rules over a recorded stream of ``variant`` (none by default).

        The kernel's rules (``kernel.consistency``) always apply; these add what only this protocol
        forbids (who may speak, what ends it). A class method: checking a transcript builds no
        protocol, so nothing its parameters name (a classifier, a library of acts) is opened.
        """
        return StreamRules()
