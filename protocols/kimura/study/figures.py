"""The study's figures as plotly objects, numbered as in the paper.

What it does: ``study_figures(data)`` builds

* Figures 1-2: majority-vote intermediate-answer accuracy against public
  tokens, one line per condition with its 95% band, per setting;
* Figures 3-8: the same per agent, one figure per setting and condition;
* Figure 9: improve / worsen success rates of interruptions per 50-token bin
  (two incorrect, one correct, as in the paper; 9b: the other setting);
* an extra figure of final accuracy per setting and condition with intervals.

Each comes with a file stem and a caption; the report writes them to HTML
and PNG and the web app's Analysis tab shows them.

What it does not do: compute metrics (``analysis``) or write files (``report``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from debate_core.config import Condition
from experiments.accuracy import Accuracy
from protocols.kimura.study.analysis import (
    DEFAULT_STEP,
    StudyData,
    Trajectory,
    final_accuracy,
    interruption_bins,
    trajectories,
)
from protocols.kimura.study.pool import AGENTS, CORRECT_AGENTS, Setting

CONDITION_NAMES = {
    Condition.FIXED: "Fixed order",
    Condition.DYNAMIC: "Dynamic order",
    Condition.INTERRUPTIBLE: "Proposed (interruptible)",
}
SETTING_NAMES = {
    Setting.TWO_INCORRECT: "two incorrect, one correct",
    Setting.ONE_INCORRECT: "one incorrect, two correct",
}
COLOURS = {
    Condition.FIXED: "#7f7f7f",
    Condition.DYNAMIC: "#1f77b4",
    Condition.INTERRUPTIBLE: "#d62728",
    "Alex": "#9467bd",
    "Chris": "#2ca02c",
    "Jenny": "#ff7f0e",
}
FIGURE_NUMBERS = {
    (Setting.TWO_INCORRECT, Condition.FIXED): 3,
    (Setting.TWO_INCORRECT, Condition.DYNAMIC): 4,
    (Setting.TWO_INCORRECT, Condition.INTERRUPTIBLE): 5,
    (Setting.ONE_INCORRECT, Condition.FIXED): 6,
    (Setting.ONE_INCORRECT, Condition.DYNAMIC): 7,
    (Setting.ONE_INCORRECT, Condition.INTERRUPTIBLE): 8,
}


@dataclass(frozen=True)
class NamedFigure:
    stem: str  # file name without extension
    caption: str
    figure: go.Figure


def _rgba(colour: str, alpha: float) -> str:
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


def _line_with_band(fig: go.Figure, x: Sequence[int], values: Sequence[Accuracy], name: str, colour: str) -> None:
    lows = [v.interval[0] for v in values]
    highs = [v.interval[1] for v in values]
    band_x = list(x) + list(reversed(x))
    fig.add_trace(
        go.Scatter(
            x=band_x,
            y=highs + list(reversed(lows)),
            fill="toself",
            fillcolor=_rgba(colour, 0.12),
            mode="lines",
            line={"width": 0},
            hoverinfo="skip",
            showlegend=False,
            legendgroup=name,
        )
    )
    fig.add_trace(
        go.Scatter(
            x=list(x),
            y=[v.value for v in values],
            mode="lines+markers",
            name=name,
            legendgroup=name,
            line={"color": colour, "width": 2},
            marker={"size": 5},
            customdata=[[v.correct, v.n, lo, hi] for v, lo, hi in zip(values, lows, highs, strict=True)],
            hovertemplate="%{x} tokens: %{y:.1%} (%{customdata[0]}/%{customdata[1]}, "
            "95% CI %{customdata[2]:.1%}-%{customdata[3]:.1%})<extra>" + name + "</extra>",
        )
    )


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str) -> go.Figure:
    fig.update_layout(
        title={"text": title, "font": {"size": 15}},
        xaxis_title=x_title,
        yaxis_title=y_title,
        yaxis={"range": [-0.02, 1.02], "tickformat": ".0%"},
        template="plotly_white",
        legend={"orientation": "h", "y": -0.18},
        margin={"l": 60, "r": 20, "t": 60, "b": 80},
        height=460,
        autosize=True,
    )
    return fig


def study_figures(
    data: StudyData, step: int = DEFAULT_STEP, paths: dict[tuple[Setting, Condition], Trajectory] | None = None
) -> list[NamedFigure]:
    """Every figure; ``paths``: the trajectories if already computed for ``step``."""
    paths = paths if paths is not None else trajectories(data, step)
    n_questions = len({d.run.question_key for d in data.debates})
    found: list[NamedFigure] = []
    for setting in data.settings:
        fig = go.Figure()
        for condition in data.conditions:
            path = paths[(setting, condition)]
            _line_with_band(fig, path.grid, path.majority, CONDITION_NAMES[condition], COLOURS[condition])
        paper_number = 1 if setting is Setting.TWO_INCORRECT else 2
        title = f"Figure {paper_number}. Majority-vote accuracy, {SETTING_NAMES[setting]} (n={n_questions} questions)"
        found.append(
            NamedFigure(
                f"fig{paper_number}_majority_{setting.value}",
                title,
                _layout(fig, title, "cumulative public tokens", "intermediate-answer accuracy"),
            )
        )
    for setting in data.settings:
        for condition in data.conditions:
            path = paths[(setting, condition)]
            fig = go.Figure()
            for agent in AGENTS:
                role = "correct at start" if agent in CORRECT_AGENTS[setting] else "incorrect at start"
                _line_with_band(fig, path.grid, path.agents[agent], f"{agent} ({role})", COLOURS[agent])
            number = FIGURE_NUMBERS[(setting, condition)]
            title = f"Figure {number}. Per-agent accuracy, {CONDITION_NAMES[condition]}, {SETTING_NAMES[setting]}"
            found.append(
                NamedFigure(
                    f"fig{number}_agents_{setting.value}_{condition.value}",
                    title,
                    _layout(fig, title, "cumulative public tokens", "intermediate-answer accuracy"),
                )
            )
    if Condition.INTERRUPTIBLE in data.conditions:
        for setting in data.settings:
            suffix = "" if setting is Setting.TWO_INCORRECT else "b"
            found.append(_bins_figure(data, setting, f"Figure 9{suffix}"))
    found.append(_final_figure(data))
    return found


def _bins_figure(data: StudyData, setting: Setting, label: str) -> NamedFigure:
    bins = interruption_bins(data, setting)
    names = [f"{b.low}-{b.high}<br>n={b.improve.n} / {b.worsen.n}" for b in bins]
    fig = go.Figure()
    for attribute, name, colour in (
        ("improve", "improve success rate", "#2ca02c"),
        ("worsen", "worsen success rate", "#d62728"),
    ):
        values: list[Accuracy] = [getattr(b, attribute) for b in bins]
        fig.add_trace(
            go.Bar(
                x=names,
                y=[v.value if v.n else None for v in values],
                name=name,
                marker_color=colour,
                customdata=[[v.correct, v.n] for v in values],
                hovertemplate="%{y:.1%} (%{customdata[0]}/%{customdata[1]})<extra>" + name + "</extra>",
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [v.interval[1] - v.value if v.n else 0 for v in values],
                    "arrayminus": [v.value - v.interval[0] if v.n else 0 for v in values],
                },
            )
        )
    title = f"{label}. Interruption success rates by public tokens, {SETTING_NAMES[setting]}"
    fig.update_layout(barmode="group")
    stem = "fig9_bins" if setting is Setting.TWO_INCORRECT else "fig9b_bins"
    return NamedFigure(
        f"{stem}_{setting.value}",
        title,
        _layout(fig, title, "public tokens at the interruption (n: correct / incorrect interrupters)", "rate"),
    )


def _final_figure(data: StudyData) -> NamedFigure:
    fig = go.Figure()
    for condition in data.conditions:
        values = [final_accuracy(data, s, condition) for s in data.settings]
        fig.add_trace(
            go.Bar(
                x=[SETTING_NAMES[s] for s in data.settings],
                y=[v.value for v in values],
                name=CONDITION_NAMES[condition],
                marker_color=COLOURS[condition],
                text=[f"{100 * v.value:.0f}%<br>n={v.n}" for v in values],
                textposition="inside",
                insidetextanchor="start",
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [v.interval[1] - v.value for v in values],
                    "arrayminus": [v.value - v.interval[0] for v in values],
                },
            )
        )
    title = "Final majority-vote accuracy (Tables V and VI), 95% intervals"
    fig.update_layout(barmode="group")
    return NamedFigure("final_accuracy", title, _layout(fig, title, "setting", "final accuracy"))
