"""Per-role models in a comparison (``--model-for WHO=SPEC``): where each applies, checked before any model work.

What it does: ``system_seats(spec, system)`` gives a system's agents (named
for its roles, ``compare.agents_for``), each with its role, its role names, and
the models its variant seats itself (``Protocol.seat_models()``, role ->
model: HandRaiser's learned listener). ``applies_to(spec)`` gives each WHO of
``CompareSpec.model_for`` the systems that have that agent or role (a WHO
applies to every such system). ``check(spec)`` refuses, with one line each, a
WHO that no system of the study has and one that would put another model in
a seat a variant fills with its own (its debates would refuse to start).
``section(spec, model_id)`` is the report's "Models": the default model, then
each WHO's model and the systems it sat in, then each variant's own seated
models.

What it does not do: parse the syntax or build backends
(``debate_core.backends.model_for``), or record the study (``compare``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from debate_core.backends.model_for import conflicts, from_record
from debate_core.errors import ConfigError
from debate_core.protocols.registry import protocol_class
from experiments import spec_changes
from experiments.workers import ExperimentError

if TYPE_CHECKING:
    from experiments.compare import CompareSpec


@dataclass(frozen=True)
class Seats:
    """A system's seats: each agent's role (None: a protocol without roles), the role names, the seated models."""

    agents: dict[str, str | None]
    roles: frozenset[str]
    seated: dict[str, str]

    def has(self, who: str) -> bool:
        return who in self.agents or who in self.roles


def system_seats(spec: CompareSpec, system: str) -> Seats:
    """``system``'s agents and roles as its debates seat them, and the models its variant seats itself."""
    from experiments.compare import agents_for, system_parts

    protocol, variant, _ = system_parts(system)
    cls = protocol_class(protocol)
    params = (spec.system_params or {}).get(system)
    if params is None:
        params = spec_changes.resolved_params(spec)[system]
    instance = cls(variant or cls.default_variant(), cls.Params.model_validate(params))
    agents = {agent.name: agent.role for agent in agents_for(protocol, variant or None)}
    roles = frozenset({spec.name for spec in instance.role_specs()} | {r for r in agents.values() if r})
    return Seats(agents, roles, dict(instance.seat_models()))


def applies_to(spec: CompareSpec) -> dict[str, list[str]]:
    """Each WHO of ``spec.model_for``: the systems that have that agent or role."""
    seats = {system: system_seats(spec, system) for system in spec.systems} if spec.model_for else {}
    return {who: [system for system, seat in seats.items() if seat.has(who)] for who in spec.model_for}


def check(spec: CompareSpec) -> None:
    """Refuse a WHO that no system of the study has, or one that would unseat a variant's own model."""
    if not spec.model_for:
        return
    found = applies_to(spec)
    unknown = [who for who, systems in found.items() if not systems]
    if unknown:
        names: dict[str, None] = {}
        for system in spec.systems:
            seats = system_seats(spec, system)
            names.update(dict.fromkeys([*seats.agents, *sorted(seats.roles)]))
        raise ConfigError(
            f"--model-for {', '.join(unknown)}: no system of the study has such an agent or role "
            f"(they have: {', '.join(names)})"
        )
    models = from_record(spec.model_for)
    for system in spec.systems:
        seats = system_seats(spec, system)
        for problem in conflicts(seats.seated, models, seats.agents):
            raise ConfigError(f"{system}: {problem}")


def _seated(spec: CompareSpec, system: str) -> dict[str, str]:
    """The models ``system``'s variant seats, for the report: none where its parameters no longer resolve."""
    try:
        return system_seats(spec, system).seated
    except (ConfigError, ExperimentError, ValueError):
        return {}


def section(spec: CompareSpec, model_id: str) -> list[str]:
    """The report's "Models" (nothing when every seat ran on the default model)."""
    seated = {system: _seated(spec, system) for system in spec.systems}
    if not spec.model_for and not any(seated.values()):
        return []
    lines = [
        "",
        "## Models",
        "",
        f"The default model `{model_id}` sat in every seat not named here"
        + (" (`--model-for WHO=SPEC`: an agent's own model wins over its role's)." if spec.model_for else "."),
        "",
        "| agent or role | model | systems |",
        "|---|---|---|",
    ]
    for who, systems in applies_to(spec).items():
        lines.append(f"| {who} | `{spec.model_for[who]}` | {', '.join(systems)} |")
    for system, models in seated.items():
        for role, model in models.items():
            if role not in spec.model_for:
                lines.append(f"| {role} (the variant's own) | `{model}` | {system} |")
    return lines
