"""What a plugin adds to the study harness: its sub-commands, report sections and data sets.

What it does: defines the three things a plugin hands to ``register`` in the
hooks ``register_commands`` (a ``Command``: a sub-command of
``python -m experiments``), ``register_report_sections`` (a ``ReportSection``:
its part of a comparison's report, its figures, and, where the protocol has
one, the control system the other systems are compared against) and
``register_datasets`` (a ``Dataset``: a question loader ``compare --data
NAME=N`` finds by name), and collects them: ``commands()``,
``report_sections()``, ``datasets()``. The shared loaders (MMLU, StrategyQA,
BBH, GSM8K, GPQA, HotpotQA) come first, from the generic built-in module
``experiments.datasets`` through the same hook; a plugin's thing whose name
is taken already is left out and recorded as the plugin's problem.

What it does not do: parse options (``cli``, ``compare_cli``), write a report
(``compare_report``) or load any data itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debate_core.plugins import collect, record_problem

if TYPE_CHECKING:
    from experiments.compare import CompareSpec, Item
    from storage import Store
    from storage.experiments import RunRecord


@dataclass(frozen=True)
class Command:
    """A sub-command: ``add_parser(commands)`` adds its parser (named ``name``) to argparse's sub-parsers;
    ``run(args, console)`` runs it and returns the exit status (``run(args, console, progress)`` with
    ``progress=True``: progress bars, or ``None`` under the command's own ``--no-progress``)."""

    name: str
    add_parser: Callable[[Any], object]
    run: Callable[..., int]
    progress: bool = False


@dataclass(frozen=True)
class Section:
    """What a report section built: its markdown lines and its figures as (file stem, plotly figure)."""

    lines: Sequence[str] = ()
    figures: Sequence[tuple[str, Any]] = ()


@dataclass(frozen=True)
class ReportSection:
    """A plugin's part of a comparison report: ``build(store, runs, systems)`` reads the study's runs
    (empty lines and no figures where none of its systems ran); ``control``: a system (``protocol/variant``)
    the report compares every other system against on the same questions, when the study ran it."""

    name: str
    build: Callable[[Store, Sequence[RunRecord], Sequence[str]], Section] | None = None
    control: str | None = None


@dataclass(frozen=True)
class DataRequest:
    """What a loader is asked for: ``n`` questions (per task, for a data set of tasks), the study's seed, a
    local file or folder (``None``: its cache or its source) and the whole specification (a loader's own
    settings, such as BBH's tasks)."""

    n: int
    seed: int
    path: str | None
    spec: CompareSpec


@dataclass(frozen=True)
class Dataset:
    """A question source: ``items(request)`` returns the study's ``Item``s, keys stable across runs."""

    name: str
    items: Callable[[DataRequest], list[Item]]
    help: str = ""


def _unique(hook: str, kind: type, built_in: Sequence[Any] = ()) -> list[Any]:
    found: dict[str, Any] = {thing.name: thing for thing in built_in}
    for registration in collect(hook):
        thing = registration.item  # Any: narrowed by the check below, read by its name after it
        if not isinstance(registration.item, kind):
            record_problem(
                f"plugin {registration.plugin} ({registration.source}) registered {thing!r} in {hook}, "
                f"not a {kind.__name__}"
            )
        elif thing.name in found:
            record_problem(
                f"plugin {registration.plugin} ({registration.source}) registered the {kind.__name__.lower()} "
                f"{thing.name!r} in {hook}, which is taken: left out"
            )
        else:
            found[thing.name] = thing
    return list(found.values())


def commands(reserved: Sequence[str] = ()) -> list[Command]:
    """Every plugin's sub-commands, in plugin order; none may take a name in ``reserved`` (the built-in ones)."""
    taken = [Command(name, lambda commands: None, lambda *args: 0) for name in reserved]
    return _unique("register_commands", Command, taken)[len(taken) :]


def report_sections() -> list[ReportSection]:
    """Every plugin's report sections, in plugin order (the built-in protocols first)."""
    return _unique("register_report_sections", ReportSection)


def datasets() -> list[Dataset]:
    """The shared loaders, then every plugin's, by name, in that order (the order of a study's questions)."""
    from experiments import datasets as shared

    built_in: list[Dataset] = []
    shared.register_datasets(built_in.append)
    return _unique("register_datasets", Dataset, built_in)
