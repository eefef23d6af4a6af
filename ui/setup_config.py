"""A set-up form's values made into a validated ``DebateConfig``, and the role each seat will get.

What it does: ``config_from_form(fields)`` reads the values ``SetupForm`` names
(question, options, agents, personas, the seat a person takes, roles, the
protocol's JSON parameters, budget, sampling) and returns a config the chosen
protocol has resolved and assigned roles for, or raises ``FormError`` with one
sentence for the person (which field, what is wrong, what it expects);
``seat_roles`` says which role each agent will get, for labelling the seat
choices while the form is being filled in.

What it does not do: lay out the form or react to its changes
(``setup_panel``), or start a debate (``live_panel``).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from debate_core.config import DEFAULT_PROTOCOL, AgentSpec, DebateConfig, Question, SeatKind
from debate_core.errors import ConfigError
from debate_core.protocols.base import Protocol
from debate_core.protocols.registry import protocol_class, resolve, with_settings
from ui import web_plugins
from ui.form_words import FormError, agent_names, friendly
from ui.setup_fields import question_context

MAX_AGENTS = 6


def names_of(text: str) -> list[str]:
    """The agents' names as the Agents field lists them, comma-separated (blanks dropped)."""
    return [name.strip() for name in (text or "").split(",") if name.strip()]


def seat_roles(protocol: str, variant: str, agents: str, roles: str = "") -> dict[str, str]:
    """Each agent's role as the protocol will assign it (Name: role lines first, then seat order).

    Empty when the protocol has no roles, or the form cannot be read yet (Start says why).
    """
    names = names_of(agents)
    try:
        cls = protocol_class(protocol or DEFAULT_PROTOCOL)
        chosen = cls(variant if variant in cls.variants else cls.default_variant(), cls.Params())
        given = _roles(roles or "", names)
        specs = tuple(AgentSpec(name=n, role=given.get(n)) for n in names)
        # the base rule only: a protocol's own checks (a person needed in a seat, ...) are Start's to report
        return Protocol.assign_roles(chosen, DebateConfig(question=web_plugins.demo_config().question, agents=specs))
    except (ConfigError, FormError, ValidationError):
        return {}


def config_from_form(fields: dict[str, Any]) -> DebateConfig:
    """A validated config from the form's values, keyed by ``SetupForm`` field names."""
    agents, personas, human = fields["agents"], fields["personas"], fields["human"]
    options = fields["options"]
    names = agent_names(agents, MAX_AGENTS)  # the Agents field first: a persona line can only name a valid agent
    persona_of: dict[str, str] = {}
    for line in (personas or "").splitlines():
        if not line.strip():
            continue
        name, sep, text = line.partition(":")
        if not sep or name.strip() not in names:
            raise FormError(
                f"Personas: the line {line.strip()[:40]!r} does not start with an agent's name and a colon "
                f"(the Agents field names {', '.join(names)})"
            )
        persona_of[name.strip()] = text.strip()
    seat = {name: SeatKind.HUMAN if name == human else SeatKind.MODEL for name in names}
    role_of = _roles(fields.get("roles") or "", names)
    try:
        params = json.loads(fields.get("params") or "{}")
    except json.JSONDecodeError as error:
        raise FormError(f"the protocol parameters are not JSON: {error.msg}") from None
    if not isinstance(params, dict):
        raise FormError("the protocol parameters are a JSON object, such as {}")
    protocol = fields.get("protocol") or DEFAULT_PROTOCOL
    try:
        config = DebateConfig(
            question=Question(
                text=fields["question"],
                options=tuple(line for line in (options or "").splitlines() if line.strip()),
                answer=(fields["answer"] or "").strip() or None,
                context=question_context(protocol, fields["question"]),  # the demo's case, never on the page
            ),
            agents=tuple(
                AgentSpec(name=n, persona=persona_of.get(n, ""), seat=seat[n], role=role_of.get(n)) for n in names
            ),
            protocol=protocol,
            variant=fields["condition"],
            params=with_settings(  # the form's fields for the protocols that take them; the JSON wins
                protocol,
                params,
                utterance_max_new_tokens=int(fields["utterance_tokens"]),
                prompt_layout=fields["layout"],
            ),
            token_budget=int(fields["budget"]),
            temperature=float(fields["temperature"]),
            seed=int(fields["seed"] or 0),
            max_new_tokens=int(fields.get("plan_tokens") or 1024),
        )
        resolved, chosen = resolve(config)  # the protocol's own checks: variant, parameters
        chosen.assign_roles(resolved)  # and its roles: how many agents, who may be a person
    except ValidationError as error:
        raise FormError(friendly(error.errors()[0], names)) from None
    except ConfigError as error:
        raise FormError(str(error)) from None
    return config


def _roles(text: str, names: list[str]) -> dict[str, str]:
    roles: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        name, sep, role = line.partition(":")
        if not sep or name.strip() not in names or not role.strip():
            raise FormError(f"role line {line.strip()[:40]!r} must read Name: role, with one of the agents' names")
        roles[name.strip()] = role.strip()
    return roles
