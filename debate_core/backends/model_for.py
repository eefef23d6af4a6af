"""Per-seat models (``--model-for WHO=SPEC``): the syntax, its checks, and the backends it routes seats to.

What it does: ``parse_model_for(["judge=openai:gpt-4o", "Alex=org/model"])``
reads ``WHO=SPEC`` pairs into ``SeatModel``s. WHO is an agent's name or a
role's; SPEC is

* ``MODEL``: a model of the default backend's kind (a hub id or folder for
  ``transformers``, a ``.gguf`` for ``llamacpp``, a served model's name for
  ``openai``); with the scripted default, a ``transformers`` model;
* ``KIND:MODEL``: a model of another kind (``transformers``, ``llamacpp``,
  ``openai``, ``scripted`` or an installed plug-in's, ``factory.backend_kinds``);
  ``KIND`` alone is that kind's default model (the embedded SmolLM2, a
  server's one model);
* ``openai:MODEL@http://HOST:PORT/v1``: a model on a server of its own (else
  the default's ``--base-url``);
* ``scripted`` or ``scripted:NAME``: the protocol's scripted demo under the
  model id NAME (``scripted-demo``), no model: what makes routing testable.

Every mistake is a one-line ``ConfigError``: no ``=``, an empty WHO or
model, an unknown kind, a WHO named twice, a server address on a kind other
than ``openai``. ``SeatModel.resolved(default_kind)`` fills in the kind of a
bare MODEL; ``label`` is how a study records and reports it (``KIND:MODEL``,
without the server's address). ``seat_names(config)`` gives a debate's agent
and role names; ``check_who`` refuses a WHO that names none of them;
``conflicts`` finds a WHO that would take a seat a variant fills with its own
model (``Protocol.seat_models()``, e.g. HandRaiser's learned listener) with
another one. ``SeatBackends(spec, models, default=...)`` builds the backends:
``route(default, config)`` gives the debate's backend, a ``BackendRouter``
when a variant seats its own models or a WHO names one of its agents or roles
(an agent's own model wins over its role's; a WHO for a role wins over the
variant's seated model), else ``default`` unchanged. One backend per
distinct (kind, model, server) is made and kept for every debate it routes
(a study loads each model once; the default backend is reused where a WHO
names the default model); scripted ones are made per debate, their demo
script depending on the debate's configuration.

What it does not do: load a model (backends load lazily), decide roles (the
protocols do), or name any protocol.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from debate_core.backends.base import Backend
from debate_core.backends.factory import BackendSpec, backend_kinds, make_backend
from debate_core.backends.router import BackendRouter
from debate_core.backends.scripted import ScriptedBackend
from debate_core.config import DebateConfig
from debate_core.errors import ConfigError

SERVERS = ("http://", "https://")
SCRIPTED_ID = "scripted-demo"  # the model id of the scripted demo (``factory.make_backend``)


@dataclass(frozen=True)
class SeatModel:
    """One ``WHO=SPEC``: whose seat, which kind (None: the default's), which model (None: the kind's default)."""

    who: str
    kind: str | None = None
    model: str | None = None
    base_url: str | None = None

    def resolved(self, default_kind: str) -> SeatModel:
        """This model with its kind filled in: a bare MODEL is the default's kind (``transformers`` for scripted)."""
        kind = self.kind or ("transformers" if default_kind == "scripted" else default_kind)
        if self.base_url and kind != "openai":
            raise ConfigError(f"--model-for {self.who}: a server address (@URL) is for openai:MODEL, not {kind}")
        return replace(self, kind=kind)

    @property
    def label(self) -> str:
        """``KIND:MODEL`` (``KIND`` alone for its default model), as a study records and reports it."""
        if self.kind is None:
            return self.model or ""
        return f"{self.kind}:{self.model}" if self.model else self.kind

    @property
    def text(self) -> str:
        """The label with the server's address, as given."""
        return self.label + (f"@{self.base_url}" if self.base_url else "")


def parse_spec(who: str, spec: str, kinds: Sequence[str] | None = None) -> SeatModel:
    """One SPEC (see the module docstring) for ``who``; raises ``ConfigError``."""
    known = tuple(kinds) if kinds is not None else backend_kinds()
    text, base_url = spec.strip(), None
    head, at, tail = text.rpartition("@")
    if at and tail.strip().startswith(SERVERS):
        text, base_url = head.strip(), tail.strip()
    if not text:
        raise ConfigError(f"--model-for {who}={spec}: no model (write {who}=MODEL or {who}=KIND:MODEL)")
    prefix, colon, rest = text.partition(":")
    if colon:
        kind, model = prefix.strip(), rest.strip()
        if kind not in known:
            raise ConfigError(
                f"--model-for {who}={spec}: unknown backend kind {kind!r} (kinds: {', '.join(known)}; "
                "a model whose name has a colon: KIND:NAME, e.g. openai:llama3:8b)"
            )
        if not model:
            raise ConfigError(f"--model-for {who}={spec}: no model after {kind}: (write {kind} for its default)")
        found = SeatModel(who, kind, model, base_url)
    elif text in known:
        found = SeatModel(who, text, None, base_url)
    else:
        found = SeatModel(who, None, text, base_url)
    if base_url and found.kind not in (None, "openai"):
        raise ConfigError(f"--model-for {who}={spec}: a server address (@URL) is for openai:MODEL only")
    return found


def parse_model_for(items: Sequence[str], kinds: Sequence[str] | None = None) -> dict[str, SeatModel]:
    """``WHO=SPEC`` pairs as ``{who: SeatModel}`` in the order given; raises ``ConfigError``."""
    known = tuple(kinds) if kinds is not None else backend_kinds()
    found: dict[str, SeatModel] = {}
    for item in items:
        who, sep, spec = item.partition("=")
        who = who.strip()
        if not sep:
            raise ConfigError(f"--model-for {item!r}: write WHO=SPEC (an agent or role, =, a model)")
        if not who:
            raise ConfigError(f"--model-for {item!r}: no agent or role before the =")
        if who in found:
            raise ConfigError(f"--model-for {who} is given twice: one model per agent or role")
        found[who] = parse_spec(who, spec, known)
    return found


def normalised(models: Mapping[str, SeatModel], default_kind: str) -> dict[str, str]:
    """``{who: KIND:MODEL}`` with each kind filled in: what a study records (the server's address left out)."""
    return {who: model.resolved(default_kind).label for who, model in models.items()}


def from_record(record: Mapping[str, str]) -> dict[str, SeatModel]:
    """A study's recorded ``{who: KIND:MODEL}`` read back (no kind checked: a plug-in may be gone since)."""
    found = {}
    for who, label in record.items():
        kind, _, model = label.partition(":")
        found[who] = SeatModel(who, kind, model or None)
    return found


def seat_names(config: DebateConfig) -> tuple[frozenset[str], frozenset[str]]:
    """A debate's agent names and role names (its variant's roles and any an agent is given)."""
    from debate_core.protocols.registry import resolve

    protocol = resolve(config)[1]
    roles = {spec.name for spec in protocol.role_specs()} | {a.role for a in config.agents if a.role}
    return frozenset(config.agent_names), frozenset(roles)


def check_who(models: Mapping[str, SeatModel], config: DebateConfig) -> None:
    """Refuse a WHO that names no agent or role of the debate ``config`` describes."""
    agents, roles = seat_names(config)
    unknown = [who for who in models if who not in agents and who not in roles]
    if unknown:
        raise ConfigError(
            f"--model-for {', '.join(unknown)}: no such agent or role in this debate "
            f"(agents: {', '.join(sorted(agents))}; roles: {', '.join(sorted(roles)) or 'none'})"
        )


def conflicts(
    seated: Mapping[str, str], models: Mapping[str, SeatModel], agent_roles: Mapping[str, str | None]
) -> list[str]:
    """Where a WHO would put another model in a seat the variant fills with its own (``seated``: role -> model)."""
    found = []
    for agent, role in agent_roles.items():
        if role is None or role not in seated:
            continue
        mine = models.get(agent) or models.get(role)
        if mine is not None and mine.model != seated[role]:
            found.append(
                f"--model-for {mine.who}={mine.text} would seat another model where the variant seats its own "
                f"{seated[role]} (the {role}): drop it, or make it {mine.who}={seated[role]}"
            )
    return list(dict.fromkeys(found))


class SeatBackends:
    """The backends of the seats of every debate of a run (one terminal debate, or a whole study)."""

    def __init__(
        self, spec: BackendSpec, models: Mapping[str, SeatModel] | None = None, *, default: Backend | None = None
    ) -> None:
        self.spec = spec
        self.models = {who: model.resolved(spec.kind) for who, model in (models or {}).items()}
        self._loaded: dict[tuple[str, str | None, str | None], Backend] = {}
        self._lock = threading.Lock()
        if default is not None and spec.kind != "scripted":
            self._loaded[(spec.kind, spec.model, self._server(spec.kind, None))] = default

    def record(self) -> dict[str, str]:
        """``{who: KIND:MODEL}``, as a study records them."""
        return {who: model.label for who, model in self.models.items()}

    def _server(self, kind: str, base_url: str | None) -> str | None:
        if kind != "openai":
            return None
        return base_url or (str(self.spec.options.get("base_url") or "") if self.spec.kind == "openai" else "") or None

    def backend(self, kind: str, model: str | None, base_url: str | None, config: DebateConfig) -> Backend:
        """The backend of ``model`` of ``kind``: made once and kept (a scripted one: per debate)."""
        if kind == "scripted":
            from debate_core.protocols.registry import protocol_class

            responder = protocol_class(config.protocol).demo_responder(config)
            if responder is None:
                raise ConfigError(f"protocol {config.protocol} has no scripted demo to seat as {model or kind}")
            return ScriptedBackend(responder, model_id=model or SCRIPTED_ID)
        server = self._server(kind, base_url)
        if kind == "openai" and server is None:
            raise ConfigError(
                f"openai:{model or ''} needs its server: openai:MODEL@http://HOST:PORT/v1 (or --backend openai "
                "--base-url URL)"
            )
        key = (kind, model, server)
        with self._lock:
            if key not in self._loaded:
                self._loaded[key] = make_backend(self._spec_for(kind, model, server), config)
            return self._loaded[key]

    def _spec_for(self, kind: str, model: str | None, server: str | None) -> BackendSpec:
        address = {"base_url": server} if server else {}
        if kind == self.spec.kind:  # the default's device, dtype, options (its server's key, timeouts) too
            return replace(self.spec, model=model, options={**self.spec.options, **address})
        return BackendSpec(kind, model, prefix_reuse=self.spec.prefix_reuse, options=address)

    def route(self, default: Backend, config: DebateConfig) -> Backend | BackendRouter:
        """The debate's backend: ``default``, with its own for each seat a variant or a WHO of this debate names."""
        from debate_core.protocols.registry import resolve

        by_role: dict[str, Backend] = {}
        for role, model in resolve(config)[1].seat_models().items():
            by_role[role] = self.backend(self.spec.kind, model, None, config)
        agents, roles = seat_names(config)
        by_agent: dict[str, Backend] = {}
        for who, seat in self.models.items():
            if who in agents or who in roles:
                assert seat.kind is not None  # resolved
                backend = self.backend(seat.kind, seat.model, seat.base_url, config)
                (by_agent if who in agents else by_role)[who] = backend
        if not by_agent and not by_role:
            return default
        return BackendRouter(default, by_agent=by_agent, by_role=by_role)
