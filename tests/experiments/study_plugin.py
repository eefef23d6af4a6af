"""A study plugin for the tests (loaded through ``DEBATE_PLUGINS``): commands, a report section, a data set.

What it does: registers ``hello`` (a sub-command), ``tiny-table`` (``compare``
with presets, ``experiments.presets``: the tiny questions on one system, a
``--twice`` of its own adding a second, a tally printed after), ``tally`` (a
report section counting each system's runs) and ``tiny`` (two arithmetic
questions), plus one command and one data set whose names the harness
already has, which must be left out. What it does not do: register a protocol (the built-ins run its questions).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from debate_core.config import Question
from debate_core.plugins import hookimpl
from experiments.compare import Item
from experiments.extensions import Command, DataRequest, Dataset, ReportSection, Section
from experiments.presets import Preset, command

QUESTIONS = [("What is 2 + 2?", "4"), ("What is 3 + 4?", "7")]


def _hello(commands: Any) -> None:
    commands.add_parser("hello", help="say hello").add_argument("--name", default="world")


def _tiny(request: DataRequest) -> list[Item]:
    rows = QUESTIONS[(request.seed % 2) :] + QUESTIONS[: request.seed % 2]
    return [Item("tiny", f"tiny:{i}", "arithmetic", Question(text=t, answer=a)) for i, (t, a) in enumerate(rows)][
        : request.n
    ]


def _tally(store: Any, runs: Sequence[Any], systems: Sequence[str]) -> Section:
    counts = {system: sum(1 for run in runs if run.condition == system) for system in systems}
    return Section(["", "## Tally", "", *(f"- {system}: {n} runs" for system, n in counts.items())])


def _twice(args: argparse.Namespace) -> argparse.Namespace:
    if args.twice:
        args.systems += ",parliament/british"
    return args


TINY_TABLE = Preset(
    "tiny-table",
    "the tiny questions, tallied (compare with presets)",
    {
        "systems": ("parliament/cot", "the systems (default: parliament/cot)"),
        "data": (["tiny=2"], "the data sets (default: tiny=2)"),
        "mmlu": (0, "MMLU questions (default 0)"),
        "strategyqa": (0, "StrategyQA questions (default 0)"),
    },
    lambda store, runs, systems: [f"tally: {len(runs)} runs of {' and '.join(systems)}"],
    options=lambda parser: parser.add_argument("--twice", action="store_true", help="a second system"),
    prepare=_twice,
)


@hookimpl
def register_commands(register: Callable[[object], object]) -> None:
    register(Command("hello", _hello, lambda args, console: console.print(f"hello {args.name}") or 3))
    register(command(TINY_TABLE))
    register(Command("compare", _hello, lambda args, console: 0))  # taken by the harness: left out


@hookimpl
def register_report_sections(register: Callable[[object], object]) -> None:
    register(ReportSection("tally", _tally))


@hookimpl
def register_datasets(register: Callable[[object], object]) -> None:
    register(Dataset("tiny", _tiny, "two sums"))
    register(Dataset("mmlu", _tiny))  # a shared loader's name: left out
