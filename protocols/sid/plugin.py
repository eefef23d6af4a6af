"""The sid plugin: registers SID (self-signals debate) with the plugin manager.

What it does: implements the ``register_protocols`` hook for ``SidProtocol``. It is
one of the built-ins (``protocols.PLUGINS``), loaded
through the same path as an outside package's plugin module, so a checkout
on ``sys.path`` finds it without installed metadata.
Its event (``register_event_types``: ``events``) and terminal rendering
(``register_terminal_renderers``: ``terminal``) come in through their hooks too.

What it does not do: decide anything about the protocol (``protocol`` does).
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.events.types import EventBase
from debate_core.plugins import hookimpl
from debate_core.protocols.base import Protocol
from protocols.sid.protocol import SidProtocol


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(SidProtocol)


@hookimpl
def register_commands(register: Callable[[object], object]) -> None:
    from protocols.sid.study.commands import COMMANDS
    from protocols.sid.study.sweep import COMMAND as SWEEP
    from protocols.sid.study.train_gate import COMMAND

    register(COMMAND)
    for command in (*COMMANDS, SWEEP):
        register(command)


@hookimpl
def register_study_preparations(register: Callable[[object], object]) -> None:
    from protocols.sid.study.preparation import PREPARATION

    register(PREPARATION)


@hookimpl
def register_report_sections(register: Callable[[object], object]) -> None:
    from protocols.sid.study.report import REPORT_SECTION

    register(REPORT_SECTION)


@hookimpl
def register_event_types(register: Callable[[type[EventBase]], object]) -> None:
    from protocols.sid.events import ContextCompressed

    register(ContextCompressed)


@hookimpl
def register_terminal_renderers(register: Callable[[object], object]) -> None:
    from protocols.sid.terminal import RENDERING

    register(RENDERING)


@hookimpl
def register_web_renderers(register: Callable[[object], object]) -> None:
    from protocols.sid.web import WEB

    register(WEB)
