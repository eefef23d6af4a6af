"""The web app's set-up for HandRaiser's tasks without a browser: each protocol's demo question, Text Pictionary's
secret kept from a seated guesser (and shown to a seated describer), and the models per role."""

from __future__ import annotations

import json

import gradio as gr
import pytest

from debate_core import AgentSpec, DebateConfig
from debate_core.errors import ConfigError
from debate_core.protocols.registry import protocol_class
from protocols.handraiser.tests.test_ui_handraiser import wait
from tests.test_ui_view import form_fields
from ui import charts, render, seat_words, web_plugins
from ui.backend_choice import OPEN_MODELS_ENV, SERVER, page_models
from ui.session import SCRIPTED, LiveSession, backend_for
from ui.setup_config import config_from_form
from ui.setup_fields import demo_fill, question_for_protocol
from ui.view_model import DebateView


def shared() -> tuple[str, str, str]:
    return demo_fill("kimura")


# -- the demo question per protocol


def test_choosing_scheduling_fills_its_task_statement_and_another_protocol_restores_the_shared_question():
    scheduling = question_for_protocol("scheduling", *shared())
    case = protocol_class("scheduling").demo_question()
    assert case is not None and scheduling == [case.text, "", "valid"]
    assert "{" not in scheduling[0] and '"travel"' not in scheduling[0]  # the statement, not the case's JSON
    assert question_for_protocol("handraiser", *scheduling) == list(shared())
    assert question_for_protocol("pictionary", *shared()) == list(shared())  # no demo of its own: the shared one
    edited = ("Which planet is largest?", "Mars\nJupiter", "B")
    assert question_for_protocol("scheduling", *edited) == [gr.skip()] * 3  # the person's own question stays


def test_the_scheduling_demo_question_carries_its_case_to_the_debate_and_an_edited_one_does_not():
    text, options, answer = demo_fill("scheduling")
    fields = {"protocol": "scheduling", "condition": "generic", "agents": "Alex, Chris, Jenny"}
    config = config_from_form(form_fields(question=text, options=options, answer=answer, **fields))
    case = protocol_class("scheduling").demo_question()
    assert case is not None and config.question.context == case.context
    assert json.loads(config.question.context)["id"] in text
    events = LiveSession(config, backend_for(SCRIPTED, config)).debate.run()
    first = next(e for e in events if e.type == "phase_started")
    assert first.detail.startswith(json.loads(case.context)["id"])  # the case the question names is played
    assert events[-1].final_answer == "valid" and events[-1].correct is True
    edited = config_from_form(form_fields(question=text + " Soon.", options="", answer="valid", **fields))
    assert edited.question.context == ""


def test_a_seated_travelers_card_shows_the_statement_and_nothing_of_the_case():
    text, options, answer = demo_fill("scheduling")
    fields = {"protocol": "scheduling", "condition": "human", "agents": "Alex, Chris, Jenny", "human": "Alex"}
    config = config_from_form(form_fields(question=text, options=options, answer=answer, **fields))
    session = LiveSession(config, backend_for(SCRIPTED, config), human="Alex").start()
    try:
        assert session.channel is not None
        request = session.channel.pending(timeout_s=20)
        assert request is not None and "MEET <person> AT <location>" in request.prompt
        assert "MEET &lt;person> AT &lt;location>" in seat_words.prompt(request)  # shown whole, not taken for tags
        card = render.question_html(session.view)
        assert text.replace("'", "&#x27;") in card and "hard constraints" in card
        assert '"travel"' not in card and "&quot;travel&quot;" not in card and "AM" not in card
    finally:
        session.stop()


# -- Text Pictionary's secret


def pictionary(person: str, variant: str) -> LiveSession:
    config = config_from_form(
        form_fields(
            **dict(zip(("question", "options", "answer"), demo_fill("pictionary"), strict=True)),
            protocol="pictionary",
            condition=variant,
            agents="Alex, Chris",
            human=person,
        )
    )
    return LiveSession(config, backend_for(SCRIPTED, config), human=person).start()


def everything_drawn(session: LiveSession) -> str:
    """Every piece of the live page a debate fills, researcher view, discarded units shown."""
    view = session.view
    pieces = [
        render.question_html(view),
        render.plans_html(view),
        render.result_html(view),
        render.rounds_html(view),
        render.transcript_html(view, private=True),
        *render.transcript_lines(view, show_discarded=True),
        *web_plugins.panel_html(view).values(),
    ]
    figures = [charts.trajectory_figure(view), charts.urgency_figure(view), charts.floor_history_figure(view)]
    return "".join(pieces) + "".join(figure.to_json() for figure in figures)


def test_a_seated_guesser_never_sees_the_secret_until_the_game_ends_and_then_the_card_says_it_was_solved():
    session = pictionary("Chris", "human")
    try:
        assert session.channel is not None
        for guess in ("Oxygen", "Argon", "Nitrogen"):
            request = session.channel.pending(timeout_s=20)
            assert request is not None and request.kind == "guess"
            drawn = everything_drawn(session)
            assert "Nitrogen" not in drawn and "nitrogen" not in drawn.lower()
            assert "hidden from you, the guesser" in render.question_html(session.view)
            assert "Oxygen" not in render.question_html(session.view)  # no option gives it away
            session.channel.submit(request.request_id, {"text": guess})
        assert wait(lambda: session.done)
        card = render.question_html(session.view)
        assert "The secret was <b>Nitrogen</b>" in card and "solved: the guesser named it" in card
        assert "✓ correct" in render.result_html(session.view)
    finally:
        session.stop()


def test_a_seated_describer_is_shown_the_secret_they_describe():
    session = pictionary("Alex", "generic")
    try:
        assert session.channel is not None
        request = session.channel.pending(timeout_s=20)
        assert request is not None and request.kind == "describe"
        assert "The secret you describe: <b>Nitrogen</b>" in render.question_html(session.view)
    finally:
        session.stop()


def test_with_only_models_the_card_names_the_secret():
    config = DebateConfig(
        question=web_plugins.demo_config().question,
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris")),
        protocol="pictionary",
        variant="generic",
    )
    session = LiveSession(config, backend_for(SCRIPTED, config))
    view = DebateView.from_events(session.debate.run()[:1])
    assert "The secret: <b>Nitrogen</b>" in render.question_html(view)


# -- models per role


def handraiser(person: str = "") -> DebateConfig:
    seat = {"condition": "human", "human": person} if person else {"condition": "generic"}
    return config_from_form(form_fields(protocol="handraiser", agents="Alex, Chris, Jenny", **seat))


def test_models_per_role_route_each_seat_and_the_card_says_which_model_sits_where():
    config = handraiser()
    models = page_models("moderator=scripted:listener-small\n\nAlex = scripted:speaker-big", SCRIPTED, config)
    assert {who: m.label for who, m in models.items()} == {
        "moderator": "scripted:listener-small",
        "Alex": "scripted:speaker-big",
    }
    session = LiveSession(config, backend_for(SCRIPTED, config, "", models)).start()
    try:
        assert wait(lambda: session.done)
        assert session.view.seat_models == {"Alex": "speaker-big", "Chris": "scripted-demo", "Jenny": "listener-small"}
        card = render.question_html(session.view)
        assert "models: " in card and '<span class="seat-model">Jenny: listener-small</span>' in card
        assert session.view.ended is not None and session.view.ended.error is None
    finally:
        session.stop()


def test_a_person_has_no_model_and_one_model_everywhere_keeps_the_plain_card():
    config = handraiser("Jenny")
    models = page_models("pro=scripted:speaker-big", SCRIPTED, config)
    session = LiveSession(config, backend_for(SCRIPTED, config, "", models), human="Jenny")
    assert session.view.seat_models == {"Alex": "speaker-big", "Chris": "scripted-demo"}
    plain = LiveSession(config, backend_for(SCRIPTED, config), human="Jenny")
    assert plain.view.seat_models == {}


@pytest.mark.parametrize(
    ("text", "choice", "message"),
    [
        ("moderator", SCRIPTED, "write WHO=SPEC"),
        ("nobody=scripted", SCRIPTED, "no such agent or role"),
        ("Alex=scripted\nAlex=transformers", SCRIPTED, "given twice"),
        ("Alex=vllm:some-model", SCRIPTED, "unknown backend kind 'vllm'"),
        ("Alex=/etc/passwd", SCRIPTED, "letters, digits"),
        ("Alex=transformers:models/../../etc", SCRIPTED, "not a path on this machine"),
        ("Alex=transformers:tests", SCRIPTED, "not a path on this machine"),  # a folder of the app's checkout
        ("Alex=llamacpp:model.gguf", SCRIPTED, "write Alex=llamacpp"),
        ("Alex=openai:gpt-4o@http://10.0.0.1:8000/v1", SERVER, "address is not taken here"),
        ("Alex=openai:gpt-4o", SCRIPTED, "runs on the server the Model field names"),
        ("Alex=scripted:<script>", SCRIPTED, "letters, digits"),
        ("\n".join(f"Alex{i}=scripted" for i in range(13)), SCRIPTED, "at most 12 lines"),
        ("Alex=scripted:" + "x" * 300, SCRIPTED, "the limit is 300"),
    ],
)
def test_what_a_page_may_not_name_is_refused_with_a_line_that_says_why(text, choice, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        page_models(text, choice, handraiser())


def test_hub_ids_kinds_alone_and_a_server_model_are_taken_and_the_operator_may_open_paths(monkeypatch):
    config = handraiser()
    taken = page_models("Alex=org/model-1.5B\nChris=transformers\nJenny=llamacpp", SCRIPTED, config)
    assert {who: m.label for who, m in taken.items()} == {
        "Alex": "transformers:org/model-1.5B",
        "Chris": "transformers",
        "Jenny": "llamacpp",
    }
    assert page_models("Alex=served-name", SERVER, config)["Alex"].label == "openai:served-name"
    monkeypatch.setenv(OPEN_MODELS_ENV, "1")
    opened = page_models("Alex=transformers:./models/mine\nJenny=openai:m@http://127.0.0.1:9/v1", SCRIPTED, config)
    assert opened["Alex"].model == "./models/mine" and opened["Jenny"].base_url == "http://127.0.0.1:9/v1"
