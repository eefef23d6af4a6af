"""Every consumer of events handles every event type, or ignores it on purpose.

The recorder, the web view model, the terminal renderer and the metrics are ``EventFold``s.
A new event type (built-in, or registered by a plugin) fails here until each of them handles
it, lists it in ``IGNORED`` or, for a plugin's type, takes it through its explicit default
(``PLUGIN_EVENTS = "default"``); at run time an unhandled type raises instead of being dropped
silently.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from rich.console import Console

import console
import experiments
import storage
import ui
from console.terminal import TerminalRenderer
from debate_core import AgentSpec, Debate, DebateConfig
from debate_core.events import EVENT_TYPES, SilentTurn
from debate_core.events.fold import EventFold, UnhandledEvent
from debate_core.protocols import registry
from protocols.kimura.study.metrics import EffectsFold
from storage.writer import Writer
from tests.conftest import QUESTION
from tests.protocols.tour import Tour, tour_backend
from ui.view_model import DebateView

CONSUMERS = [Writer, DebateView, TerminalRenderer, EffectsFold]


def _all_folds() -> set[type]:
    for package in (console, experiments, storage, ui):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not module.name.endswith("__main__"):
                importlib.import_module(module.name)
    found, todo = set(), [EventFold]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.add(sub)
            todo.append(sub)
    return {cls for cls in found if not cls.__module__.startswith("tests.")}


def test_every_consumer_in_the_project_is_checked_here():
    assert _all_folds() == set(CONSUMERS)


@pytest.mark.parametrize("consumer", CONSUMERS, ids=lambda c: c.__name__)
def test_every_event_type_is_handled_or_ignored_on_purpose(consumer):
    assert consumer.unhandled() == []
    assert consumer.unknown() == []


@pytest.mark.parametrize("consumer", CONSUMERS, ids=lambda c: c.__name__)
def test_every_consumer_stays_exhaustive_with_a_plugins_own_event_types(consumer, monkeypatch):
    monkeypatch.setenv("DEBATE_PLUGINS", "tests.fixtures.plugins.tallied")
    registry.reload()
    try:
        assert {"tally_taken", "round_closed"} <= set(EVENT_TYPES)
        assert consumer.unhandled() == []
        assert consumer.unknown() == []
    finally:
        monkeypatch.delenv("DEBATE_PLUGINS")
        registry.reload()


def test_a_consumer_that_meets_an_unknown_event_type_fails_loudly():
    class Partial(EventFold):
        IGNORED = frozenset(set(EVENT_TYPES) - {"silent_turn"})

    assert Partial.unhandled() == ["silent_turn"]
    with pytest.raises(UnhandledEvent, match="no handler for silent_turn"):
        Partial().dispatch(SilentTurn(seq=0, turn=1, public_tokens=0, at=0.0, consecutive=1))


@pytest.mark.parametrize("variant", ["regenerate", "streaming"])
def test_every_consumer_takes_a_debate_that_uses_every_kernel_move(tmp_path, variant):
    registry.register(Tour)
    try:
        agents = tuple(AgentSpec(name=n) for n in ("Ann", "Chris", "Dee"))
        config = DebateConfig(question=QUESTION, protocol="tour", variant=variant, agents=agents)
        events = Debate(config, tour_backend()).run()
        view = DebateView.from_events(events)
        assert view.ended is not None and view.decisions and view.acts
        assert bool(view.signals) is (variant == "regenerate")  # the streamed speech is not measured
        renderer = TerminalRenderer(Console(record=True, width=120))
        for event in events:
            renderer.show(event)
        text = renderer.console.export_text()
        assert "But is the count zero-based?" in text and "resumes" in text
        fold = EffectsFold()
        for event in events:
            fold.add(event)
        from storage import Store

        store = Store(tmp_path / "s.sqlite3")
        assert list(store.record(iter(events))) == events
        assert store.events(events[0].debate_id) == events
        store.close()
    finally:
        registry.unregister(Tour.name)
