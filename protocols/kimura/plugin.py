"""The kimura plugin: registers Kimura et al.'s interruptible debate with the plugin manager.

What it does: implements the ``register_protocols`` hook for ``KimuraProtocol``. It is
one of the built-ins (``protocols.PLUGINS``), loaded
through the same path as an outside package's plugin module, so a checkout
on ``sys.path`` finds it without installed metadata.
Its terminal rendering (``register_terminal_renderers``: ``terminal``)
comes in through its hook too, and so does its paper study (``study/``): the
``run`` sub-command of ``python -m experiments`` (``register_commands``) and
the study kind the Analysis tab and ``report`` show (``register_study_kinds``).

What it does not do: decide anything about the protocol (``protocol`` does).
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.plugins import hookimpl
from debate_core.protocols.base import Protocol
from protocols.kimura.protocol import KimuraProtocol


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(KimuraProtocol)


@hookimpl
def register_terminal_renderers(register: Callable[[object], object]) -> None:
    from protocols.kimura.terminal import RENDERING

    register(RENDERING)


@hookimpl
def register_web_renderers(register: Callable[[object], object]) -> None:
    from protocols.kimura.web import WEB

    register(WEB)


@hookimpl
def register_live_controls(register: Callable[[object], object]) -> None:
    from protocols.kimura.web import CONTROLS

    register(CONTROLS)


@hookimpl
def register_commands(register: Callable[[object], object]) -> None:
    from protocols.kimura.study import cli

    register(cli.COMMAND)


@hookimpl
def register_study_kinds(register: Callable[[object], object]) -> None:
    from protocols.kimura.study.kind import KIND

    register(KIND)
