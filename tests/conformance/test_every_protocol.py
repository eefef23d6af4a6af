"""The conformance suite: every registered protocol and variant, a newcomer's included, with no test written.

The cases come from the registry when the tests are collected (``protocol/variant``, e.g.
``parliament/british``), so a protocol a plugin registers (an installed package's entry point, or a
module named in ``DEBATE_PLUGINS``) is checked like the built-ins (``test_newcomer.py``). The engine-side
checks are the library's (``debate_core.testing``, which a plug-in's own suite can call); the
ones that need a front end are here: the store round trip, replay against live, the terminal and
the study report.
"""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from console.terminal import TerminalRenderer
from debate_core import ScriptedBackend
from debate_core.backends import factory
from debate_core.errors import ConfigError
from debate_core.events import DebateEnded, EndReason, Event, UnitDisclosed
from debate_core.protocols.registry import protocol_class
from debate_core.testing import (
    QUESTION,
    Case,
    case_for,
    case_ids,
    check_demo,
    check_folds,
    check_forms,
    check_hand_over,
    check_people,
    run_demo,
)
from experiments.compare import CompareRunner, CompareSpec, Item
from experiments.compare_report import full_markdown, outcomes
from protocols.kimura.study.metrics import EffectsFold
from storage import Store
from storage.writer import Writer
from tests.conformance.setups import params_for
from tests.test_folds import CONSUMERS
from ui import charts, render, web_plugins
from ui.view_model import DebateView

CASES = case_ids()


@pytest.fixture(params=CASES)
def case(request: pytest.FixtureRequest, tmp_path) -> Case:
    return case_for(request.param, params_for(request.param, tmp_path))


def debate_id(case: Case) -> str:
    return "conformance-" + re.sub(r"[^A-Za-z0-9_.-]", "-", case.id)


def test_its_scripted_demo_runs_to_an_end_and_the_stream_is_one_that_can_have_happened(case):
    run = check_demo(case)
    assert run.events[0].config.protocol == case.protocol.name  # type: ignore[attr-defined]
    assert run.events[0].config.variant == case.variant  # type: ignore[attr-defined]


def test_its_model_seats_can_be_handed_to_people_and_back_at_any_request(case):
    # a classroom seat: its model, a person, nobody (the turn passes), switched at every request
    run = check_hand_over(case)
    assert run.ended.reason not in (EndReason.STOPPED, EndReason.ERROR)


def test_every_consumer_in_the_project_consumes_its_stream(case):
    events = run_demo(case).events
    folds = [DebateView(), TerminalRenderer(Console(file=io.StringIO())), EffectsFold()]
    assert {type(fold) for fold in folds} | {Writer} == set(CONSUMERS)  # the Writer: the store's test below
    check_folds(events, folds)


def test_a_person_can_fill_every_form_in_every_seat_a_person_may_take(case):
    assert check_forms(run_demo(case)), "the models were asked nothing"  # each as a person would have been
    filled = check_people(case)
    assert filled and all(filled.values()), f"a seated person was asked nothing: {filled}"


def test_a_store_round_trip_gives_back_the_very_events(case, tmp_path):
    events = run_demo(case, debate_id=debate_id(case)).events
    store = Store(tmp_path / "s.sqlite3")
    try:
        assert list(store.record(iter(events))) == events
        assert store.events(debate_id(case)) == events
        summary = store.debate(debate_id(case))
        assert (summary.protocol, summary.variant, summary.status) == (case.protocol.name, case.variant, "finished")
    finally:
        store.close()


def panels(view: DebateView) -> tuple[str, ...]:
    """What the live page and the replay draw from a view (``ui.replay_panel.draw``, the figures aside)."""
    return (
        render.question_html(view),
        render.budget_html(view),
        render.transcript_html(view, show_discarded=True, private=True),
        render.transcript_html(view),
        render.result_html(view),
        render.rounds_html(view),
        *web_plugins.panel_html(view).values(),
        render.plans_html(view),
        render.plans_html(view, audience=True),
    )


def test_replay_from_the_store_draws_what_the_live_page_drew_at_every_turn(case, tmp_path):
    live = DebateView()
    drawn: dict[int, tuple[str, ...]] = {}

    def follow(event: Event) -> None:  # as the live session folds each event the debate yields
        if live.events and event.turn != live.turn:
            drawn[live.turn] = panels(live)
        live.apply(event)

    events = run_demo(case, debate_id=debate_id(case), on_event=follow).events
    drawn[live.turn] = panels(live)
    store = Store(tmp_path / "s.sqlite3")
    try:
        list(store.record(iter(events)))
        stored = store.events(debate_id(case))
    finally:
        store.close()
    for turn, seen in drawn.items():
        assert panels(DebateView.from_events([e for e in stored if e.turn <= turn])) == seen, f"turn {turn}"
    replay = DebateView.from_events(stored)
    assert replay == live
    assert replay.ended is not None
    for figure in (charts.trajectory_figure, charts.urgency_figure):
        assert figure(replay).to_json() == figure(live).to_json()


def test_the_terminal_shows_every_disclosed_unit_and_the_result(case):
    events = run_demo(case).events
    console = Console(record=True, width=400, file=io.StringIO(), highlight=False)
    renderer = TerminalRenderer(console, show_plans=True, show_thoughts=True, show_discarded=True)
    for event in events:
        renderer.show(event)
    shown = " ".join(console.export_text().split())
    missing = [e.text for e in events if isinstance(e, UnitDisclosed) and " ".join(e.text.split()) not in shown]
    assert missing == []
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert end.final_answer is None or end.final_answer in shown


def scripted(config):
    return factory.make_backend(factory.BackendSpec("scripted"), config)


def seat_backend(model: str, config) -> ScriptedBackend:
    responder = protocol_class(config.protocol).demo_responder(config)
    assert responder is not None
    return ScriptedBackend(responder, model_id=model)


def test_its_row_of_a_comparison_study_report_builds(case, tmp_path):
    """A variant the study harness cannot run is one that refuses a table of models only (it needs a
    person, as HandRaiser's ``human``): the harness refuses it with the protocol's own reason."""
    spec = CompareSpec(
        experiment_id="conformance", systems=(case.id,), mmlu=1, strategyqa=0, params={case.protocol.name: case.params}
    )
    item = Item("mmlu", "mmlu:0:greek", "toy", QUESTION)
    store = Store(tmp_path / "c.sqlite3")
    try:
        runner = CompareRunner(
            spec, store, scripted(spec.config(item, case.id)), [item], per_debate=scripted, seat_backend=seat_backend
        )
        if case.people:
            assert case.refusal
            with pytest.raises(ConfigError, match=re.escape(case.refusal)):
                runner.run()
            return
        summary = runner.run()
        assert (summary.finished, summary.failed, summary.aborted) == (1, 0, 0)
        _, found = outcomes(store, "conformance")
        text, _ = full_markdown(store, "conformance", spec, "scripted-demo", found)
    finally:
        store.close()
    assert [o.system for o in found] == [case.id]
    assert f"| mmlu | {case.id} |" in text and f"| all | {case.id} |" in text
