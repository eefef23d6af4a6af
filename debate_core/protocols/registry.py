"""The protocol registry: the protocols the plugins registered, found by name.

What it does: ``protocol_class(name)`` returns a registered ``Protocol``
class; ``available()`` lists them all. Protocols come from the plugin manager
(``debate_core.plugins``): every plugin's ``register_protocols`` hook, the
five built-ins' plugins first, then installed packages' plugins (entry-point
group ``interruptible_debate``), then the modules in ``$DEBATE_PLUGINS``;
and from ``register(cls)`` at run time (tests, notebooks). Each protocol
remembers where it came from (``source``: ``"built-in"``, ``"entry point
<distribution> <version>"``, ``"DEBATE_PLUGINS"``, ``"register()"``). The
old group ``interruptible_debate.protocols`` (``name = "module:Class"``) is
still read for outside packages that use it, with a ``DeprecationWarning``;
an entry there naming a class already registered (this project's own, in
metadata installed before its protocols became plugins) is skipped quietly.
A protocol name belongs to one class: the first plugin to register it keeps
it (the built-ins load first, so an outside plugin cannot replace one); a
second plugin registering a different class under that name is left out
with a warning naming both (``plugins.problems()``, shown by the listing),
as is a broken plugin, one that does not import or fails in its hook.

``with_settings(protocol, params, **settings)`` lets a front end map its
general flags (``--layout``, a form's field) onto the parameters of whichever
protocol takes them, without naming any protocol; ``small_model_params(protocol)``
gives the parameters a protocol recommends for a small model
(``Protocol.small_model_params``, checked against its ``Params`` when it is
registered) and ``with_small_model_params(protocol, params)`` adds them to
``params`` (an explicit parameter wins).

``resolve(config)`` checks a configuration against its protocol: the variant
exists, the parameters validate against the protocol's ``Params`` (defaults
filled in), and returns them with a ready protocol instance. ``describe()``
gives the listing ``python -m debate_core protocols`` prints.

What it does not do: load plugins (``debate_core.plugins.manager``), run
debates or check backends (``debate`` does).
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from importlib.metadata import entry_points
from typing import Any

from pydantic import ValidationError

from debate_core.config import DebateConfig
from debate_core.errors import ConfigError
from debate_core.plugins import collect, record_problem, reset_plugin_manager
from debate_core.protocols.base import Protocol, RoleSpec

# The deprecated group of "name = module:Class" entries (kept under its old name for callers).
ENTRY_POINT_GROUP = LEGACY_ENTRY_POINT_GROUP = "interruptible_debate.protocols"
AT_RUN_TIME = "register()"
_REGISTERED: dict[str, type[Protocol]] = {}
_SOURCES: dict[str, tuple[str, str]] = {}  # name -> (source, plugin)
_LOCK = threading.RLock()
_LOADED = False


def register(cls: type[Protocol]) -> type[Protocol]:
    """Register a protocol class under its ``name`` (usable as a class decorator); the plugins' names are taken."""
    _check(cls)
    _load()
    with _LOCK:
        _add(cls, AT_RUN_TIME, "")
    return cls


def unregister(name: str) -> None:
    with _LOCK:
        _REGISTERED.pop(name, None)
        _SOURCES.pop(name, None)


def reload() -> None:
    """Find the plugins' protocols again (after ``$DEBATE_PLUGINS`` changed); ``register()``-ed ones stay."""
    global _LOADED
    with _LOCK:
        for name in [n for n, (source, _) in _SOURCES.items() if source != AT_RUN_TIME]:
            unregister(name)
        reset_plugin_manager()
        _LOADED = False


def source_of(name: str) -> str:
    """Where protocol ``name`` came from (``"built-in"``, ``"entry point ..."``, ...); "" if not registered."""
    available()
    with _LOCK:
        return _SOURCES.get(name, ("", ""))[0]


def _check(cls: type[Protocol]) -> None:
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{cls.__name__} has no protocol name")
    if not getattr(cls, "variants", ()):
        raise ConfigError(f"protocol {name} declares no variants")
    small = getattr(cls, "small_model_params", {})
    try:
        cls.Params.model_validate(dict(small))
    except ValidationError as error:
        wrong = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        raise ConfigError(f"protocol {name}'s small_model_params are not its parameters ({wrong})") from None
    except (TypeError, ValueError):
        raise ConfigError(f"protocol {name}'s small_model_params are not a mapping of its parameters") from None


def _describe_source(source: str, plugin: str) -> str:
    return f"plugin {plugin} ({source})" if plugin else source


def _add(cls: type[Protocol], source: str, plugin: str) -> None:
    existing = _REGISTERED.get(cls.name)
    if existing is cls:
        return
    if existing is not None:
        first = _describe_source(*_SOURCES.get(cls.name, ("", "")))
        if source == AT_RUN_TIME:
            raise ConfigError(f"a different protocol is already registered as {cls.name!r} (by {first})")
        record_problem(  # the first keeps the name (built-ins load first): an outside plugin cannot take one
            f"protocol name {cls.name!r} is registered twice: by {first} and by {_describe_source(source, plugin)};"
            f" the first is kept, the second left out (rename it, uninstall its package or take it out of"
            " DEBATE_PLUGINS)"
        )
        return
    _REGISTERED[cls.name] = cls
    _SOURCES[cls.name] = (source, plugin)


def _load() -> None:
    global _LOADED
    with _LOCK:
        if _LOADED:
            return
        for found in collect("register_protocols"):
            cls = found.item
            if not (isinstance(cls, type) and issubclass(cls, Protocol)):
                record_problem(
                    f"plugin {found.plugin} ({found.source}) registered {cls!r}, which is not a Protocol class"
                )
                continue
            try:
                _check(cls)
            except ConfigError as error:
                record_problem(f"plugin {found.plugin} ({found.source}) registered a protocol that is refused: {error}")
                continue
            _add(cls, found.source, found.plugin)
        _load_legacy()
        _LOADED = True


def _load_legacy() -> None:
    for entry in entry_points(group=LEGACY_ENTRY_POINT_GROUP):
        try:
            cls = entry.load()
        except Exception as error:  # a broken plug-in must not break the built-ins
            record_problem(f"protocol plug-in {entry.value} could not be loaded: {type(error).__name__}: {error}")
            continue
        if not (isinstance(cls, type) and issubclass(cls, Protocol)):
            record_problem(f"entry point {entry.value} is not a Protocol class")
            continue
        if _REGISTERED.get(getattr(cls, "name", "")) is cls:
            continue  # already registered by a plugin: stale metadata of an install made before plugins
        dist = entry.dist
        where = f"entry point {dist.name} {dist.version}" if dist is not None else f"entry point {entry.name}"
        message = (
            f"{where}: the entry-point group {LEGACY_ENTRY_POINT_GROUP!r} is deprecated; declare a plugin module in"
            f" the group 'interruptible_debate' whose register_protocols hook registers {cls.__name__}"
        )
        warnings.warn(message, DeprecationWarning, stacklevel=2)
        record_problem(message)
        try:
            _check(cls)
        except ConfigError as error:
            record_problem(f"entry point {entry.value} is refused: {error}")
            continue
        _add(cls, f"{where} ({LEGACY_ENTRY_POINT_GROUP}, deprecated)", "")


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


def with_settings(protocol: str, params: dict[str, Any], **settings: Any) -> dict[str, Any]:
    """``params`` plus each of ``settings`` that protocol ``protocol`` takes (a field of its ``Params``) and
    ``params`` does not set, so an explicit parameter wins over a general flag; the settings it does not take
    are left out (such a protocol never read them). An enum value is given by its value."""
    cls = available().get(protocol)
    fields = cls.Params.model_fields if cls is not None else {}
    taken = {
        key: value.value if isinstance(value, Enum) else value
        for key, value in settings.items()
        if key in fields and key not in params
    }
    return {**taken, **params}


def small_model_params(protocol: str) -> dict[str, Any]:
    """The parameters protocol ``protocol`` recommends for a small model (``Protocol.small_model_params``), as JSON
    values; {} when it recommends none or is not installed."""
    cls = available().get(protocol)
    if cls is None or not cls.small_model_params:
        return {}
    chosen = cls.Params.model_validate(dict(cls.small_model_params)).model_dump(mode="json")
    return {key: chosen[key] for key in cls.small_model_params}


def with_small_model_params(protocol: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` plus each parameter protocol ``protocol`` recommends for a small model that ``params`` does not
    set (an explicit parameter wins)."""
    return {**small_model_params(protocol), **params}


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
    plugin: str = ""  # the plugin that registered it ("" for register() and the deprecated group)
    paper: str = ""  # the paper it implements (the class's ``source``)
    small_model_params: Mapping[str, Any] = field(default_factory=dict)  # recommended for a small model


def describe() -> list[ProtocolInfo]:
    """Every registered protocol with where it came from, its variants, roles, parameters and request kinds."""
    infos = []
    found = available()
    with _LOCK:
        sources = dict(_SOURCES)
    for name, cls in found.items():
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
            ProtocolInfo(
                name,
                cls.title,
                sources.get(name, ("", ""))[0],
                cls.variants,
                cls.roles,
                params,
                tuple(instance.forms()),
                doc,
                plugin=sources.get(name, ("", ""))[1],
                paper=cls.source,
                small_model_params=small_model_params(name),
            )
        )
    return infos
