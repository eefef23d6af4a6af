"""An open event vocabulary: a plugin's own event types go everywhere the built-in ones go.

A protocol plugin (``tests/fixtures/plugins/tallied.py``) registers its protocol and two event
types through the hooks; its debate runs, is stored, read back, exported, imported, replayed and
rendered in the terminal (one type by its own renderer, the other generically) with no file
outside the plugin naming them. Every fold stays exhaustive over the registered types, a plugin's
mistakes are recorded and left out, the built-in protocols' own events come from their packages,
``console/`` names no protocol, and docs/events.md lists exactly the registered types.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError
from rich.console import Console

from console.terminal import TerminalRenderer
from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.events import (
    EVENT_TYPES,
    AnswersUpdated,
    EventBase,
    event_from_dict,
    event_to_dict,
    read_jsonl,
    registry,
    write_jsonl,
)
from debate_core.events.fold import EventFold, UnhandledEvent
from debate_core.plugins import problems
from debate_core.protocols import registry as protocols
from protocols.kimura.study.metrics import EffectsFold
from storage import Store
from storage.transcript import TranscriptError
from tests.conftest import QUESTION

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = "tests.fixtures.plugins"
TALLIED = f"{FIXTURES}.tallied"


# console/ files that still name a protocol (outside comments and docstrings): this list only shrinks.
@pytest.fixture(autouse=True)
def fresh_plugins(monkeypatch):
    """Every test finds the plugins afresh, and leaves the process's usual set behind it."""
    monkeypatch.delenv("DEBATE_PLUGINS", raising=False)
    protocols.reload()
    yield
    monkeypatch.delenv("DEBATE_PLUGINS", raising=False)
    protocols.reload()


def use_plugins(monkeypatch, *modules: str) -> None:
    monkeypatch.setenv("DEBATE_PLUGINS", ", ".join(modules))
    protocols.reload()


def tallied_debate() -> list[EventBase]:
    verdicts = iter(range(1, 100))

    def respond(request):
        if request.kind == "statement":
            return f"{request.agent} says B."
        return json.dumps({"answer": "B", "final": next(verdicts) >= 2})

    agents = (AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cy", role="judge"))
    config = DebateConfig(question=QUESTION, agents=agents, protocol="tallied")
    return Debate(config, ScriptedBackend(respond)).run()


def test_a_plugin_event_type_is_registered_with_the_plugin_that_brought_it(monkeypatch):
    use_plugins(monkeypatch, TALLIED)
    types = registry.registered()
    assert (types["tally_taken"].plugin, types["tally_taken"].source) == (TALLIED, "DEBATE_PLUGINS")
    assert types["unit_disclosed"].built_in and not types["tally_taken"].built_in
    assert {"tally_taken", "round_closed"} <= registry.plugin_types() and "tally_taken" in EVENT_TYPES
    # the built-in protocols' own events come through the same hook, from their packages
    assert types["analysis_made"].plugin == "protocols.ace.plugin"
    assert types["action_composed"].cls.__module__ == "protocols.ace.events"
    assert types["context_compressed"].plugin == "protocols.sid.plugin"
    assert problems() == []


def test_a_plugin_debate_with_its_own_events_is_stored_read_back_exported_imported_and_replayed(monkeypatch, tmp_path):
    use_plugins(monkeypatch, TALLIED)
    events = tallied_debate()
    kinds = [e.type for e in events]
    assert kinds.count("tally_taken") == 2 and kinds.count("round_closed") == 2
    tally = next(e for e in events if e.type == "tally_taken")
    assert type(tally).__name__ == "TallyTaken" and tally.votes == {"B": 1}  # type: ignore[attr-defined]
    assert kinds.index("tally_taken") == kinds.index("answers_updated") + 1

    for event in events:  # plain data and JSON lines
        assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event
    write_jsonl(events, tmp_path / "d.jsonl")
    assert list(read_jsonl(tmp_path / "d.jsonl")) == events

    store = Store(tmp_path / "s.sqlite3")
    try:
        assert list(store.record(iter(events))) == events
        debate_id = events[0].debate_id  # type: ignore[attr-defined]
        assert store.events(debate_id) == events
        assert store.debate(debate_id).status == "finished"
        exported = store.export_json(debate_id, tmp_path / "d.json")
    finally:
        store.close()
    other = Store(tmp_path / "other.sqlite3")
    try:
        assert other.import_json(exported) == debate_id
        replayed = other.events(debate_id)
    finally:
        other.close()
    assert replayed == events

    renderer = TerminalRenderer(Console(record=True, width=200))
    for event in replayed:
        renderer.show(event)
    text = renderer.console.export_text()
    assert "■ round 1 closed, B leads" in text  # the plugin's own renderer
    assert '• tally taken: judge=Cy, round=1, leading=B, votes={"B": 1}' in text  # nobody renders it: generic
    assert "Final answer: B" in text

    fold = EffectsFold()  # the metrics fold takes plugin events through its explicit default
    for event in replayed:
        fold.add(event)


def test_without_its_plugin_a_plugin_event_is_no_event(monkeypatch, tmp_path):
    use_plugins(monkeypatch, TALLIED)
    events = tallied_debate()
    store = Store(tmp_path / "s.sqlite3")
    try:
        list(store.record(iter(events)))
        exported = store.export_json(events[0].debate_id, tmp_path / "d.json")  # type: ignore[attr-defined]
    finally:
        store.close()
    tally = event_to_dict(next(e for e in events if e.type == "tally_taken"))

    monkeypatch.delenv("DEBATE_PLUGINS")
    protocols.reload()
    assert "tally_taken" not in EVENT_TYPES
    with pytest.raises(ValidationError, match="tally_taken"):
        event_from_dict(tally)
    other = Store(tmp_path / "other.sqlite3")
    try:
        with pytest.raises(TranscriptError, match=r"'tally_taken' is not an event type"):
            other.import_json(exported)
    finally:
        other.close()


def test_every_fold_must_handle_a_plugin_event_or_take_it_through_its_explicit_default(monkeypatch):
    use_plugins(monkeypatch, TALLIED)
    tally = registry.registered()["tally_taken"].cls(
        seq=3, turn=1, public_tokens=0, at=0.0, judge="Cy", round=1, leading="B", votes={"B": 2}
    )
    built_ins = frozenset(kind for kind, t in registry.registered().items() if t.built_in)

    class Strict(EventFold):
        IGNORED = built_ins

    assert set(Strict.unhandled()) == registry.plugin_types()
    with pytest.raises(UnhandledEvent, match="no handler for tally_taken"):
        Strict().dispatch(tally)

    class Defaulting(EventFold):
        IGNORED = built_ins - {"answers_updated"}
        PLUGIN_EVENTS = "default"

        def __init__(self) -> None:
            self.seen: list[str] = []

        def default_for_plugin_event(self, event):
            self.seen.append(event.type)

        def _round_closed(self, event):
            self.seen.append("handled")

    # the default takes plugin types only: a built-in type is still to be handled or ignored
    assert Defaulting.unhandled() == ["answers_updated"]
    assert "tally_taken" in Defaulting.defaulted() and "round_closed" not in Defaulting.defaulted()
    fold = Defaulting()
    fold.dispatch(tally)
    fold.dispatch(
        registry.registered()["round_closed"].cls(seq=4, turn=1, public_tokens=0, at=0.0, round=1, summary="s")
    )
    assert fold.seen == ["tally_taken", "handled"]
    with pytest.raises(UnhandledEvent, match="answers_updated"):
        fold.dispatch(AnswersUpdated(seq=5, turn=1, public_tokens=0, at=0.0, answers=(), cause="x"))

    class Careless(EventFold):
        PLUGIN_EVENTS = "default"  # but no default_for_plugin_event

    with pytest.raises(TypeError, match="defines no default_for_plugin_event"):
        Careless.unhandled()


def test_a_plugins_wrong_event_types_and_renderers_are_recorded_and_left_out(monkeypatch):
    use_plugins(monkeypatch, f"{FIXTURES}.bad_events", TALLIED)
    types = registry.registered()
    assert "fine_event" in types and "tally_taken" in types  # the right ones load
    assert types["unit_disclosed"].built_in  # a built-in type cannot be taken over
    assert {"not_an_event", "Shouting Loudly", "sentence_disclosed"}.isdisjoint(types)
    said = "\n".join(problems())
    assert "registered <class 'tests.fixtures.plugins.bad_events.NotAnEvent'> as an event type" in said
    assert "event type 'unit_disclosed' (Clashing) is taken by UnitDisclosed of built-in" in said
    assert "event type 'Shouting Loudly' is not lower-case letters" in said
    assert "Untyped declares no `type: Literal[...] = ...` field" in said
    assert "event type 'sentence_disclosed' (Renamed) is taken by a schema-1 type" in said

    renderer = TerminalRenderer(Console(record=True, width=200))
    renderer.show(types["fine_event"].cls(seq=1, turn=0, public_tokens=0, at=0.0, text="still shown"))
    assert "• fine event: text=still shown" in renderer.console.export_text()
    said = "\n".join(problems())
    assert "registered 'not a rendering' as a terminal rendering: not a TerminalRendering" in said
    assert "its terminal renderer for 'unit_disclosed' is left out (not a plugin's event type)" in said
    assert "its terminal renderer for 'fine_event' is left out (not callable)" in said


def test_the_generic_terminal_line_is_plain_text_and_bounded(monkeypatch):
    use_plugins(monkeypatch, f"{FIXTURES}.bad_events")
    renderer = TerminalRenderer(Console(record=True, width=400))
    renderer.show(registry.registered()["fine_event"].cls(seq=1, turn=0, public_tokens=0, at=0.0, text="[red]x" * 50))
    line = renderer.console.export_text().strip()
    assert line.startswith("• fine event: text=[red]x[red]x")  # markup is shown, never applied
    assert line.endswith("…") and len(line) < 160


def test_the_events_doc_lists_exactly_the_registered_types_and_who_defines_them():
    text = (ROOT / "docs" / "events.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([a-z_]+)` \| (.*) \| (.*) \| (.*) \|$", text, re.MULTILINE)
    documented = {kind: defined for kind, _meaning, _emitted, defined in rows}
    assert len(rows) == len(documented)  # each type once
    types = registry.registered()
    assert set(documented) == set(types)
    for kind, event_type in types.items():
        if event_type.built_in:
            assert documented[kind] == "built-in", kind
        else:
            package = event_type.cls.__module__.rsplit(".", 1)[0]
            assert documented[kind] == f"`{package}`", kind
