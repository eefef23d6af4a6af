"""The protocol registry: built-in protocols, and plug-ins found by entry point.

What it does: ``protocol_class(name)`` returns a registered ``Protocol``
class; ``available()`` lists them all. Protocols come from three places: the
built-ins of this package, installed packages that declare an entry point in
the group ``interruptible_debate.protocols`` (``name = "package.module:Class"``,
as simonw/llm finds model plug-ins), and ``register(cls)`` at run time (tests,
notebooks). ``resolve(config)`` checks a configuration against its protocol:
the variant exists, the parameters validate against the protocol's
``Params`` (defaults filled in), and returns them with a ready protocol
instance. ``describe()`` gives the listing ``python -m debate_core protocols``
prints.

What it does not do: run debates or check backends (``debate`` does).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from pydantic import ValidationError

from debate_core.config import DebateConfig
from debate_core.errors import ConfigError
from debate_core.log import logger
from debate_core.protocols.base import Protocol, RoleSpec

ENTRY_POINT_GROUP = "interruptible_debate.protocols"
_REGISTERED: dict[str, type[Protocol]] = {}
_LOCK = threading.Lock()
_LOADED = False


def register(cls: type[Protocol]) -> type[Protocol]:
    """Register a protocol class under its ``name`` (usable as a class decorator)."""
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{cls.__name__} has no protocol name")
    if not getattr(cls, "variants", ()):
        raise ConfigError(f"protocol {name} declares no variants")
    with _LOCK:
        existing = _REGISTERED.get(name)
        if existing is not None and existing is not cls:
            raise ConfigError(f"a different protocol is already registered as {name!r}")
        _REGISTERED[name] = cls
    return cls


def unregister(name: str) -> None:
    with _LOCK:
        _REGISTERED.pop(name, None)


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    from debate_core.protocols.kimura import KimuraProtocol

    register(KimuraProtocol)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = entry.load()
        except Exception as error:  # a broken plug-in must not break the built-ins
            logger.warning("protocol plug-in %s could not be loaded: %s", entry.value, error)
            continue
        if isinstance(cls, type) and issubclass(cls, Protocol):
            register(cls)
        else:
            logger.warning("entry point %s is not a Protocol class", entry.value)
    _LOADED = True


def available() -> dict[str, type[Protocol]]:
    _load()
    with _LOCK:
        return dict(sorted(_REGISTERED.items()))


def protocol_class(name: str) -> type[Protocol]:
    found = available().get(name)
    if found is None:
        raise ConfigError(f"unknown protocol {name!r} (available: {', '.join(available())})")
    return found


def uses_budget(name: str) -> bool:
    """Whether protocol ``name`` ends on the public-token budget (False when it is not installed)."""
    found = available().get(name)
    return bool(found is not None and found.uses_budget)


def resolve(config: DebateConfig) -> tuple[DebateConfig, Protocol]:
    """``config`` with its variant and full parameters filled in, and the protocol to run it."""
    cls = protocol_class(config.protocol)
    variant = config.variant or cls.default_variant()
    if variant not in cls.variants:
        raise ConfigError(f"protocol {cls.name} has no variant {variant!r} (variants: {', '.join(cls.variants)})")
    try:
        params = cls.Params.model_validate(config.params)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        if first["type"] == "extra_forbidden":
            known = ", ".join(cls.Params.model_fields) or "none"
            raise ConfigError(f"{cls.name} has no parameter {where!r} (its parameters: {known})") from None
        message = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"{cls.name} parameter {where or '(all)'}: {message}") from None
    resolved = config.model_copy(update={"variant": variant, "params": params.model_dump(mode="json")})
    return resolved, cls(variant, params)


def agent_limit(name: str, variant: str | None = None) -> int | None:
    """How many agents protocol ``name``'s ``variant`` takes at most (None: no limit, or not installed)."""
    cls = available().get(name)
    if cls is None:
        return None
    chosen = variant if variant in cls.variants else cls.default_variant()
    return cls(chosen, cls.Params()).max_agents()


@dataclass(frozen=True)
class ParamInfo:
    name: str
    type: str
    default: Any
    description: str


@dataclass(frozen=True)
class ProtocolInfo:
    name: str
    title: str
    source: str
    variants: tuple[str, ...]
    roles: tuple[RoleSpec, ...]
    params: tuple[ParamInfo, ...]
    forms: tuple[str, ...]
    doc: str


def describe() -> list[ProtocolInfo]:
    """Every registered protocol with its variants, roles, parameters (with defaults) and request kinds."""
    infos = []
    for name, cls in available().items():
        params = tuple(
            ParamInfo(
                field,
                getattr(info.annotation, "__name__", str(info.annotation)),
                info.get_default(call_default_factory=True),
                info.description or "",
            )
            for field, info in cls.Params.model_fields.items()
        )
        instance = cls(cls.default_variant(), cls.Params())
        doc = (cls.__doc__ or "").strip().split("\n\n")[0]
        infos.append(
            ProtocolInfo(name, cls.title, cls.source, cls.variants, cls.roles, params, tuple(instance.forms()), doc)
        )
    return infos
