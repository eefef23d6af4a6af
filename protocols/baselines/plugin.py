"""The baselines plugin: registers the baselines family (``baselines``) with the plugin manager.

What it does: implements the ``register_protocols`` hook for ``BaselinesProtocol``. It is one of
the built-ins (``protocols.PLUGINS``), loaded through the same path as an outside package's
plugin module.

How the web app's seat form words TAR's judge comes in through ``register_web_renderers``
(``web``).

What it does not do: decide anything about the protocol (``protocol`` does); the family's events,
pages and report rows are the generic ones.
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.plugins import hookimpl
from debate_core.protocols.base import Protocol
from protocols.baselines.protocol import BaselinesProtocol


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(BaselinesProtocol)


@hookimpl
def register_web_renderers(register: Callable[[object], object]) -> None:
    from protocols.baselines.web import WEB

    register(WEB)
