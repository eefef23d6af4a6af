"""Study commands that are ``compare`` with presets: a paper's table by one command, its table printed after.

What it does: a ``Preset`` names a command and holds ``compare``'s defaults
for it (by option destination, each with its help), the ``--param`` values
laid under the user's, extra options of its own, a step that adjusts the
parsed options before the study runs (``prepare``) and the table it prints
from the store when the study ends (``show``). ``command(preset)`` makes the
sub-command a plugin's ``register_commands`` hook returns: its parser is
``compare_cli.add_parser``'s under the preset's name (every ``compare``
option, the preset's defaults and help laid over them, the experiment id
defaulting to the command's name), and it runs ``compare_cli.cmd_compare``
(which runs the study, resumes it and checks a rerun's parameters), then
prints the preset's table unless the study was stopped (status 130: the same
command resumes it).

An option given on the command line wins over the preset, and a ``--param``
given is laid over the preset's.

What it does not do: know any protocol or paper (a protocol's ``study``
package declares its presets and tables), run or score debates itself
(``compare``) or write the report (``report``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from experiments import compare_cli
from experiments.extensions import Command
from experiments.progress import Progress
from storage import Store
from storage.experiments import RunRecord

Show = Callable[[Store, Sequence[RunRecord], Sequence[str]], list[str]]
"""The table a study command prints: ``show(store, the experiment's runs, its systems)``, as lines."""


@dataclass(frozen=True)
class Preset:
    """A study command: ``compare`` named ``name`` with ``defaults`` (by option destination, each with its help)
    and ``params`` laid under the user's ``--param``; ``options(parser)`` adds options of its own, ``prepare(args)``
    adjusts the parsed options before the study runs, and ``show`` draws its table from the store."""

    name: str
    help: str
    defaults: Mapping[str, tuple[Any, str]]
    show: Show
    params: tuple[str, ...] = ()
    options: Callable[[argparse.ArgumentParser], object] | None = None
    prepare: Callable[[argparse.Namespace], argparse.Namespace] | None = None


class _Named:
    """The sub-parsers, handing ``compare_cli.add_parser`` a parser of another name than ``compare``."""

    def __init__(self, commands: Any, preset: Preset) -> None:
        self.commands, self.preset = commands, preset
        self.parser: argparse.ArgumentParser | None = None

    def add_parser(self, _name: str, **_options: Any) -> argparse.ArgumentParser:
        self.parser = self.commands.add_parser(self.preset.name, help=self.preset.help, description=self.preset.help)
        return self.parser


def add_parser(preset: Preset) -> Callable[[Any], None]:
    """The command's parser: ``compare``'s, named ``preset.name``, with the preset's defaults and options."""

    def add(commands: Any) -> None:
        named = _Named(commands, preset)
        compare_cli.add_parser(named)
        parser = named.parser
        assert parser is not None
        for action in parser._actions:
            if action.dest in preset.defaults:
                action.default, action.help = preset.defaults[action.dest]
            elif action.dest == "experiment":
                action.required, action.default = False, preset.name
                action.help = f"the study's id (default: {preset.name})"
            elif action.dest == "param" and preset.params:
                action.help = f"PROTOCOL.KEY=VALUE, laid over the presets {' '.join(preset.params)} (repeatable)"
        if preset.options is not None:
            preset.options(parser)

    return add


def run(preset: Preset) -> Callable[[argparse.Namespace, Console, Progress | None], int]:
    """Run the study as ``compare`` does, then print the preset's table (not when stopped: rerun to resume)."""

    def go(args: argparse.Namespace, console: Console, progress: Progress | None) -> int:
        args.param = [*preset.params, *args.param]
        if preset.prepare is not None:
            args = preset.prepare(args)
        status = compare_cli.cmd_compare(args, console, progress)
        if status == 130:  # stopped: the same command resumes
            return status
        systems = [s.strip() for s in args.systems.split(",") if s.strip()]
        store = Store(args.db)
        try:
            lines = preset.show(store, store.experiments.runs(args.experiment), systems)
        finally:
            store.close()
        for line in lines:
            console.print(line, markup=False, soft_wrap=True)
        return status

    return go


def command(preset: Preset) -> Command:
    """The preset as a sub-command (``register_commands``), with progress bars."""
    return Command(preset.name, add_parser(preset), run(preset), progress=True)
