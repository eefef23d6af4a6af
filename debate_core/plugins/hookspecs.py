"""The hooks a plugin may implement, and the markers for them (pluggy, project ``interruptible_debate``).

What it does: declares every hook as a pluggy hook specification. A plugin
is a module (or any object) whose functions are marked ``@hookimpl`` and
named after a hook here; pluggy checks their signatures against these specs
when the plugin is registered. Every hook has the same shape: the engine
hands the plugin a ``register`` callable and the plugin calls it once per
thing it contributes (``register(MyProtocol)``), so one plugin may
contribute several, and the engine knows which plugin contributed what.
A new kind of extension (event types, web renderers, live controls, report
sections, commands, data sets) is one more spec in the same style, added
together with the code that consumes it.

What it does not do: load plugins (``manager``) or keep what they register
(the consumer of each hook does: ``protocols.registry`` for protocols).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from debate_core.protocols.base import Protocol

PROJECT = "interruptible_debate"

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    """Contribute debate protocols: call ``register(ProtocolClass)`` once per protocol.

    Each class is a ``debate_core.protocols.Protocol`` subclass with a unique
    ``name``; the registry refuses a name that another plugin registered too.
    The hook is called once per process, the first time protocols are looked
    up, so a plugin may import its protocol's modules inside the hook.
    """
