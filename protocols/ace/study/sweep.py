"""The rounds sweep of the ACE paper's Fig. 4: accuracy against the number of discussion rounds, per system.

What it does: a sweep is a comparison whose systems are the same methods at
several numbers of rounds, each written as a system with its round parameter
(``swept(system, n)``: ``ace/parallel:rounds=3``). ``ROUND_PARAMETER`` says
which parameter sets a method's rounds, and how it counts them:

* ``ace/parallel`` (PAR), ``baselines/parallel`` and ``baselines/rpd``:
  ``rounds``, exactly N rounds (the first answers included);
* ``baselines/rtc``: ``discussion_rounds = N - 1`` after the first answers,
  at most: a consensus ends RTC earlier;
* ``baselines/tar``: ``max_rounds = N``, at most: the judge may end it earlier;
* ``ace/ace``, ``ace/no_compose``, ``ace/no_execute``: ``max_rounds = N``, a
  cap: ACE has no number of rounds (its observer ends the discussion, the
  point of Fig. 4), so its point at N is ACE capped at N rounds, and the
  table gives the rounds its debates ran; ``ace/no_analyze`` (no observer):
  ``rounds``, exactly N.

Fig. 4 sweeps the baselines (``DEFAULT_SYSTEMS``: PAR, RPD, RTC, TAR); ACE
is one more method to name. ``rounds_of(system)`` reads a swept system back (its method and N);
``points(results)`` gives each method's accuracy at each N per task and over
the study's tasks (the unweighted mean of the tasks' accuracies, taken in each
run), as mean ± SD over runs; ``section`` writes its table and ``figure`` draws
Fig. 4's panels (one per task, and the mean over tasks), a line per method.

What it does not do: run the debates (``commands``' ``ace-rounds-sweep``
builds the systems and runs ``compare``) or write the figure's files (the
comparison report does, PNG through kaleido).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from experiments.compare import system_parts
from experiments.statistics import Spread, mean, spread
from protocols.ace.study.tables import TABLE_ONE, Scored, accuracies, columns, value

# method -> (its parameter for N rounds, the parameter's value minus N, "exactly" or "at most")
ROUND_PARAMETER: dict[str, tuple[str, int, str]] = {
    "ace/parallel": ("rounds", 0, "exactly"),
    "baselines/parallel": ("rounds", 0, "exactly"),
    "baselines/rpd": ("rounds", 0, "exactly"),
    "baselines/rtc": ("discussion_rounds", -1, "at most"),
    "baselines/tar": ("max_rounds", 0, "at most"),
    "ace/ace": ("max_rounds", 0, "at most"),
    "ace/no_analyze": ("rounds", 0, "exactly"),
    "ace/no_compose": ("max_rounds", 0, "at most"),
    "ace/no_execute": ("max_rounds", 0, "at most"),
}
# Fig. 4's methods: the baselines (ACE has no number of rounds; ``--systems ...,ace/ace`` adds it, capped).
DEFAULT_SYSTEMS = ("ace/parallel", "baselines/rpd", "baselines/rtc", "baselines/tar")
# Fig. 4's tasks: Causal Judgement, Formal Fallacies, Sports Understanding, Ruin Names, Movie Recommendation.
DEFAULT_TASKS = (
    "causal_judgment",
    "formal_fallacies_syllogisms_negation",
    "sports_understanding",
    "ruin_names",
    "movie_recommendation",
)
DEFAULT_ROUNDS = (1, 2, 3, 4, 5)
ALL_TASKS = "mean over tasks"
FIGURE = "ace-rounds-sweep"


def swept(system: str, rounds: int) -> str:
    """``system`` at ``rounds`` rounds, as a comparison's system (``protocol/variant:key=value``)."""
    if system not in ROUND_PARAMETER:
        raise ValueError(f"no rounds to sweep for {system!r} (the methods: {', '.join(ROUND_PARAMETER)})")
    if rounds < 1:
        raise ValueError(f"a number of rounds is 1 or more, got {rounds}")
    key, offset, _ = ROUND_PARAMETER[system]
    return f"{system}:{key}={rounds + offset}"


def rounds_of(system: str) -> tuple[str, int] | None:
    """(method, N) of a swept system, or None for a system that is not one (no round parameter alone)."""
    try:
        protocol, variant, overrides = system_parts(system)
    except ValueError:
        return None
    method = f"{protocol}/{variant}"
    if method not in ROUND_PARAMETER or len(overrides) != 1:
        return None
    key, offset, _ = ROUND_PARAMETER[method]
    given = overrides.get(key)
    if not isinstance(given, int) or isinstance(given, bool):
        return None
    return method, given - offset


@dataclass(frozen=True)
class Sweep:
    """Each method's accuracy (mean ± SD over runs) at each N, per task and over the tasks (``ALL_TASKS``)."""

    methods: tuple[str, ...]
    rounds: tuple[int, ...]
    tasks: tuple[str, ...]  # the columns: a task, or a group's mean (TSO), then ALL_TASKS
    accuracy: Mapping[tuple[str, int, str], Spread]


def points(results: Sequence[Scored], systems: Sequence[str]) -> Sweep | None:
    """The sweep's points, or None unless some method was run at two numbers of rounds or more."""
    named = {s: point for s in systems if (point := rounds_of(s)) is not None}
    by_method: dict[str, set[int]] = defaultdict(set)
    for method, n in named.values():
        by_method[method].add(n)
    if not any(len(ns) > 1 for ns in by_method.values()):
        return None
    found = accuracies([r for r in results if r.system in named])
    shown = columns(sorted({r.task for r in results if r.system in named}))
    accuracy: dict[tuple[str, int, str], Spread] = {}
    for system, (method, n) in named.items():
        runs = found.get(system, {})
        for column in shown:
            values = [v for acc in runs.values() if (v := value(acc, column)) is not None]
            if values:
                accuracy[(method, n, column[0])] = spread(values)
        means = [mean(vs) for acc in runs.values() if (vs := [v for c in shown if (v := value(acc, c)) is not None])]
        if means:
            accuracy[(method, n, ALL_TASKS)] = spread(means)
    methods = tuple(m for m in ROUND_PARAMETER if m in by_method)
    rounds = tuple(sorted({n for ns in by_method.values() for n in ns}))
    return Sweep(methods, rounds, (*(c[0] for c in shown), ALL_TASKS), accuracy)


def section(sweep: Sweep, ran: Mapping[tuple[str, int], float] | None = None) -> list[str]:
    """The sweep's table: a row per method and task, a column per N; ``ran``: ACE's mean rounds run at each cap."""
    several = ", mean ± SD over runs" if any(s.n > 1 for s in sweep.accuracy.values()) else ""
    lines = [
        "",
        f"## ACE: the rounds sweep of the paper's Fig. 4 (accuracy, %{several})",
        "",
        "| method | rounds | task | " + " | ".join(str(n) for n in sweep.rounds) + " |",
        "|---" * (len(sweep.rounds) + 3) + "|",
    ]
    for method in sweep.methods:
        how = ROUND_PARAMETER[method][2]
        for task in (ALL_TASKS, *sweep.tasks[:-1]):
            cells = [sweep.accuracy[(method, n, task)].sd_text(100) if (method, n, task) in sweep.accuracy else "-"
                     for n in sweep.rounds]  # fmt: skip
            lines.append(f"| {method} | {how} | {task} | " + " | ".join(cells) + " |")
    if ran:
        lines += ["", "ACE's rounds run under each cap (mean; its observer may stop before the cap):", ""]
        lines += ["| method | " + " | ".join(str(n) for n in sweep.rounds) + " |"]
        lines += ["|---" * (len(sweep.rounds) + 1) + "|"]
        for method in sorted({m for m, _ in ran}):
            cells = [f"{ran[(method, n)]:.2f}" if (method, n) in ran else "-" for n in sweep.rounds]
            lines.append(f"| {method} | " + " | ".join(cells) + " |")
    return [
        *lines,
        "",
        "*exactly*: the method runs N rounds; *at most*: N rounds at most, its own rule may end it earlier (RTC's "
        "consensus, TAR's judge, ACE's observer: ACE has no number of rounds, so its point at N is ACE capped at N).",
        "",
    ]


def figure(sweep: Sweep) -> go.Figure:
    """Fig. 4: a panel per task and one for the mean over tasks; a line per method, accuracy (%) against rounds."""
    panels = (ALL_TASKS, *sweep.tasks[:-1])
    fig = make_subplots(rows=1, cols=len(panels), subplot_titles=panels, shared_yaxes=True)
    for index, method in enumerate(sweep.methods):
        for column, task in enumerate(panels, start=1):
            xs = [n for n in sweep.rounds if (method, n, task) in sweep.accuracy]
            spreads = [sweep.accuracy[(method, n, task)] for n in xs]
            bars = {"type": "data", "array": [100 * s.sd for s in spreads], "visible": any(s.n > 1 for s in spreads)}
            fig.add_scatter(
                x=xs,
                y=[100 * s.mean for s in spreads],
                error_y=bars,
                mode="lines+markers",
                name=f"{_LABELS[method]} ({method})" if method in _LABELS else method,
                legendgroup=method,
                showlegend=column == 1,
                marker={"color": _COLOURS[index % len(_COLOURS)]},
                row=1,
                col=column,
            )
    fig.update_xaxes(title_text="discussion rounds", tickvals=list(sweep.rounds))
    fig.update_yaxes(title_text="accuracy (%)", col=1)
    fig.update_layout(title="Accuracy against the number of discussion rounds (the ACE paper's Fig. 4)")
    return fig


_LABELS = dict(TABLE_ONE)  # the paper's names: PAR, RPD, RTC, TAR, ACE
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf")
