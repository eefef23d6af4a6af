"""The ace plugin: registers ACE (Analyze-Compose-Execute) with the plugin manager.

What it does: implements the ``register_protocols`` hook for ``AceProtocol``. It is
one of the built-ins (``protocols.PLUGINS``), loaded
through the same path as an outside package's plugin module, so a checkout
on ``sys.path`` finds it without installed metadata.
Its events (``register_event_types``: ``events``) and terminal rendering
(``register_terminal_renderers``: ``terminal``) come in through their hooks too,
and its study's report section (``register_report_sections``) and commands
(``register_commands``: ``ace-table1``, ``ace-table2``, ``ace-rounds-sweep``).

What it does not do: decide anything about the protocol (``protocol`` does).
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.events.types import EventBase
from debate_core.plugins import hookimpl
from debate_core.protocols.base import Protocol
from protocols.ace.protocol import AceProtocol


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(AceProtocol)


@hookimpl
def register_commands(register: Callable[[object], object]) -> None:
    from protocols.ace.study.commands import COMMANDS

    for command in COMMANDS:  # ace-table1, ace-table2, ace-rounds-sweep: compare with the paper's settings
        register(command)


@hookimpl
def register_report_sections(register: Callable[[object], object]) -> None:
    from protocols.ace.study.report import REPORT_SECTION

    register(REPORT_SECTION)


@hookimpl
def register_event_types(register: Callable[[type[EventBase]], object]) -> None:
    from protocols.ace.events import ActionComposed, AnalysisMade

    register(AnalysisMade)
    register(ActionComposed)


@hookimpl
def register_terminal_renderers(register: Callable[[object], object]) -> None:
    from protocols.ace.terminal import RENDERING

    register(RENDERING)


@hookimpl
def register_web_renderers(register: Callable[[object], object]) -> None:
    from protocols.ace.web import WEB

    register(WEB)
