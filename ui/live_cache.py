"""What every page watching one live debate shares: its lines, texts and plots, drawn once per change.

What it does: ``shared(live)`` is the one ``Shared`` of a session (kept
beside it, weakly: it goes when the session goes). A classroom of forty pages
watching a debate then costs one drawing per change, not forty, and a
change costs its new sentence, not the whole debate:

- ``Shared.lines(view, discarded)``: the transcript as one HTML string per
  line, equal to ``render.transcript_lines``. A line is drawn again only
  when its *signature* changed (the few fields of its utterance its HTML
  depends on: units disclosed and discarded, the cut, the listeners'
  decisions, whether the debate has ended); a phase, a silence or an
  intervention never changes; a protocol's line (its renderer may read
  anything in the view) is drawn every time and its old string kept when
  the HTML is the same. An unchanged line is therefore the very same string
  object from one change to the next, so a page finds the first line it does
  not hold by identity (``first_new``), not by comparing text.
- ``Shared.texts(view, audience)``: the question card, the budget, the plans,
  the result, the answers per round and the side panels, drawn once per
  version of the session for each display.
- ``Shared.figure(name, view, settled)``: a plot as Gradio's ``PlotData`` (its
  plotly JSON) with the data key it was built from (``charts.figure_keys``),
  built once for that data however many pages show it, and **at most once a
  ``FIGURE_EVERY_S``** while the debate runs: a plot asked for sooner after
  its last build is that build, with its older key, so the page stays behind
  and asks again when the interval has passed (the latest data is always
  drawn, within an interval). ``settled`` (the debate has ended or is paused)
  builds from the latest data at once. Plotly is most of a live debate's
  cost: ten debates at once, each with a few pages, rebuilt every plot about
  every sentence, once per page's own timer. ``keys(view)`` says which data
  each page should hold.

Every method is called under the session's lock (``LiveSession.lock``),
which also guards the view being drawn. A ``Shared`` holds no reference to
its session, so the session can go.

What it does not do: decide what a page is sent (``live_stream``), draw
(``render``, ``charts``) or know Gradio's components.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ui import charts, render, web_plugins

if TYPE_CHECKING:
    from ui.session import LiveSession
    from ui.view_model import DebateView, Line

# A debate's plot is built at most this often while the debate runs (``Shared.figure``); sentences and texts
# are never held back.
FIGURE_EVERY_S = 1.0

_SHARED: weakref.WeakKeyDictionary[LiveSession, Shared] = weakref.WeakKeyDictionary()


def shared(live: LiveSession) -> Shared:
    """The drawings every page of ``live`` shares (made on first use)."""
    with live.lock:
        found = _SHARED.get(live)
        if found is None:
            found = _SHARED[live] = Shared()
        return found


def first_new(lines: Sequence[str], held: Sequence[str]) -> int:
    """The index of the first of ``lines`` a page holding ``held`` does not hold (by identity: the shared lines
    are the same objects while they do not change); ``len`` of the shorter when one is the other's start."""
    for index, (line, old) in enumerate(zip(lines, held, strict=False)):
        if line is not old and line != old:
            return index
    return min(len(lines), len(held))


def _signature(view: DebateView, line: Line, discarded: bool) -> tuple[Any, ...] | None:
    """What ``line``'s HTML depends on that can change; None for a line drawn every time (a protocol's)."""
    if line.silence or line.phase is not None or line.intervention is not None:
        return ()  # drawn from the event alone, which never changes
    u = line.utterance
    if line.event is not None or line.analysis is not None or line.acts or u is None:
        return None
    last = next(reversed(u.checks), None)
    return (
        line.start, line.end, len(u.disclosed), len(u.discarded), len(u.gaps), u.total, u.kind, u.error,
        u.interrupting, u.interrupted_by, u.suspended, u.completed, len(u.checks),
        len(u.checks[last]) if last is not None else 0, view.ended is None, discarded,
    )  # fmt: skip


@dataclass
class Shared:
    """One session's drawings, shared by its pages (see the module's docstring)."""

    _lines: dict[tuple[int, bool], tuple[Line, tuple[Any, ...] | None, str]] = field(default_factory=dict)
    _drawn: dict[bool, tuple[int, list[str]]] = field(default_factory=dict)
    _texts: dict[bool, tuple[int, dict[str, str]]] = field(default_factory=dict)
    _figures: dict[str, tuple[Hashable, Any, float]] = field(default_factory=dict)
    _interned: dict[str, str] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic  # when a figure was built (a test's own clock)

    def lines(self, view: DebateView, discarded: bool, version: int) -> list[str]:
        """The transcript lines (``render.transcript_lines``), unchanged ones as the same objects as before;
        ``version``: the session's (``LiveSession.version``), under which they are kept for the other pages."""
        memo = self._drawn.get(discarded)
        if memo is not None and memo[0] == version:
            return memo[1]
        drawn = [self._line(view, line, discarded) for line in view.lines]
        drawn += [self._interned.setdefault(html, html) for html in render.tail_lines(view)]
        self._drawn[discarded] = (version, drawn)
        return drawn

    def _line(self, view: DebateView, line: Line, discarded: bool) -> str:
        key = (id(line), discarded)
        signature = _signature(view, line, discarded)
        entry = self._lines.get(key)
        if entry is not None and entry[0] is line and signature is not None and entry[1] == signature:
            return entry[2]
        html = render.line_html(view, line, show_discarded=discarded)
        if entry is not None and entry[0] is line and entry[2] == html:
            html = entry[2]  # the same text: the same object, so pages see it unchanged by identity
        self._lines[key] = (line, signature, html)
        return html

    def texts(self, view: DebateView, audience: bool, version: int) -> dict[str, str]:
        """The page's texts but the status line (each page words its own): by name, and ``panel:NAME``."""
        memo = self._texts.get(audience)
        if memo is not None and memo[0] == version:
            return memo[1]
        old = memo[1] if memo is not None else {}
        drawn = {
            "question": render.question_html(view),
            "budget": render.budget_html(view),
            "plans": render.plans_html(view, audience=audience),
            "result": render.result_html(view),
            "rounds": render.rounds_html(view),
            **{f"panel:{name}": html for name, html in web_plugins.panel_html(view).items()},
        }
        drawn = {name: old[name] if old.get(name) == html else html for name, html in drawn.items()}
        self._texts[audience] = (version, drawn)
        return drawn

    def keys(self, view: DebateView) -> dict[str, Hashable]:
        """What each figure is drawn from now (``charts.figure_keys``)."""
        return charts.figure_keys(view)

    def figure(self, name: str, view: DebateView, settled: bool = False) -> tuple[Hashable, Any]:
        """The figure ``name`` of ``charts.FIGURES`` as Gradio's ``PlotData``, with the data key it was built
        from: built once per data key, and at most once a ``FIGURE_EVERY_S`` unless ``settled`` (the debate
        has ended or is paused: the latest data at once)."""
        from gradio.components.plot import PlotData

        key = charts.figure_keys(view)[name]
        memo = self._figures.get(name)
        now = self.clock()
        if memo is not None and (memo[0] == key or (not settled and now - memo[2] < FIGURE_EVERY_S)):
            return memo[0], memo[1]
        plot = PlotData(type="plotly", plot=charts.figure_json(name, view))
        self._figures[name] = (key, plot, now)
        return key, plot
