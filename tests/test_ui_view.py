"""The web app's parts without a browser: the view fold, HTML escaping, charts, live sessions."""

from __future__ import annotations

import json
import time

from debate_core import Debate, ScriptedBackend
from debate_core.config import SeatKind
from debate_core.events import Interrupted, PlansMade, SilentTurn, UnitDisclosed
from protocols.kimura.demo import demo_backend, demo_config
from ui import charts, render
from ui.session import LiveSession
from ui.view_model import DebateView

HOSTILE = '<script>window.x=1</script> <img src=x onerror="alert(1)"> & "quotes"'


def demo_events(**overrides):
    config = demo_config(seed=1, **overrides)
    return Debate(config, demo_backend(config)).run()


def test_the_view_folds_every_mechanism_of_a_debate():
    events = demo_events()
    view = DebateView.from_events(events)
    disclosed = [e for e in events if isinstance(e, UnitDisclosed)]
    assert sum(len(line.utterance.disclosed) for line in view.lines if line.utterance) == len(disclosed)
    assert sum(line.silence for line in view.lines) == sum(isinstance(e, SilentTurn) for e in events)
    cut = [u for u in view.utterances.values() if u.interrupted_by]
    interrupted = [e for e in events if isinstance(e, Interrupted)]
    assert len(cut) == len(interrupted) and all(u.discarded for u in cut)
    assert len(view.trajectory) == 1 + sum(isinstance(e, PlansMade) for e in events)
    assert view.ended is not None and view.public_tokens == events[-1].public_tokens


def test_the_correct_answer_is_hidden_from_a_seated_person_until_the_debate_ends():
    """A person at the table (and a classroom watching their screen) must not be shown the answer mid-debate."""
    seated = demo_events()  # models only: the answer is shown from the start
    assert "Correct answer: B" in render.question_html(DebateView.from_events(seated[:3]))
    config = demo_config(seed=1)
    agents = tuple(a.model_copy(update={"seat": SeatKind.HUMAN}) if a.name == "Jenny" else a for a in config.agents)
    started = seated[0].model_copy(update={"config": config.model_copy(update={"agents": agents})})
    running = DebateView.from_events([started])
    assert running.shown_answer is None and running.correct_answer == "B"
    page = render.question_html(running) + render.rounds_html(running)
    assert "Correct answer: B" not in page and "hidden while a person is seated" in page
    assert not any("correct" in (trace.name or "") for trace in charts.trajectory_figure(running).data)
    ended = DebateView.from_events([started, seated[-1]])
    assert ended.shown_answer == "B" and "Correct answer: B" in render.question_html(ended)


def test_replaying_a_prefix_shows_that_moment():
    events = demo_events()
    early = DebateView.from_events([e for e in events if e.turn <= 3])
    assert early.ended is None and early.turn == 3
    assert len(early.lines) < len(DebateView.from_events(events).lines)


def hostile_backend():
    def reply(request):
        if request.kind == "initial_answer":
            return json.dumps({"reason": HOSTILE, "answer": "B"})
        if request.kind == "plan":
            action = "speak" if "speak" in request.json_schema["properties"]["action"]["enum"] else "listen"
            return json.dumps({"thought": HOSTILE, "action": action, "urgency": 5, "purpose": HOSTILE, "answer": "B"})
        return f"First. {HOSTILE} Last."

    return ScriptedBackend(reply)


def test_everything_a_model_writes_is_escaped():
    config = demo_config(seed=1, token_budget=60)
    view = DebateView.from_events(Debate(config, hostile_backend()).run())
    pages = [
        render.transcript_html(view, show_discarded=True),
        render.plans_html(view),
        render.result_html(view),
        render.question_html(view),
    ]
    joined = "".join(pages)
    assert "<script>" not in joined and "<img" not in joined
    assert "&lt;script&gt;window.x=1&lt;/script&gt;" in pages[0]
    assert "onerror=&quot;alert(1)&quot;" in pages[1]


def test_audience_mode_hides_private_thoughts_and_purposes():
    view = DebateView.from_events(demo_events(token_budget=80))
    thought = next(iter(view.plans.values())).plan.thought
    assert thought in render.plans_html(view)
    assert thought not in render.plans_html(view, audience=True)


def test_charts_draw_empty_and_full_debates():
    empty = DebateView()
    assert [len(trace.x or ()) for trace in charts.urgency_figure(empty).data] == [0]
    assert all(len(trace.x or ()) == 0 for trace in charts.floor_history_figure(empty).data)
    full = DebateView.from_events(demo_events(token_budget=80))
    [bars] = charts.urgency_figure(full).data
    assert list(bars.x) == [a for a in full.agents if a in full.plans]
    assert list(bars.y) == [full.plans[a].plan.urgency for a in bars.x]
    dots = sum(len(trace.x) for trace in charts.floor_history_figure(full).data)
    assert dots == len(full.urgency_history) > 0
    names = {trace.name for trace in charts.trajectory_figure(full).data}
    assert {"Alex", "Chris", "Jenny", "correct (B)"} <= names


def wait(predicate, seconds=20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_a_live_session_runs_pauses_steps_and_stops():
    config = demo_config(seed=1)
    session = LiveSession(config, demo_backend(config), pace_s=0.05)
    session.pause()
    session.start()
    assert wait(lambda: session.held_at is not None), "the session never held at the pause"
    held = session.held_at
    assert session.view.turn == 1 and session.view.events == held  # it stopped at the first disclosure
    before = session.view.turn
    session.step()
    assert wait(lambda: session.status == "paused" and session.view.turn == before + 1)
    session.resume()
    assert wait(lambda: session.view.turn >= before + 5)
    session.stop()
    assert wait(lambda: session.done)
    assert session.view.ended is not None and session.view.ended.reason.value == "stopped"


def test_a_failing_backend_ends_the_session_with_its_message():
    config = demo_config(seed=1)
    session = LiveSession(config, ScriptedBackend(["not enough outputs"]), pace_s=0).start()
    assert wait(lambda: session.done)
    assert session.status == "failed" and "script ran out" in (session.error or "")


def test_the_app_serves_where_gradios_variables_say_unless_flags_say_otherwise(monkeypatch):
    import pytest

    from app import address

    monkeypatch.delenv("GRADIO_SERVER_NAME", raising=False)
    monkeypatch.delenv("GRADIO_SERVER_PORT", raising=False)
    assert address(None, None) == ("127.0.0.1", 7860)
    monkeypatch.setenv("GRADIO_SERVER_NAME", "0.0.0.0")
    monkeypatch.setenv("GRADIO_SERVER_PORT", "8123")
    assert address(None, None) == ("0.0.0.0", 8123)
    assert address("localhost", 9000) == ("localhost", 9000)
    monkeypatch.setenv("GRADIO_SERVER_PORT", "eighty")
    with pytest.raises(SystemExit, match="GRADIO_SERVER_PORT must be a port number"):
        address(None, None)


def form_fields(**overrides):
    fields = {
        "question": "Which letter comes second?",
        "options": "Alpha\nBeta",
        "answer": "B",
        "agents": "Ann, Ben, Cy",
        "personas": "",
        "human": "nobody (all agents are models)",
        "protocol": "kimura",
        "condition": "dynamic",
        "params": "{}",
        "roles": "",
        "budget": 300,
        "backend": "scripted demo (no model)",
        "model": "",
        "models": "",
        "temperature": 0.3,
        "seed": 1,
        "utterance_tokens": 80,
        "plan_tokens": 512,
        "layout": "cached",
        "pace": 0,
        "human_pacing": "wait for me",
        "human_seconds": 20,
    }
    fields.update(overrides)
    return fields


def test_the_set_up_form_builds_a_config_for_any_registered_protocol():
    import pytest

    from debate_core.protocols import registry
    from tests.protocols.judged_rounds import JudgedRounds
    from ui.form_words import FormError
    from ui.setup_config import config_from_form
    from ui.setup_panel import SetupForm

    assert set(form_fields()) == set(SetupForm.__dataclass_fields__) - {"sample"}
    config = config_from_form(form_fields())
    assert (config.protocol, config.variant, config.condition) == ("kimura", "dynamic", "dynamic")
    registry.register(JudgedRounds)
    try:
        judged = config_from_form(
            form_fields(protocol="judged-rounds", condition="standard", params='{"rounds": 2}', roles="Cy: judge")
        )
        assert judged.params == {"rounds": 2} and judged.agent("Cy").role == "judge"
        for bad, message in [
            ({"params": "{rounds"}, "not JSON"),
            ({"params": '{"rounds": 0}'}, "rounds"),
            ({"roles": "Zed: judge"}, "Name: role"),
            ({"condition": "loud"}, "no variant 'loud'"),
        ]:
            with pytest.raises(FormError, match=message):
                config_from_form(form_fields(**{"protocol": "judged-rounds", "condition": "standard", **bad}))
    finally:
        registry.unregister(JudgedRounds.name)
    # a protocol's roles decide how many agents it takes, and a person may sit in either of Parliament's
    two = config_from_form(form_fields(protocol="parliament", condition="british", agents="Ann, Ben", human="Ben"))
    assert [(a.name, a.seat.value) for a in two.agents] == [("Ann", "model"), ("Ben", "human")]
    solo = config_from_form(form_fields(protocol="parliament", condition="cot", agents="Ann"))
    assert solo.variant == "cot"
    with pytest.raises(FormError, match="no role left for Cy"):
        config_from_form(form_fields(protocol="parliament", condition="british"))
    with pytest.raises(FormError, match="at least 2 agents"):
        config_from_form(form_fields(agents="Ann"))


def test_the_forms_utterance_cap_and_layout_apply_to_the_parameters_field_as_the_page_shows_it():
    """The parameters field shows the protocol's defaults but not those the form has fields of its own for
    (Kimura's ``utterance_max_new_tokens`` and ``prompt_layout``; shown there with their defaults, they overrode
    the fields, and the embedded model's short debates ran uncapped on the paper's layout); a parameter the person
    types into the JSON still wins."""
    from ui.model_presets import FORM_SETTINGS, default_params
    from ui.setup_config import config_from_form

    shown = default_params("kimura")
    assert "history_window" in json.loads(shown) and not set(FORM_SETTINGS) & set(json.loads(shown))
    config = config_from_form(form_fields(params=shown, utterance_tokens=24, layout="cached"))
    assert config.params["utterance_max_new_tokens"] == 24 and config.params["prompt_layout"] == "cached"
    typed = json.dumps({**json.loads(shown), "utterance_max_new_tokens": 50, "prompt_layout": "paper"})
    mine = config_from_form(form_fields(params=typed, utterance_tokens=24, layout="cached"))
    assert mine.params["utterance_max_new_tokens"] == 50 and mine.params["prompt_layout"] == "paper"


def test_choosing_the_embedded_model_writes_the_protocols_small_model_params_visibly_and_another_model_undoes_them():
    """A protocol's parameters for small models (``Protocol.small_model_params``) reach the set-up form only when
    the embedded model is chosen: written into the parameters field (its label names them), undone by choosing
    another model, kept when the protocol is chosen with the embedded model already chosen; the form's config
    carries them. The protocol's own defaults stay its paper's."""
    import gradio as gr

    from debate_core.protocols import registry
    from tests.protocols.judged_rounds import JudgedRounds
    from tests.protocols.small_rounds import SmallRounds
    from ui.model_presets import EMBEDDED_DEFAULTS, PARAMS_LABEL, SMALL_MODELS, default_params, model_chosen
    from ui.session import SCRIPTED
    from ui.setup_config import config_from_form
    from ui.setup_panel import _protocol_chosen

    registry.register(SmallRounds)
    try:
        name = SmallRounds.name
        default = default_params(name)
        assert json.loads(default)["rounds"] == 3
        tiny = SMALL_MODELS[0]  # the embedded model's choices (in process, on llama.cpp): no model is loaded here
        for embedded in SMALL_MODELS:
            *short, params = model_chosen(embedded, name, default)
            assert short == [EMBEDDED_DEFAULTS[k] for k in ("budget", "utterance_tokens", "plan_tokens", "layout")]
            assert json.loads(params["value"]) == {**json.loads(default), "rounds": 1}
            assert params["label"].startswith(PARAMS_LABEL) and "small model: rounds=1" in params["label"]
        # the person's own edits stay; another model puts the default back where the small model's value stands
        edited = json.dumps({"rounds": 1, "early_end": False})
        *kept, back = model_chosen(SCRIPTED, name, edited)
        assert json.loads(back["value"]) == {"rounds": 3, "early_end": False} and back["label"] == PARAMS_LABEL
        assert all(k == gr.skip() for k in kept)  # the short settings stay as they are
        *_, mine = model_chosen(SCRIPTED, name, json.dumps({"rounds": 5}))
        assert json.loads(mine["value"]) == {"rounds": 5}  # not the small model's value: the person's, kept
        *_, unreadable = model_chosen(tiny, name, "{rounds")
        assert unreadable == gr.skip()  # left as typed; Start says what is wrong
        # choosing the protocol with the embedded model already chosen writes them too; with another, the defaults
        _, chosen, _ = _protocol_chosen(name, tiny)
        assert json.loads(chosen["value"])["rounds"] == 1 and "rounds=1" in chosen["label"]
        _, plain, _ = _protocol_chosen(name, SCRIPTED)
        assert plain["value"] == default and plain["label"] == PARAMS_LABEL
        config = config_from_form(
            form_fields(protocol=name, condition="standard", roles="Cy: judge", params=chosen["value"], backend=tiny)
        )
        assert config.params["rounds"] == 1
    finally:
        registry.unregister(SmallRounds.name)
    registry.register(JudgedRounds)  # a protocol that recommends nothing: its field is left alone
    try:
        assert model_chosen(tiny, JudgedRounds.name, default_params(JudgedRounds.name))[-1] == gr.skip()
    finally:
        registry.unregister(JudgedRounds.name)
