"""Plugins: the one way protocols (and, later, other extensions) reach the engine.

What it does: re-exports ``hookimpl``, the marker a plugin module puts on its
hook functions, and ``plugin_manager()``, the process's pluggy manager. The
five built-in protocols are plugins registered exactly as an outside package's
are (the modules the top-level ``protocols`` package lists); ``hookspecs`` lists the hooks a plugin may
implement.

What it does not do: keep the protocols (``debate_core.protocols.registry``
asks the manager and keeps them) or import any plugin before it is asked for.
"""

from debate_core.plugins.hookspecs import PROJECT, hookimpl
from debate_core.plugins.manager import (
    BUILT_IN_PACKAGE,
    ENTRY_POINT_GROUP,
    ENV_VAR,
    PluginInfo,
    Registration,
    collect,
    plugin_manager,
    plugins,
    problems,
    record_problem,
    reset_plugin_manager,
)

__all__ = [
    "BUILT_IN_PACKAGE",
    "ENTRY_POINT_GROUP",
    "ENV_VAR",
    "PROJECT",
    "PluginInfo",
    "Registration",
    "collect",
    "hookimpl",
    "plugin_manager",
    "plugins",
    "problems",
    "record_problem",
    "reset_plugin_manager",
]
