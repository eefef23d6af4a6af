"""The parliament plugin: registers Parliament (prover and critic) with the plugin manager.

What it does: implements the ``register_protocols`` hook for ``ParliamentProtocol``. It is
one of the built-ins (``protocols.PLUGINS``), loaded
through the same path as an outside package's plugin module, so a checkout
on ``sys.path`` finds it without installed metadata.

What it does not do: decide anything about the protocol (``protocol`` does).
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.plugins import hookimpl
from debate_core.protocols.base import Protocol
from protocols.parliament.protocol import ParliamentProtocol


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(ParliamentProtocol)


@hookimpl
def register_report_sections(register: Callable[[object], object]) -> None:
    from protocols.parliament.study.report import REPORT_SECTION

    register(REPORT_SECTION)


@hookimpl
def register_live_controls(register: Callable[[object], object]) -> None:
    from protocols.parliament.web import CONTROLS

    register(CONTROLS)
