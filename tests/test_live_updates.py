"""Live updates merge and cost only what changed, without a browser (issue #30, defects 1 and 6).

Every page of a debate shares one drawing per change (``ui.live_cache``): its transcript lines equal the
full transcript at every event of every protocol's demo, a new sentence re-draws its own line and no
other, and a plot is sent again only when the data behind it changed (Gradio mounts a new plot for every
value it is sent, which ends a reader's drag-zoom: tests/browser/test_live_updates.py). A page
that has not taken its last update is sent nothing more until it has, then the latest state in one update.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json

import gradio as gr
import pytest

from debate_core import Debate
from debate_core.events import UnitDisclosed
from debate_core.testing import case_for, case_ids, run_demo
from protocols.kimura.demo import demo_backend, demo_config
from tests.conformance.setups import params_for
from tests.conftest import HANG_GUARD_S
from ui import charts, live_cache, render
from ui.live_stream import Drawn, LiveView, stream, updates
from ui.page_access import open_page
from ui.page_outbox import Outbox
from ui.seat_form import build_seat_form
from ui.session import LiveSession
from ui.view_model import DebateView


def kimura_events(**overrides):
    config = demo_config(seed=1, **overrides)
    return config, Debate(config, demo_backend(config)).run()


@pytest.mark.parametrize("case_id", case_ids())
def test_the_shared_lines_are_the_transcript_at_every_event_of_every_protocol(case_id, tmp_path):
    events = run_demo(case_for(case_id, params_for(case_id, tmp_path))).events
    view, shared = DebateView(), live_cache.Shared()
    for version, event in enumerate(events):
        view.apply(event)
        for discarded in (False, True):
            assert shared.lines(view, discarded, version) == render.transcript_lines(view, show_discarded=discarded)


def test_a_new_sentence_redraws_its_own_line_and_no_other_however_long_the_debate(monkeypatch):
    _, events = kimura_events(token_budget=600)
    drawn_lines = []
    real = render.line_html

    def counted(view, line, **options):
        drawn_lines.append(line)
        return real(view, line, **options)

    monkeypatch.setattr(render, "line_html", counted)
    view, shared = DebateView(), live_cache.Shared()
    per_sentence = []
    for version, event in enumerate(events):
        view.apply(event)
        before = len(drawn_lines)
        lines = shared.lines(view, False, version)
        if isinstance(event, UnitDisclosed):
            per_sentence.append(len(drawn_lines) - before)
            held = shared.lines(view, False, -1 - version)  # another version, nothing changed: all reused
            assert all(a is b for a, b in zip(lines, held, strict=True))
    assert len(per_sentence) > 40 and len(view.lines) > 15
    assert max(per_sentence) <= 2, per_sentence  # the speech that grew (and the segment it ended), never the rest
    assert max(per_sentence[-10:]) <= max(per_sentence[:10])  # no more at the end of the debate than at its start


def _view() -> LiveView:
    with gr.Blocks():
        return LiveView(*[gr.HTML() for _ in range(13)], build_seat_form(), *[gr.Button() for _ in range(4)])


def _session():
    """A session that is not started: the test feeds its view events and bumps its version by hand."""
    config, events = kimura_events(token_budget=300)
    return LiveSession(config, demo_backend(config)), events


def _feed(live: LiveSession, events, count: int) -> int:
    """Apply events until ``count`` more units are disclosed; returns how many events that took."""
    taken = 0
    while count and events:
        event = events.pop(0)
        with live.lock:
            live.view.apply(event)
        live._bump()
        taken += 1
        count -= isinstance(event, UnitDisclosed)
    return taken


def test_a_plot_is_sent_again_only_when_its_data_changed(monkeypatch):
    monkeypatch.setattr(live_cache, "FIGURE_EVERY_S", 0.0)  # every change rebuilt (the interval: tested below)
    live, events = _session()
    view, drawn = _view(), Drawn()
    plots = [view.urgency, view.trajectory, view.history]
    _feed(live, events, 3)
    first = dict(zip(view.outputs(), updates(live, drawn, view), strict=True))
    assert all(first[plot].type == "plotly" for plot in plots)
    again = dict(zip(view.outputs(), updates(live, drawn, view), strict=True))
    assert all(again[plot] == gr.skip() for plot in plots)  # nothing changed: nothing sent
    # the next disclosure changes the transcript; the plots only when their data did
    for _ in range(10):
        keys = charts.figure_keys(live.view)
        _feed(live, events, 1)
        sent = dict(zip(view.outputs(), updates(live, drawn, view), strict=True))
        now = charts.figure_keys(live.view)
        assert sent[view.delta] != gr.skip()
        for plot, name in zip(plots, charts.FIGURES, strict=True):
            assert (sent[plot] != gr.skip()) == (keys[name] != now[name]), name
    cache = live_cache.shared(live)
    assert cache.figure("history", live.view)[1] is cache.figure("history", live.view)[1]


def test_a_debates_plot_is_built_at_most_once_an_interval_and_its_latest_data_always_comes():
    """Every page of a running debate shares one build of a plot a ``FIGURE_EVERY_S``: a change sooner
    gives the last build with its older key (the page stays behind and asks again), a change after the
    interval is built; once the debate has ended or is paused the latest data is built at once."""
    live, events = _session()
    now = [100.0]
    cache = live_cache.Shared(clock=lambda: now[0])
    built: list[str] = []
    real = charts.figure_json
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(charts, "figure_json", lambda name, view: built.append(name) or real(name, view))
        _feed(live, events, 3)
        first_key, first = cache.figure("history", live.view)
        assert first_key == charts.figure_keys(live.view)["history"] and built == ["history"]
        while charts.figure_keys(live.view)["history"] == first_key:
            _feed(live, events, 1)
        now[0] += live_cache.FIGURE_EVERY_S / 2  # a change within the interval: the same build, its old key
        assert cache.figure("history", live.view) == (first_key, first) and built == ["history"]
        now[0] += live_cache.FIGURE_EVERY_S / 2  # the interval has passed: the latest data, built once
        key, plot = cache.figure("history", live.view)
        assert key == charts.figure_keys(live.view)["history"] != first_key and plot is not first
        assert cache.figure("history", live.view)[1] is plot and built == ["history"] * 2
        while charts.figure_keys(live.view)["history"] == key:
            _feed(live, events, 1)
        # settled (ended, paused): the last state at once, however soon
        last_key, last = cache.figure("history", live.view, settled=True)
        assert last_key == charts.figure_keys(live.view)["history"] != key and built == ["history"] * 3
        assert json.loads(last.plot) == json.loads(real("history", live.view))


def test_a_page_behind_the_shared_build_gets_the_latest_plot_when_the_interval_has_passed():
    """Two quick changes: the page is sent the plot once in the interval, then (asking again, as its stream
    does while it is behind) the latest data; the paused debate's plot is its latest data at once."""
    now = [0.0]
    live, events = _session()
    live_cache.shared(live).clock = lambda: now[0]
    view = _view()
    drawn = Drawn()
    _feed(live, events, 3)
    sent = dict(zip(view.outputs(), updates(live, drawn, view), strict=True))
    assert sent[view.history] != gr.skip()
    held = drawn.figures["history"]
    while charts.figure_keys(live.view)["history"] == held:
        _feed(live, events, 1)
    sent = dict(zip(view.outputs(), updates(live, drawn, view), strict=True))
    assert sent[view.history] == gr.skip() and drawn.figures["history"] == held  # within the interval
    now[0] += live_cache.FIGURE_EVERY_S
    sent = dict(zip(view.outputs(), updates(live, drawn, view), strict=True))
    latest = charts.figure_keys(live.view)["history"]
    assert sent[view.history] != gr.skip() and drawn.figures["history"] == latest
    assert json.loads(sent[view.history].plot) == json.loads(charts.figure_json("history", live.view))
    while charts.figure_keys(live.view)["history"] == latest:
        _feed(live, events, 1)
    live.status = "paused"
    sent = dict(zip(view.outputs(), updates(live, drawn, view), strict=True))
    assert sent[view.history] != gr.skip() and drawn.figures["history"] == charts.figure_keys(live.view)["history"]


def test_a_plot_sent_to_a_live_page_is_the_figure_the_replay_draws():
    """The live page's plot JSON carries the page's template made once (``charts.figure_json``), and the
    replay's figure (``FIGURES[name](view)``, a plotly object of the same drawing) is it, template included."""
    live, events = _session()
    for _ in range(6):
        _feed(live, events, 2)
        for name, draw in charts.FIGURES.items():
            sent = json.loads(charts.figure_json(name, live.view))
            assert sent == json.loads(draw(live.view).to_json()), name
            assert sent["layout"]["template"]["layout"]["plot_bgcolor"] == "white"  # plotly_white, as drawn


@pytest.mark.parametrize("case_id", case_ids())
def test_the_live_plots_written_without_plotly_are_plotlys_own_figures_for_every_protocol(case_id, tmp_path):
    """``charts.figure_json`` writes the JSON itself: at the empty view and at every change of a plot's data
    in every protocol's demo, plotly takes it (its figure objects validate every property, and raise on any
    it does not know) and writes it back unchanged, so the page draws what plotly means by it."""
    events = run_demo(case_for(case_id, params_for(case_id, tmp_path))).events
    view = DebateView()
    held: dict[str, object] = {}
    compared = 0
    for event in [None, *events]:
        if event is not None:
            view.apply(event)
        for name, key in charts.figure_keys(view).items():
            if held.get(name, ()) != key:
                held[name] = key
                compared += 1
                assert json.loads(charts.figure_json(name, view)) == json.loads(charts.FIGURES[name](view).to_json())
    assert compared > len(charts.FIGURES)


def test_a_page_that_has_not_taken_its_last_update_gets_the_latest_state_merged_in_one():
    live, events = _session()
    view = _view()
    page = open_page(live, {})
    unsent = [0]  # what Gradio holds for the page, unwritten to its connection

    async def watch() -> None:
        updates_ = stream(page, view, Outbox(lambda: unsent[0]))
        outputs = view.outputs()
        _feed(live, events, 1)
        first = dict(zip(outputs, await anext(updates_), strict=True))
        assert first[view.delta]["from"] == 0
        held = len(first[view.delta]["lines"])
        unsent[0] = 1  # the page is slow: its update is still queued
        pending = asyncio.ensure_future(anext(updates_))
        for _ in range(6):
            _feed(live, events, 1)
            await asyncio.sleep(0.05)
        assert not pending.done(), "an update was sent to a page that had not taken the last one"
        unsent[0] = 0
        merged = dict(zip(outputs, await asyncio.wait_for(pending, 10), strict=True))
        delta = merged[view.delta]
        with live.lock:
            now = render.transcript_lines(live.view)
        assert delta["from"] <= held and delta["lines"] == now[delta["from"] :]  # all six sentences, at once
        page.close()
        await updates_.aclose()

    # in a thread of its own: a browser test earlier in the same process may leave an event loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, watch()).result(timeout=HANG_GUARD_S)
