"""The round-robin plugin: the hooks that hand the protocol, its event, its report section and its data to the host.

What it does: implements four of the host's hooks (``debate_core.plugins.hookspecs``):
``register_protocols`` (``RoundRobin``), ``register_event_types``
(``TallyTaken``), ``register_report_sections`` (its part of a comparison
report) and ``register_datasets`` (``riddles``). The study hooks import the
host's study harness only when called, so loading the plugin stays light. The
package's ``pyproject.toml`` declares this module in the entry-point group
``interruptible_debate``; during development ``DEBATE_PLUGINS=round_robin.plugin``
loads it without installing.

What it does not do: render anything: the web app and the terminal show its
statements, answers and tallies with their generic renderings, and a person's
seat comes from the forms' field specifications.
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.events.types import EventBase
from debate_core.plugins import hookimpl
from debate_core.protocols import Protocol
from round_robin.events import TallyTaken
from round_robin.protocol import RoundRobin


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(RoundRobin)


@hookimpl
def register_event_types(register: Callable[[type[EventBase]], object]) -> None:
    register(TallyTaken)


@hookimpl
def register_report_sections(register: Callable[[object], object]) -> None:
    from experiments.extensions import ReportSection
    from round_robin.report import build

    register(ReportSection("round-robin", build))


@hookimpl
def register_datasets(register: Callable[[object], object]) -> None:
    from experiments.extensions import Dataset
    from round_robin.data import riddle_items

    register(Dataset("riddles", riddle_items, "five short riddles with three options (the round-robin example)"))
