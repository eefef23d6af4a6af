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
``register_study_preparations`` brings a protocol's step before a
comparison's debates (a ``StudyPreparation``: a ``QuestionSetup`` per
question for its systems, and its own options): ``study_preparations()``.

What it does not do: parse options (``cli``, ``compare_cli``), write a report
(``compare_report``) or load any data itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
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


# -- study kinds: what the Analysis tab and ``report`` show of an experiment (register_study_kinds) --------
if TYPE_CHECKING:
    from pathlib import Path

    from storage.experiments import ExperimentRecord

DEFAULT_STEP = 25  # the token grid of figures drawn over public tokens, where a kind draws such figures


@dataclass(frozen=True)
class ReportOptions:
    """How to write a report: PNG figures beside the HTML ones (``png``), where plotly.js comes from
    (``plotlyjs``: ``directory``, ``cdn`` or ``inline``) and the token grid of figures drawn over public
    tokens (``step``); a kind uses those it has a use for."""

    png: bool = True
    plotlyjs: str = "directory"
    step: int = DEFAULT_STEP


@dataclass(frozen=True)
class StudyView:
    """What the web app's Analysis tab shows of a study: its text (markdown), its plotly figures, and its
    debates, one row each: debate id, question, subject, setting, condition, final answer, correct."""

    markdown: str
    figures: Sequence[Any] = ()
    debates: Sequence[Sequence[str]] = ()


@dataclass(frozen=True)
class WrittenReport:
    """What writing a report did: a line saying what it wrote, and the warnings to show."""

    note: str
    warnings: Sequence[str] = ()


@dataclass(frozen=True)
class StudyKind:
    """A kind of study: ``handles(record)`` says whether an experiment is one; ``view(store, record, step)``
    gives its ``StudyView``; ``write(store, record, folder, options)`` writes its report folder (``report.md``,
    figures, CSVs) and says what it wrote."""

    name: str
    handles: Callable[[ExperimentRecord], bool]
    view: Callable[[Store, ExperimentRecord, int], StudyView]
    write: Callable[[Store, ExperimentRecord, Path, ReportOptions], WrittenReport]


def study_kinds() -> list[StudyKind]:
    """The harness's own kind (a comparison, ``experiments.compare_view``), then every plugin's, in plugin order."""
    from experiments import compare_view

    built_in: list[StudyKind] = []
    compare_view.register_study_kinds(built_in.append)
    return _unique("register_study_kinds", StudyKind, built_in)


def study_kind_for(record: ExperimentRecord) -> StudyKind | None:
    """The first kind that handles an experiment, or None where none does."""
    return next((kind for kind in study_kinds() if kind.handles(record)), None)


def no_such_experiment(store: Store, experiment_id: str) -> KeyError:
    """The error for an id the store does not have, naming the ids it has."""
    known = ", ".join(r.id for r in store.experiments.all()) or "none"
    return KeyError(f"no experiment {experiment_id!r} in the store (known: {known})")


# -- study preparations: a protocol's step before a comparison's debates (register_study_preparations) ------
if TYPE_CHECKING:
    from debate_core.backends.base import Backend


@dataclass(frozen=True)
class QuestionSetup:
    """What a preparation gives one question's debates of its protocol: parameters laid over the system's, and
    the agents' briefs by role (with a setup, every agent's brief is its role's, empty for a role not named)."""

    params: Mapping[str, Any] = field(default_factory=dict)
    briefs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PreparationRequest:
    """What a preparation is handed: the command's parsed options (its own among them), the console to say what
    it does, the store, the study's backend, its questions and its specification."""

    args: Any
    console: Any
    store: Store
    backend: Backend
    items: Sequence[Item]
    spec: CompareSpec


@dataclass(frozen=True)
class StudyPreparation:
    """A protocol's step before a comparison runs any of its systems (``name``: the protocol):
    ``prepare(request)`` returns a ``QuestionSetup`` per question key (a question without one runs as the
    system says), or ``None`` where it prepares nothing this time; ``add_options(parser)`` adds its options
    to ``compare``'s parser."""

    name: str
    prepare: Callable[[PreparationRequest], Mapping[str, QuestionSetup] | None]
    add_options: Callable[[Any], object] | None = None


def study_preparations() -> list[StudyPreparation]:
    """Every plugin's study preparations, in plugin order, one per protocol name."""
    return _unique("register_study_preparations", StudyPreparation)
