"""The plugin manager: built-ins, installed packages and ``DEBATE_PLUGINS``, through one path.

What it does: ``plugin_manager()`` builds the process's pluggy manager once
(thread-safe) and registers, in this order and all through ``_register``:
the built-in plugins (the modules the top-level ``protocols`` package lists
in ``PLUGINS``: one ``plugin`` module per protocol package, imported by name,
so a plain checkout on ``sys.path`` sees them without being installed);
every entry point of installed packages in the one group
``interruptible_debate`` (each naming a plugin module, as pytest and
simonw/llm load theirs); and the modules named in ``$DEBATE_PLUGINS``
(comma-separated module names, for development). It remembers where each
plugin came from (``"built-in"``, ``"entry point <distribution> <version>"``,
``"DEBATE_PLUGINS"``) and what went wrong (``problems()``). ``collect(hook)`` calls one ``register_*`` hook plugin
by plugin, so every registered thing carries its plugin's name and source.

A broken plugin (it does not import, fails pluggy's signature check, or
raises inside a hook) is logged as a warning and left out; the others,
built-ins included, load as usual.

What it does not do: decide what a registered thing means or refuse
duplicates (the hook's consumer does: ``protocols.registry`` for protocols),
or import any plugin before the manager is first asked for.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import pluggy

from debate_core.log import logger
from debate_core.plugins import hookspecs

ENTRY_POINT_GROUP = hookspecs.PROJECT
ENV_VAR = "DEBATE_PLUGINS"
BUILT_IN = "built-in"
FROM_ENV = ENV_VAR
# The package of built-in plugins: it lists its plugin modules in ``PLUGINS``. The engine names the package,
# never a protocol, and imports it only when the manager is first built.
BUILT_IN_PACKAGE = "protocols"


@dataclass(frozen=True)
class PluginInfo:
    """A loaded plugin: the name it is registered under and where it came from."""

    name: str
    source: str


@dataclass(frozen=True)
class Registration:
    """One thing a plugin registered through a ``register_*`` hook."""

    item: Any
    plugin: str
    source: str


_LOCK = threading.Lock()
_MANAGER: pluggy.PluginManager | None = None
_INFOS: dict[str, PluginInfo] = {}
_PROBLEMS: list[str] = []


def plugin_manager() -> pluggy.PluginManager:
    """The process's plugin manager, built (and every plugin loaded) on the first call."""
    global _MANAGER
    with _LOCK:
        if _MANAGER is None:
            _INFOS.clear()
            _PROBLEMS.clear()
            _MANAGER = _build(_INFOS)
        return _MANAGER


def reset_plugin_manager() -> None:
    """Forget the manager; the next ``plugin_manager()`` loads every plugin again (tests, a changed env var)."""
    global _MANAGER
    with _LOCK:
        _MANAGER = None
        _INFOS.clear()
        _PROBLEMS.clear()


def plugins() -> list[PluginInfo]:
    """Every loaded plugin, in the order it was registered."""
    plugin_manager()
    with _LOCK:
        return list(_INFOS.values())


def problems() -> list[str]:
    """What went wrong loading plugins since the manager was built (each also logged as a warning)."""
    with _LOCK:
        return list(_PROBLEMS)


def record_problem(message: str) -> None:
    """Log a plugin's mistake as a warning and keep it for ``problems()`` (a front end may show them)."""
    logger.warning("%s", message)
    with _LOCK:
        _PROBLEMS.append(message)


def built_in_plugins() -> tuple[str, ...]:
    """The built-in plugin modules, as ``protocols.PLUGINS`` lists them (none, with a problem, if it is missing)."""
    try:
        package = importlib.import_module(BUILT_IN_PACKAGE)
    except ImportError as exc:
        record_problem(f"built-in plugins: package {BUILT_IN_PACKAGE!r} does not import ({exc})")
        return ()
    return tuple(getattr(package, "PLUGINS", ()))


def env_plugins() -> list[str]:
    """The module names in ``$DEBATE_PLUGINS`` (comma-separated; blanks ignored)."""
    return [name.strip() for name in os.environ.get(ENV_VAR, "").split(",") if name.strip()]


def _build(infos: dict[str, PluginInfo]) -> pluggy.PluginManager:
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for module in built_in_plugins():
        _register(pm, infos, module, partial(importlib.import_module, module), BUILT_IN)
    # pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP) does the same, but one plugin that fails to
    # import would abort the loop and leave the later ones out; this loop isolates each.
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if pm.get_plugin(entry.name) is not None or pm.is_blocked(entry.name):
            continue
        dist = entry.dist
        where = f"entry point {dist.name} {dist.version}" if dist is not None else f"entry point {entry.name}"
        _register(pm, infos, entry.name, entry.load, where)
    for module in env_plugins():
        _register(pm, infos, module, partial(importlib.import_module, module), FROM_ENV)
    return pm


def _register(
    pm: pluggy.PluginManager, infos: dict[str, PluginInfo], name: str, load: Callable[[], object], source: str
) -> None:
    """Load one plugin and register it; the one path every plugin takes, built-ins included."""
    try:
        plugin = load()
        if pm.is_registered(plugin):
            logger.info("plugin %s (%s) is already registered as %s", name, source, pm.get_name(plugin))
            return
        pm.register(plugin, name=name)
    except Exception as error:  # a broken plugin must not break the others
        _PROBLEMS.append(f"plugin {name} ({source}) could not be loaded: {type(error).__name__}: {error}")
        logger.warning("%s", _PROBLEMS[-1])
        return
    unknown = [
        caller.name
        for caller in pm.get_hookcallers(plugin) or ()
        if caller.spec is None
        and not any(impl.plugin is plugin and impl.optionalhook for impl in caller.get_hookimpls())
    ]
    if unknown:
        known = ", ".join(sorted(n for n, c in vars(pm.hook).items() if getattr(c, "spec", None) is not None))
        _PROBLEMS.append(f"plugin {name} ({source}) implements unknown hooks {unknown} (known: {known})")
        logger.warning("%s", _PROBLEMS[-1])
    infos[name] = PluginInfo(name, source)


def collect(hook: str) -> list[Registration]:
    """Call the ``register_*`` hook ``hook`` plugin by plugin; what each registered, with its plugin and source.

    Plugins are called in the order they were registered (built-ins first). A
    plugin that raises inside the hook is logged and contributes nothing.
    """
    pm = plugin_manager()
    with _LOCK:
        infos = dict(_INFOS)
    found: list[Registration] = []
    for impl in getattr(pm.hook, hook).get_hookimpls():
        if impl.hookwrapper or impl.wrapper:
            continue  # a wrapper around a register hook has nothing to register
        source = infos[impl.plugin_name].source if impl.plugin_name in infos else "unknown"
        items: list[Any] = []

        def register(item: Any, items: list[Any] = items) -> Any:
            items.append(item)
            return item

        try:
            impl.function(**dict.fromkeys(impl.argnames, register))
        except Exception as error:  # the plugin's mistake: recorded, the others go on
            record_problem(f"plugin {impl.plugin_name} ({source}) failed in {hook}: {type(error).__name__}: {error}")
            continue
        found.extend(Registration(item, impl.plugin_name, source) for item in items)
    return found
