"""The words a person reads, as a walk-through found them wrong (issue #30, items 12-14, 16, 18): the pure parts.

The browser shows the same in ``tests/browser/test_wording_defects.py``; the Analysis tab's committed studies
(item 15) are ``tests/test_ui_studies.py``.
"""

from __future__ import annotations

import json
import re

import pytest

from debate_core import Debate, HumanChannel, HumanSeat
from debate_core.config import DebateConfig
from debate_core.events import DebateEnded, UnitDisclosed
from debate_core.kernel.forms import FieldSpec
from debate_core.kernel.human import HumanRequest
from debate_core.protocols import registry
from protocols.kimura.demo import demo_backend, demo_config, follow_up_lines
from tests.conftest import of_type
from tests.test_human_seat import FORMS, make_view
from tests.test_ui_view import form_fields


def every_form():
    """(protocol, variant, form) for every registered protocol's every variant."""
    for name, cls in registry.available().items():
        for variant in cls.variants:
            for form in cls(variant, cls.Params()).forms().values():
                yield name, variant, form


# -- (12) "Sent your analyze." ------------------------------------------------------------------------------------


def test_a_seat_request_carries_its_forms_words_and_the_sent_note_says_them_not_the_kinds_name():
    from ui import seat_words

    channel = HumanChannel()
    HumanSeat("Jenny", channel, timeout_s=5).ask(FORMS["plan"], make_view(), turn=0)
    request = channel.pending(timeout_s=0)
    assert request is not None and request.description == FORMS["plan"].description
    assert seat_words.sent(request).startswith("Sent: an action plan")
    channel.close()
    for protocol, variant, form in every_form():
        asked = HumanRequest(1, form.kind, None, description=form.description)
        note, heading = seat_words.sent(asked), seat_words.heading(asked)
        assert form.description.strip(), f"{protocol}/{variant}: {form.kind} has no words for a person"
        assert note.startswith("Sent") and form.description.rstrip(".") in note, note
        assert "_" not in note and not note.startswith(f"Sent your {form.kind.replace('_', ' ')}"), note
        assert heading[:1].isupper() and heading.lower() == form.description.strip().lower()
    decision = HumanRequest(1, "listen", None, description="cut the speaker off now?")
    assert seat_words.sent(decision) == "Sent your answer to \u201ccut the speaker off now?\u201d"
    assert seat_words.sent(HumanRequest(1, "plan", None)) == "Sent."  # a form without words: no program name
    assert seat_words.prompt(HumanRequest(1, "rtc_first", None)) == "### Your turn"


def test_an_optional_field_says_so_once():
    from ui.seat_form import shown_label

    assert shown_label(FieldSpec("purpose", "text", "Purpose", required=False)) == "Purpose (optional)"
    assert shown_label(FieldSpec("x", "text", "Why (optional)", required=False)) == "Why (optional)"
    assert shown_label(FieldSpec("x", "text", "Answer")) == "Answer"
    view = make_view()
    for protocol, variant, form in every_form():
        try:
            fields = form.fields(view)
        except (AttributeError, TypeError, KeyError):  # another protocol's view: its own forms' labels below
            continue
        for spec in fields:
            assert shown_label(spec).count("(optional)") <= 1, (protocol, variant, spec.label)
    labels = [spec.label for spec in FORMS["plan"].fields(view)]
    assert "Purpose" in labels and "Private thought" in labels  # the seat form adds "(optional)", once


def test_a_set_up_error_reads_as_a_sentence():
    from ui.form_words import FormError, friendly
    from ui.setup_config import config_from_form

    with pytest.raises(FormError, match=r"^the question is empty$"):
        config_from_form(form_fields(question=""))
    with pytest.raises(FormError, match=r"^the question text is blank$"):
        config_from_form(form_fields(question="   "))
    long = {
        "loc": ("question", "options", 1),
        "type": "string_too_long",
        "input": "x" * 5000,
        "ctx": {"max_length": 2000},
    }
    assert friendly(long, []) == "option B is 5,000 characters long; the limit is 2,000"


# -- (14) a bad Agents value was blamed on the personas ------------------------------------------------------------


@pytest.mark.parametrize(
    ("agents", "said"),
    [
        (
            "Alex; Jenny; Sam",
            r"^Agents: 'Alex; Jenny; Sam' is not a name; the field takes 1 to 6 names separated by commas",
        ),
        ("Al!ex, Jenny", r"^Agents: 'Al!ex' is not a name; .*letters, digits, spaces and _-\.'"),
        ("", r"^Agents: 0 names given; the field takes 1 to 6 names"),
        ("A, B, C, D, E, F, G", r"^Agents: 7 names given"),
        ("Alex, Alex, Sam", r"^Agents: 'Alex' is named twice"),
        ("A" * 200 + ", B", r"^Agents: 'A{40}…' is not a name; .*up to 40"),
    ],
)
def test_a_bad_agents_value_names_the_agents_field_and_what_it_takes(agents, said):
    from ui.form_words import FormError
    from ui.setup_config import config_from_form

    personas = "Alex: You trust intuition.\nJenny: You are careful."  # lines that name the agents meant
    with pytest.raises(FormError, match=said):
        config_from_form(form_fields(agents=agents, personas=personas))


def test_a_persona_line_for_nobody_names_the_personas_and_the_agents_there_are():
    from ui.form_words import FormError
    from ui.setup_config import config_from_form

    with pytest.raises(FormError, match=r"^Personas: the line 'Bob: b' .*\(the Agents field names Ann, Ben, Cy\)$"):
        config_from_form(form_fields(personas="Ann: a\nBob: b"))


# -- (13) the model box ----------------------------------------------------------------------------------------------


def test_the_model_box_is_bounded_where_it_enters_the_server():
    from debate_core.errors import ConfigError
    from ui.backend_choice import MAX_MODEL_CHARS, model_box

    assert model_box("  HuggingFaceTB/SmolLM2-135M-Instruct ") == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert model_box(None) == ""
    with pytest.raises(ConfigError, match=rf"^Model id: 100,000 characters; .* at most {MAX_MODEL_CHARS} characters$"):
        model_box("x" * 100_000)
    with pytest.raises(ConfigError, match="one line"):
        model_box("org/name\nrm -rf")


def test_a_model_that_cannot_be_loaded_is_one_sentence(tmp_path, monkeypatch):
    from debate_core.backends.hf.loading import load_failure

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    hub = (
        "We couldn't connect to 'https://huggingface.co' to load the files, and couldn't find them in the cached "
        "files.\nCheck your internet connection or see how to run the library in offline mode at 'https://...'."
    )
    cases = [
        ("nope/nope", OSError(hub), "it is not in this machine's Hugging Face cache and the hub cannot be reached"),
        ("a b", OSError("Repo id must use alphanumeric chars ..."), "neither a folder on this machine nor a Hugging"),
        (str(tmp_path), ValueError("Couldn't instantiate the backend tokenizer from one of:\n(1) ..."), "that path"),
        ("org/gated", OSError("401 Client Error. You are trying to access a gated repo."), "refuses access"),
        ("org/missing", OSError("org/missing is not a local folder and is not a valid model identifier"), "no model"),
        ("org/odd", ValueError("Something odd happened. And more advice\nover lines."), "Something odd happened"),
    ]
    for source, error, why in cases:
        said = load_failure(source, error)
        assert said.startswith(f"could not load model {source!r}: ") and why in said, said
        assert "\n" not in said and "https://" not in said and said.endswith(".") and len(said) < 300, said
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert "HF_HUB_OFFLINE=1" in load_failure("org/name", OSError("not cached"))
    assert len(load_failure("x" * 300, OSError("?"))) < 400  # the id itself is cut


# -- (16) the budget -------------------------------------------------------------------------------------------------


def test_the_budget_says_the_last_sentence_is_said_whole_when_the_count_passes_it():
    from ui import render
    from ui.view_model import DebateView

    config = demo_config(seed=1, token_budget=30)
    events = Debate(config, demo_backend(config)).run()
    [ended] = of_type(events, DebateEnded)
    assert ended.reason.value == "budget" and ended.public_tokens > 30  # the paper's rule: the sentence is not cut
    view = DebateView.from_events(events)
    bar = render.budget_html(view)
    assert f"<b>{ended.public_tokens}</b> / 30 · budget reached (the sentence that reached it is said whole)" in bar
    assert 'title="Public tokens count the words disclosed to everyone.' in bar
    assert f"{ended.public_tokens}/30 (the sentence that reached it is said whole) public tokens" in render.result_html(
        view
    )
    running = DebateView.from_events(events[:5])
    assert "left</div>" in render.budget_html(running) and "budget reached" not in render.budget_html(running)


# -- (18) the scripted demo -----------------------------------------------------------------------------------------


def _sentences_by_speaker(config: DebateConfig) -> dict[str, list[str]]:
    said: dict[str, list[str]] = {}
    for event in of_type(Debate(config, demo_backend(config)).run(), UnitDisclosed):
        said.setdefault(event.speaker, []).append(event.text)
    return said


def test_the_demo_speakers_never_say_each_others_lines_and_it_stays_deterministic():
    config = demo_config(seed=1, token_budget=2000, max_turns=300)
    said = _sentences_by_speaker(config)
    assert len(said) == 3 and sum(map(len, said.values())) > 60  # a long debate: many follow-ups each
    for speaker, lines in said.items():
        others = {line for other, theirs in said.items() if other != speaker for line in theirs}
        assert not set(lines) & others, f"{speaker} repeats another speaker's line"
    assert said == _sentences_by_speaker(config)
    generic = config.model_copy(update={"question": config.question.model_copy(update={"text": "Which one?"})})
    lines = _sentences_by_speaker(generic)
    for speaker, mine in lines.items():
        others = {line for other, theirs in lines.items() if other != speaker for line in theirs}
        assert not set(mine) & others, f"{speaker} repeats another speaker's line on another question"


def test_each_seat_has_its_own_facts_for_any_number_of_agents():
    for agents in range(2, 7):
        dealt: dict[str, int] = {}
        for seat in range(agents):
            for count in range(12):
                fact = follow_up_lines(seat, count, agents)[1]
                assert dealt.setdefault(fact, seat) == seat, (agents, seat, fact)
    assert all(re.search(r"[.!?]$", line) for line in follow_up_lines(1, 0, 3))
    assert json.dumps(follow_up_lines(2, 5, 3))  # plain strings
