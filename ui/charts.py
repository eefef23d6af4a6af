"""Plotly figures drawn from a ``DebateView``: urgency now, who wanted the floor, answer trajectories.

What it does: three small figure builders, each a pure function of the view:

* ``urgency_figure``: this turn's urgency per agent, coloured by agent, the
  action written on the bar (hatched when the agent only listens);
* ``floor_history_figure``: every plan of the debate as a dot (turn × agent),
  size = urgency, filled when the agent asked for the floor;
* ``trajectory_figure``: each agent's answer against public tokens used, the
  correct answer marked when it is known (``DebateView.shown_answer``: not while a person is seated).

``figure_keys`` says, in brief, what each is drawn from (a live page is sent a
figure again only when its key changed); ``figure_json`` is the one drawing
of each: its plotly JSON written from the view's data without plotly's objects
(their validation, and the template's, cost 10-20 ms a figure; the dicts well
under 1 ms), its template's JSON made once. The live page is sent that JSON;
the builders above make plotly objects of it for the replay and the tests.

Names and answers appear as plot data, which plotly renders as text.

Every figure the page shows is drawn on a transparent background with grey
grid lines (``on_page``), so that it sits on Gradio's light or dark page
alike; the page's style sheet colours the figures' text with the theme's
text colour. Titles sit at the top, under plotly's toolbar; the answers
chart's legend sits between its title and the plot area (in two rows on a
phone), clear of the axis title under the plot.

What it does not do: talk to Gradio or decide when to redraw.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Hashable
from typing import Any

import plotly.graph_objects as go

from ui.view_model import DebateView

# Grey that reads on a white and on a near-black page; the style sheet gives the text the theme's own colour.
_GREY = "#808a99"
_GRID = "rgba(128, 138, 153, 0.28)"
_CLEAR = "rgba(0, 0, 0, 0)"
_AXIS = {"gridcolor": _GRID, "zerolinecolor": _GRID, "linecolor": _GRID}
PAGE_LAYOUT: dict[str, Any] = {
    "template": "plotly_white",
    "paper_bgcolor": _CLEAR,
    "plot_bgcolor": _CLEAR,
    "font": {"color": _GREY},
    "legend": {"bgcolor": _CLEAR},
}
# Titles sit under plotly's toolbar (about 30 px at the figure's top right, wide on a phone).
_LAYOUT = {"margin": {"l": 40, "r": 10, "t": 62, "b": 30}, "height": 260}
# The answers chart: room under its title for the legend's rows (two on a phone), above the plot area,
# left-aligned (the x-axis title is under the plot). The page shows no label over the figures' titles.
_LEGEND_ROOM = {"margin": {"l": 40, "r": 10, "t": 114, "b": 30}, "height": 290}
_BESIDE = {**_LAYOUT, "height": 290}  # the chart beside the answers chart, as tall
_TOP_LEGEND = {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.02, "yanchor": "bottom", "bgcolor": _CLEAR}


def _title(text: str) -> dict[str, Any]:
    """A title at the figure's top, under plotly's toolbar: the space between it and the plot area holds a legend."""
    return {"text": text, "yref": "container", "y": 1, "yanchor": "top", "pad": {"t": 34}}


def on_page(figure: go.Figure) -> go.Figure:
    """``figure`` for the page: transparent backgrounds, grey grid lines (light and dark mode both); in place.

    For the figures drawn elsewhere (the Analysis tab's); this module's own are drawn so by ``_page_layout``."""
    figure.update_layout(**PAGE_LAYOUT)
    figure.update_xaxes(**_AXIS)
    figure.update_yaxes(**_AXIS)
    return figure


def figure_keys(view: DebateView) -> dict[str, Hashable]:
    """What each figure (by ``FIGURES`` name) is drawn from, in brief: a figure whose key did not change
    would be drawn the same, so a live page need not be sent it again."""
    return {
        "urgency": (view.plans_turn, len(view.urgency_history), view.agents),
        "trajectory": (
            len(view.trajectory), view.shown_answer, max(view.budget, view.public_tokens, 1), view.labels, view.agents
        ),
        "history": (len(view.urgency_history), view.agents),
    }  # fmt: skip


@functools.cache
def _template_json() -> str:
    """``PAGE_LAYOUT``'s template as plotly writes it into a figure's JSON (made once)."""
    layout = go.Figure(layout={"template": PAGE_LAYOUT["template"]}).to_json()
    return json.dumps(json.loads(layout)["layout"]["template"], separators=(",", ":"))


def _page_layout(**layout: Any) -> dict[str, Any]:
    """``layout`` on the page (``on_page`` but the template), as plotly writes it into a figure's JSON."""
    drawn: dict[str, Any] = {k: v for k, v in PAGE_LAYOUT.items() if k != "template"}
    drawn["legend"] = {**drawn["legend"], **layout.pop("legend", {})}
    for axis in ("xaxis", "yaxis"):
        drawn[axis] = {**_AXIS, **layout.pop(axis, {})}
    return {**drawn, **layout}


def _urgency_data(view: DebateView) -> dict[str, Any]:
    """The urgency figure's JSON without its template, drawn without plotly's objects (as ``_history_data``)."""
    agents = [a for a in view.agents if a in view.plans]
    plans = [view.plans[a].plan for a in agents]
    bar = {
        "hovertemplate": "%{x}: urgency %{y} (%{text})<extra></extra>",
        "marker": {
            "color": [view.colour(a) for a in agents],
            "pattern": {"shape": ["/" if not p.wants_floor else "" for p in plans]},
        },
        "text": [p.action.value for p in plans],
        "textposition": "outside",
        "x": agents,
        "y": [p.urgency for p in plans],
        "type": "bar",
    }
    layout = _page_layout(
        title=_title(f"Urgency, turn {max(view.plans_turn, 0)}"), yaxis={"range": [0, 10], "dtick": 1}, **_LAYOUT
    )
    return {"data": [bar], "layout": layout}


def _history_data(view: DebateView) -> dict[str, Any]:
    """The floor-history figure's JSON without its template: the dicts plotly would write, made directly
    (plotly's objects validate every property and took most of a live debate's CPU)."""
    traces = []
    for agent in view.agents:
        rows = [r for r in view.urgency_history if r[1] == agent]
        traces.append(
            {
                "hovertemplate": "turn %{x}: %{text}<extra>" + agent + "</extra>",
                "marker": {
                    "color": view.colour(agent),
                    "size": [6 + 2.5 * r[3] for r in rows],
                    "symbol": ["circle" if r[2] != "listen" else "circle-open" for r in rows],
                },
                "mode": "markers",
                "name": agent,
                "text": [f"{r[2]} {r[3]}" for r in rows],
                "x": [r[0] for r in rows],
                "y": [agent] * len(rows),
                "type": "scatter",
            }
        )
    layout = _page_layout(
        title=_title("Who wanted the floor (filled = speak/interrupt)"),
        showlegend=False,
        xaxis={"title": {"text": "turn"}},
        **_BESIDE,
    )
    return {"data": traces, "layout": layout}


def _trajectory_data(view: DebateView) -> dict[str, Any]:
    """The answers figure's JSON without its template (as ``_history_data``)."""
    traces: list[dict[str, Any]] = []
    for agent in view.agents:
        points = [(tokens, answers.get(agent)) for tokens, _turn, answers in view.trajectory]
        traces.append(
            {
                "line": {"color": view.colour(agent), "shape": "hv"},
                "mode": "lines+markers",
                "name": agent,
                "x": [max(0, tokens) for tokens, _ in points],
                "y": [answer for _, answer in points],
                "type": "scatter",
            }
        )
    right = max(view.budget, view.public_tokens, 1)
    if view.shown_answer:
        traces.append(
            {
                "hoverinfo": "skip",
                "line": {"color": "#16a34a", "dash": "dash", "width": 2},
                "mode": "lines",
                "name": f"correct ({view.shown_answer})",
                "x": [0, right],
                "y": [view.shown_answer] * 2,
                "type": "scatter",
            }
        )
    yaxis = {"type": "category", "categoryorder": "array", "categoryarray": list(view.labels)} if view.labels else {}
    layout = _page_layout(
        title=_title("Answers against public tokens"),
        legend=_TOP_LEGEND,
        xaxis={"title": {"text": "public tokens"}, "range": [0, right]},
        yaxis=yaxis,
        **_LEGEND_ROOM,
    )
    return {"data": traces, "layout": layout}


# Each of ``FIGURES`` as the dicts of its JSON, without its template, drawn without plotly.
_DATA: dict[str, Callable[[DebateView], dict[str, Any]]] = {
    "urgency": _urgency_data,
    "trajectory": _trajectory_data,
    "history": _history_data,
}


def figure_json(name: str, view: DebateView) -> str:
    """The figure ``name`` of ``FIGURES`` as plotly JSON: the one drawing of it, live and in the replay.

    Built without plotly: its figure objects validate every property they are given, and setting a
    template copies and validates it, 10-20 ms a figure on the project's machine, most of the server's
    CPU with ten debates at once; here the JSON is written from the view's data (``_DATA``) with the
    template's JSON made once. ``FIGURES`` makes plotly objects of it (validated then) for the replay."""
    drawn = _DATA[name](view)
    compact = (",", ":")
    data = json.dumps(drawn["data"], separators=compact)
    layout = json.dumps(drawn["layout"], separators=compact)  # never empty: the page's colours at least
    return f'{{"data":{data},"layout":{layout[:-1]},"template":{_template_json()}}}}}'


def _figure(name: str, view: DebateView) -> go.Figure:
    """The figure ``name`` as a plotly object, from the same JSON a live page is sent (one drawing of it)."""
    return go.Figure(json.loads(figure_json(name, view)))


def urgency_figure(view: DebateView) -> go.Figure:
    """This turn's urgency per agent, coloured by agent, the action on the bar (hatched when it only listens)."""
    return _figure("urgency", view)


def floor_history_figure(view: DebateView) -> go.Figure:
    """Every plan as a dot (turn x agent), size = urgency, filled when the agent asked for the floor."""
    return _figure("history", view)


def trajectory_figure(view: DebateView) -> go.Figure:
    """Each agent's answer against public tokens used, the correct answer dashed when it may be shown."""
    return _figure("trajectory", view)


# The figures a live page shows, by name (``figure_keys`` says what each is drawn from).
FIGURES: dict[str, Callable[[DebateView], go.Figure]] = {
    "urgency": urgency_figure,
    "trajectory": trajectory_figure,
    "history": floor_history_figure,
}
