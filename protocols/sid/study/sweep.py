"""SID's sweeps of rounds, alpha and rho (the paper's Fig. 2(b), (e), (f)): one command, a table and a figure.

    python -m experiments sid-sweep [--rounds-grid 2,3,4] [--alpha-grid ...] [--rho-grid ...] [--questions 100]
                                    [any compare option]
    python -m experiments report ID      # the same table and figure in the report's SID section

What it does: ``sid-sweep`` is ``compare`` (``experiments.presets``) whose
systems are the grids: ``sid/mad`` and ``sid/sid`` (the point of every
panel at SID's defaults: 2 rounds, alpha 0.5, rho 0.4), and ``sid/sid`` at
each other value of each grid (``sid/sid:rho=0.2``, ...); the rounds panel
also runs MAD at each number of rounds (``sid/mad:rounds=3``), so its ratio
compares debates of the same length. Its data set is MMLU-Pro (``--data
mmlu_pro=N``, ``--questions`` N, the paper's 100; the paper's ablations ran
Llama-3.1-8B on MMLU-Pro), replaced by a ``--data`` of the user's. A grid
given empty (``--rho-grid ""``) leaves its panel out; each value is checked
against ``SidParams`` when the command is parsed.

``points(debates, systems)`` reads a study's swept systems back (any study:
a system ``sid/sid:KEY=VALUE`` with one setting of a swept key, and
``sid/sid`` at the defaults) into ``Point``s: the parameter, its value,
accuracy, and the token ratio against MAD (the paper's count, ``report``;
for rounds, against MAD with as many rounds where the study ran it).
``table_lines`` draws them as one table, ``figure`` as one panel per
parameter (accuracy above, token ratio below), for the panels with at least
two values.

The paper's grids are in its figure, not its text: the text names rho 0.35
and 0.4 as the best and alpha 0.5 as Llama-3.1-8B's best, says a very small
rho and a very large one both hurt, and that a small alpha is MAD, a large
one a single model. The default grids span those (this project's choice).

What it does not do: run or score debates (``compare``) or write files (the
report).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import plotly.graph_objects as go
from plotly.subplots import make_subplots
from pydantic import ValidationError

from experiments.presets import Preset, command
from protocols.sid.params import SidParams
from protocols.sid.study.report import SidDebate, sid_debates, token_ratio
from storage import Store
from storage.experiments import RunRecord

SID, MAD = "sid/sid", "sid/mad"
SWEPT = ("rounds", "alpha", "rho")
LABELS = {"rounds": "debate rounds", "alpha": "alpha (gate: alpha ln|V|)", "rho": "rho (top fraction kept)"}
FIGURES = {"rounds": "Fig. 2(b)", "alpha": "Fig. 2(f)", "rho": "Fig. 2(e)"}
GRIDS: dict[str, tuple[float, ...]] = {
    "rounds": (2, 3, 4),
    "alpha": (0.25, 0.5, 0.75, 1.0),
    "rho": (0.1, 0.2, 0.3, 0.35, 0.4, 0.5, 0.7),
}
DEFAULTS: dict[str, float] = {key: float(SidParams.model_fields[key].default) for key in SWEPT}
PAPER_QUESTIONS = 100


def value_text(key: str, value: float) -> str:
    return str(int(value)) if key == "rounds" else f"{value:g}"


def system(variant: str, key: str, value: float) -> str:
    """The system at ``key=value``: the bare variant at SID's default, else the variant with that one setting."""
    return f"sid/{variant}" if value == DEFAULTS[key] else f"sid/{variant}:{key}={value_text(key, value)}"


def grid(key: str) -> Callable[[str], tuple[float, ...]]:
    """An argparse type: a comma-separated grid of ``key``'s values, each one ``SidParams`` accepts."""

    def parse(text: str) -> tuple[float, ...]:
        values: list[float] = []
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            try:
                number = float(part)
                if key == "rounds" and not number.is_integer():
                    raise ValueError
                SidParams.model_validate({key: int(number) if key == "rounds" else number})
            except (ValueError, ValidationError):
                raise argparse.ArgumentTypeError(f"{part!r} is no value of {key} SID accepts") from None
            if number not in values:
                values.append(number)
        return tuple(values)

    return parse


def grid_systems(grids: dict[str, Sequence[float]]) -> list[str]:
    """MAD, SID at its defaults, SID at each grid value, and MAD at each number of rounds."""
    found = [MAD, SID]
    for key in SWEPT:
        for value in grids.get(key, ()):
            variants = ("mad", "sid") if key == "rounds" else ("sid",)
            found += [s for s in (system(v, key, value) for v in variants) if s not in found]
    return found


def _options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--questions",
        type=int,
        default=PAPER_QUESTIONS,
        metavar="N",
        help=f"MMLU-Pro questions (default {PAPER_QUESTIONS}, the paper's); --data replaces",
    )
    for key in SWEPT:
        default = ",".join(value_text(key, v) for v in GRIDS[key])
        parser.add_argument(
            f"--{key}-grid",
            type=grid(key),
            default=GRIDS[key],
            metavar="V,V,...",
            help=f"the values of {key} to sweep (default {default}; empty: no {key} panel)",
        )


def prepared(args: argparse.Namespace) -> argparse.Namespace:
    """The grids as systems (unless ``--systems`` named some) and MMLU-Pro (unless ``--data`` named a data set)."""
    if not args.systems:
        args.systems = ",".join(grid_systems({key: getattr(args, f"{key}_grid") for key in SWEPT}))
    if not args.data:
        args.data = [f"mmlu_pro={args.questions}"]
    return args


@dataclass(frozen=True)
class Point:
    key: str
    value: float
    system: str
    n: int
    accuracy: float
    ratio: float | None
    base: str | None  # the MAD the ratio is against


def _setting(name: str) -> tuple[str, str, float] | None:
    """``(variant, key, value)`` of a system with one swept setting, or at SID's defaults (key ``""``)."""
    base, _, tail = name.partition(":")
    if not base.startswith("sid/"):
        return None
    variant = base.removeprefix("sid/")
    if not tail:
        return variant, "", 0.0
    key, has, raw = tail.partition("=")
    if not has or key not in SWEPT or "," in raw:
        return None
    try:
        return variant, key, float(raw)
    except ValueError:
        return None


def points(debates: Sequence[SidDebate], systems: Sequence[str]) -> dict[str, list[Point]]:
    """Each swept parameter's points (by value), for the parameters the study ran at two values or more."""
    ran = {d.system for d in debates}
    present = [s for s in systems if s in ran]
    mads = {0.0: MAD} if MAD in present else {}
    for name in present:
        found = _setting(name)
        if found is not None and found[0] == "mad" and found[1] == "rounds":
            mads[found[2]] = name
    panels: dict[str, list[Point]] = {}
    for key in SWEPT:
        at: dict[float, str] = {}
        for name in present:
            found = _setting(name)
            if found is None or found[0] != "sid":
                continue
            if found[1] == "":
                at.setdefault(DEFAULTS[key], name)
            elif found[1] == key:
                at[found[2]] = name
        if len(at) < 2:
            continue
        row = []
        for value in sorted(at):
            name = at[value]
            mine = [d for d in debates if d.system == name]
            base = mads.get(value) if key == "rounds" and value != DEFAULTS[key] else mads.get(0.0)
            ratio = token_ratio(debates, name, base=base) if base is not None else None
            right = sum(d.correct for d in mine)
            row.append(Point(key, value, name, len(mine), right / len(mine), ratio, base))
        panels[key] = row
    return panels


def table_lines(debates: Sequence[SidDebate], systems: Sequence[str]) -> list[str]:
    """The sweeps as one table (empty when the study swept nothing)."""
    panels = points(debates, systems)
    if not panels:
        return []
    lines = [
        "",
        "## SID: the sweeps of rounds, alpha and rho (accuracy and token ratio against MAD, Fig. 2(b), (e), (f))",
        "",
        "| parameter | value | system | accuracy (n) | token ratio | against |",
        "|---|---|---|---|---|---|",
    ]
    for key, row in panels.items():
        for p in row:
            ratio = f"{p.ratio:.2f}" if p.ratio is not None else "-"
            lines.append(
                f"| {key} | {value_text(key, p.value)} | {p.system} | {100 * p.accuracy:.1f}% ({p.n}) | {ratio} "
                f"| {p.base or '-'} |"
            )
    lines += [
        "",
        "The token ratio is the paper's count (the answers' and revisions' prompt and generated tokens) over MAD's "
        "on the same questions; the rounds sweep compares each number of rounds with MAD of as many rounds where "
        "the study ran it. The paper (Llama-3.1-8B, MMLU-Pro): rho around 0.35-0.4 best, alpha 0.5 best; SID "
        "gains with more rounds.",
        "",
    ]
    return lines


def figure(debates: Sequence[SidDebate], systems: Sequence[str]) -> go.Figure | None:
    """One column per swept parameter: accuracy (%) above, token ratio against MAD below (None: nothing swept)."""
    panels = points(debates, systems)
    if not panels:
        return None
    keys = list(panels)
    fig = make_subplots(
        rows=2,
        cols=len(keys),
        shared_xaxes=True,
        subplot_titles=[f"{LABELS[k]} ({FIGURES[k]})" for k in keys],
        vertical_spacing=0.08,
    )
    for col, key in enumerate(keys, start=1):
        row = panels[key]
        xs = [p.value for p in row]
        fig.add_trace(
            go.Scatter(x=xs, y=[100 * p.accuracy for p in row], mode="lines+markers", name=f"accuracy, {key}"),
            row=1,
            col=col,
        )
        fig.add_trace(
            go.Scatter(x=xs, y=[p.ratio for p in row], mode="lines+markers", name=f"token ratio, {key}"),
            row=2,
            col=col,
        )
        fig.update_xaxes(title_text=key, row=2, col=col)
    fig.update_yaxes(title_text="accuracy (%)", row=1, col=1)
    fig.update_yaxes(title_text="token ratio vs MAD", row=2, col=1)
    fig.update_layout(showlegend=False)
    return fig


def _show(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[str]:
    return table_lines(sid_debates(store, runs, systems), systems)


SWEEP = Preset(
    "sid-sweep",
    "SID's sweeps of rounds, alpha and rho on MMLU-Pro: accuracy and token ratio against MAD (compare with "
    "the paper's settings)",
    {
        "systems": ("", "the systems (default: sid/mad, and sid/sid at each grid value)"),
        "mmlu": (0, "MMLU questions (default 0)"),
        "strategyqa": (0, "StrategyQA questions (default 0)"),
    },
    _show,
    options=_options,
    prepare=prepared,
)
COMMAND = command(SWEEP)
