"""The handraiser plugin: registers HandRaiser (learning to interrupt) with the plugin manager.

What it does: implements the ``register_protocols`` hook for ``HandRaiserProtocol`` (the
debate), ``PictionaryProtocol`` (Text Pictionary, the paper's first task) and
``SchedulingProtocol`` (Meeting Scheduling), and registers the study commands
(``tree-sample``, ``train-listener``, ``handraiser-transfer``, ...), data sets,
report section, study preparation and the transfer's study kind. It is
one of the built-ins (``protocols.PLUGINS``), loaded
through the same path as an outside package's plugin module, so a checkout
on ``sys.path`` finds it without installed metadata.

What it does not do: decide anything about the protocol (``protocol`` does).
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.plugins import hookimpl
from debate_core.protocols.base import Protocol
from protocols.handraiser.meeting.protocol import SchedulingProtocol
from protocols.handraiser.pictionary.protocol import PictionaryProtocol
from protocols.handraiser.protocol import HandRaiserProtocol


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(HandRaiserProtocol)
    register(PictionaryProtocol)
    register(SchedulingProtocol)


@hookimpl
def register_commands(register: Callable[[object], object]) -> None:
    from protocols.handraiser.study import cli, pictionary_data, scheduling_cases, train_listener, transfer

    register(cli.COMMAND)
    register(train_listener.COMMAND)
    register(transfer.COMMAND)
    register(pictionary_data.COMMAND)
    register(scheduling_cases.COMMAND)


@hookimpl
def register_datasets(register: Callable[[object], object]) -> None:
    from protocols.handraiser.study import pictionary_data, scheduling_data

    register(pictionary_data.DATASET)
    register(scheduling_data.DATASET)


@hookimpl
def register_report_sections(register: Callable[[object], object]) -> None:
    from protocols.handraiser.study.report import REPORT_SECTION

    register(REPORT_SECTION)


@hookimpl
def register_study_kinds(register: Callable[[object], object]) -> None:
    from protocols.handraiser.study.transfer import STUDY_KIND

    register(STUDY_KIND)


@hookimpl
def register_study_preparations(register: Callable[[object], object]) -> None:
    from protocols.handraiser.study.preparation import PREPARATION

    register(PREPARATION)


@hookimpl
def register_web_renderers(register: Callable[[object], object]) -> None:
    from protocols.handraiser.web import WEB

    register(WEB)


@hookimpl
def register_live_controls(register: Callable[[object], object]) -> None:
    from protocols.handraiser.web import CONTROLS

    register(CONTROLS)
