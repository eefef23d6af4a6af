"""The web app asks the plugins: panels, transcript lines, folds, wordings and live controls come from them.

A plugin protocol (``tests/fixtures/plugins/tallied.py`` and its web side ``tallied_web.py``) has its own panel
and line renderer; its event without a renderer is drawn generically; a broken panel or a wrong registration
is recorded and the page goes on. ``ui/`` and ``app.py`` name no protocol (the ratchet).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.plugins import problems
from debate_core.protocols import registry as protocols
from tests.conftest import QUESTION
from ui import live_panel, page_scripts, render, seat_state, web_plugins
from ui.view_model import DebateView

ROOT = Path(__file__).resolve().parent.parent
TALLIED = "tests.fixtures.plugins.tallied, tests.fixtures.plugins.tallied_web"
# Files of the web front end that still name a protocol in code (to move into the protocols' web.py): only shrinks.


@pytest.fixture(autouse=True)
def fresh_plugins(monkeypatch):
    """Every test finds the plugins afresh, and leaves the process's usual set behind it."""
    monkeypatch.delenv("DEBATE_PLUGINS", raising=False)
    protocols.reload()
    yield
    monkeypatch.delenv("DEBATE_PLUGINS", raising=False)
    protocols.reload()


def tallied_view(monkeypatch) -> DebateView:
    monkeypatch.setenv("DEBATE_PLUGINS", TALLIED)
    protocols.reload()
    verdicts = iter(range(1, 100))

    def respond(request):
        if request.kind == "statement":
            return f"{request.agent} says <b>B</b>."
        return json.dumps({"answer": "B", "final": next(verdicts) >= 2})

    agents = (AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cy", role="judge"))
    config = DebateConfig(question=QUESTION, agents=agents, protocol="tallied")
    return DebateView.from_events(Debate(config, ScriptedBackend(respond)).run())


def test_a_plugin_protocol_draws_its_own_lines_and_panel_and_its_unrendered_event_generically(monkeypatch):
    view = tallied_view(monkeypatch)
    page = render.transcript_html(view)
    assert page.count('class="line round-closed"') == 2  # its own renderer, once per round
    assert "■ round 1 closed, B leads" in page
    generic = re.findall(r'<div class="line event generic"[^>]*data-event="tally_taken">.*?</div>', page)
    assert len(generic) == 2  # no renderer: the event's type and fields, readable
    assert "tally taken" in generic[0] and "leading</span> B" in generic[0] and "votes</span> {B: " in generic[0]
    panels = web_plugins.panel_html(view)
    assert panels["tally"] == '<div class="tally">2 rounds closed</div>'
    assert panels["confidence"] == "" and panels["reading"] == ""  # another protocol's panels stay blank
    assert "Broken panel cannot be drawn (ValueError: this panel is broken)" in panels["broken"]
    assert any("web panel 'broken' failed: ValueError" in p for p in problems())
    assert any("registered str through register_web_renderers, not a WebRenderers" in p for p in problems())
    assert view.ended is not None and view.ended.final_answer == "B"


def test_a_generic_line_escapes_what_the_event_holds(monkeypatch):
    view = tallied_view(monkeypatch)
    line = next(line for line in view.lines if line.event is not None and line.event.type == "tally_taken")
    line.event = line.event.model_copy(update={"leading": "<script>alert(1)</script>"})
    drawn = web_plugins.generic_event_html(view, line)
    assert "<script>" not in drawn and "leading</span> &lt;script&gt;alert(1)&lt;/script&gt;</li>" in drawn


def test_a_failing_line_renderer_is_recorded_and_the_line_drawn_generically(monkeypatch):
    view = tallied_view(monkeypatch)
    renderers = web_plugins.web_renderers()
    broken = web_plugins.WebRenderers(lines={"round_closed": lambda view, line: 1 / 0})
    monkeypatch.setattr(web_plugins, "web_renderers", lambda: (broken, *renderers))
    page = render.transcript_html(view)
    assert 'data-event="round_closed"' in page and 'class="line round-closed"' not in page
    assert any("web line renderer of round_closed failed: ZeroDivisionError" in p for p in problems())


def test_a_live_control_set_whose_button_name_is_taken_is_left_out_and_recorded(monkeypatch):
    tallied_view(monkeypatch)
    assert [spec.name for spec in web_plugins.live_controls()] == ["floor", "point", "interrupt"]
    assert web_plugins.controls_named("tally-floor") is None
    assert any("live controls 'tally-floor'" in p and "['interrupt']" in p for p in problems())


def test_every_role_of_every_protocol_has_registered_live_controls_or_none():
    buttons = [p for spec in web_plugins.live_controls() for p in spec.buttons]
    assert len({p.name for p in buttons}) == len(buttons) and len({p.elem_id for p in buttons}) == len(buttons)
    for name, cls in protocols.available().items():
        for controls in {cls.human_controls, *(spec.controls for spec in cls.roles)} - {"none"}:
            assert web_plugins.controls_named(controls) is not None, (name, controls)


def test_every_button_is_a_guarded_control_and_has_its_key_on_the_page():
    script = page_scripts.page_js()
    for spec in web_plugins.live_controls():
        for press in spec.buttons:
            assert press.text or press.name in live_panel.CONTROLS  # words go through raise_point, also guarded
            if press.key:
                assert f'"{press.elem_id}"' in script
    keys = json.loads(re.search(r"const ids = (\{.*?\});", script)[1])
    assert keys["i"] == ["interrupt", "interrupt-now"] and keys["l"] == ["lower-hand", "interrupt-withdraw"]
    assert json.loads(re.search(r"const focus = (\{.*?\});", script)[1]) == {"p": ["point-text"]}


def test_a_set_follows_its_own_events_and_words_its_own_states():
    assert "Interrupt armed (urgency 7)" in seat_state.seat_state_html("armed", 7, "floor")
    assert "cut off after the chunk" in seat_state.seat_state_html("armed", 9, "interrupt")
    assert "Your request is in this turn&#x27;s plans." in seat_state.seat_state_html("queued", 9, "point")
    assert "the box opens below" in seat_state.seat_state_html("listening", 9, "none")
