"""HandRaiser in the web app without a browser: the moderator's seat, the vote's wording, token chunks on the page."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debate_core import AgentSpec, Debate, DebateConfig
from debate_core.events import ListenerDecision, UtteranceGenerated
from debate_core.kernel.human import HumanRequest
from protocols.handraiser.demo import ANSWERING
from tests.conftest import HANG_GUARD_S, QUESTION
from ui import render, seat_form, seat_words
from ui.form_words import FormError
from ui.seat_state import seat_state_html
from ui.session import SCRIPTED, LiveSession, backend_for
from ui.setup_config import config_from_form, seat_roles
from ui.view_model import DebateView, Line, Utterance, unit_gaps

MODERATOR = "Jenny"
ROOT = Path(__file__).resolve().parents[3]


def handraiser(variant: str = "human", *, seated: bool = True, **params) -> DebateConfig:
    agents = tuple(
        AgentSpec(name=name, seat="human" if seated and name == MODERATOR else "model")
        for name in ("Alex", "Chris", MODERATOR)
    )
    return DebateConfig(question=QUESTION, agents=agents, protocol="handraiser", variant=variant, params=params)


def wait(predicate, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def words_of(line: str) -> str:
    """A transcript line's words as a reader sees them (private decisions hidden, as on the live page)."""
    words = re.search(r'<div class="words">(.*)</div></div>$', line)
    assert words is not None
    shown = re.sub(r'<span class="(decision|cut|more)"[^>]*>.*?</span>', "", words.group(1))
    return html.unescape(re.sub(r"<[^>]+>", "", shown)).strip()


def test_a_moderators_interrupt_cuts_at_the_next_chunk_once_and_the_vote_waits_for_the_person():
    config = handraiser()
    session = LiveSession(config, backend_for(SCRIPTED, config), human=MODERATOR, pace_s=0.05).start()
    try:
        assert session.controls == "interrupt"
        assert wait(lambda: any(u.disclosed for u in session.view.utterances.values())), "Pro never spoke"
        session.interrupt()
        assert session.seat_state == "armed"
        assert session.channel is not None
        request = session.channel.pending(timeout_s=20)
        assert request is not None and request.kind == "vote"
        # the press was spent on Pro, cut after a chunk; Con was heard out with the stance back to listening
        pro, con = list(session.view.utterances.values())[:2]
        assert pro.interrupted_by == MODERATOR and pro.discarded and len(pro.disclosed) < pro.total
        assert con.interrupted_by is None and len(con.disclosed) == con.total
        assert session.seat_state == "interrupted Alex" and session.channel.stance()["intent"] == "listen"
        yes = [d for d in session.view.decisions if d.interrupt]
        assert [(d.listener, d.speaker) for d in yes] == [(MODERATOR, "Alex")]
        # the vote's form says what each choice does
        assert seat_words.choices(request, request.fields[0]) == [
            ("Vote for Pro: " + request.view.pro_position, "pro"),
            ("Vote for Con: " + request.view.con_position, "con"),
            ("Wait another round", "wait"),
        ]
        assert seat_words.prompt(request).startswith("### Your vote, round 1\nVote for a side")
        con_answer = request.view.con_position.split(")")[0]  # "B) Nitrogen": the answer B
        session.channel.submit(request.request_id, {"vote": "con"})
        assert wait(lambda: session.done)
        ended = session.view.ended
        assert ended is not None and ended.final_answer == con_answer and ended.reason.value == "verdict"
        lines = render.transcript_lines(session.view)
        assert any('<span class="badge kind">vote</span>' in line and "I vote for Con" in line for line in lines)
        assert any('<span class="role">moderator</span>' in line for line in lines)
        assert sum("✂ cut off by Jenny" in line for line in lines) == 1
    finally:
        session.stop()


def test_the_moderators_badge_says_whom_they_cut_off_and_offers_only_interrupt():
    armed = seat_state_html("armed", 9, "interrupt")
    assert "cut off after the chunk" in armed and "urgency" not in armed and "Raise hand" not in armed
    after = seat_state_html("interrupted Alex", 9, "interrupt")
    assert 'data-state="interrupted Alex"' in after and "You cut Alex off" in after and "cutoff-banner" not in after


@pytest.mark.parametrize("chunk_tokens", [3, 5, 16])
def test_token_chunks_are_drawn_as_the_text_had_them(chunk_tokens):
    config = handraiser("generic", seated=False, chunk_tokens=chunk_tokens, max_rounds=1)
    events = Debate(config, backend_for(SCRIPTED, config)).run()
    view = DebateView.from_events(events)
    statements = [e for e in events if isinstance(e, UtteranceGenerated) and e.kind == "statement"]
    lines = {line.utterance.id: line for line in view.lines if line.utterance is not None}
    for statement in statements:
        line = render._line_html(view, lines[statement.utterance_id], show_discarded=False)
        assert words_of(line) == statement.text  # no space invented before "." or "'s", none lost
    private = render.transcript_html(view, private=True)
    assert private.count('class="decision"') == sum(isinstance(e, ListenerDecision) for e in events)


def test_unit_gaps_mark_chunks_that_end_inside_a_word():
    assert unit_gaps("I hold that D) Argon. Consider", ("I hold", "that D) Arg", "on", ". Consider")) == [
        " ",
        "",
        "",
        " ",
    ]
    assert unit_gaps("edited", ("not in the text",)) == [" "]


def test_a_cut_mid_word_shows_the_rest_of_the_word_only_among_the_discarded():
    text = "Nitrogen is seventy-eight percent of dry air."
    utterance = Utterance(id=9, speaker="Alex", turn=1, kind="statement", total=3)
    utterance.gaps = unit_gaps(text, ("Nitrogen is seven", "ty-eight percent", "of dry air."))
    utterance.disclosed = ["Nitrogen is seven"]
    utterance.interrupted_by, utterance.discarded = MODERATOR, ["ty-eight percent", "of dry air."]
    view = DebateView()
    drawn = render._line_html(view, Line(turn=1, utterance=utterance), show_discarded=True)
    assert '<span class="sentence">Nitrogen is seven</span> <span class="cut"' in drawn
    assert '<span class="discarded">ty-eight percent</span> <span class="discarded">of dry air.</span>' in drawn
    utterance.interrupted_by, utterance.discarded = None, []
    going = render._line_html(view, Line(turn=1, utterance=utterance), show_discarded=False)
    assert '<span class="sentence">Nitrogen is seven</span><span class="more">…</span>' in going


def test_another_kinds_choices_keep_their_values():
    from debate_core.kernel.forms import FieldSpec

    spec = FieldSpec("vote", "choice", "Your vote", choices=("A", "B"))
    request = HumanRequest(1, "vote", object(), (spec,), prompt="Pick one")
    assert seat_words.choices(request, spec) == [("A", "A"), ("B", "B")]
    assert seat_words.prompt(request) == "Pick one"


def form(**overrides):
    from tests.test_ui_view import form_fields

    return form_fields(protocol="handraiser", condition="human", agents="Alex, Chris, Jenny", **overrides)


def test_the_set_up_form_seats_a_person_as_the_moderator_in_seat_order():
    assert seat_roles("handraiser", "human", "Alex, Chris, Jenny") == {
        "Alex": "pro",
        "Chris": "con",
        "Jenny": "moderator",
    }
    assert seat_roles("handraiser", "human", "Alex, Chris, Jenny", "Alex: moderator")["Alex"] == "moderator"
    assert seat_roles("kimura", "interruptible", "Alex, Chris, Jenny") == {}
    config = config_from_form(form(human="Jenny"))
    assert (config.protocol, config.variant, config.agent("Jenny").seat.value) == ("handraiser", "human", "human")
    with pytest.raises(FormError, match="needs a person in the moderator's seat"):
        config_from_form(form())
    with pytest.raises(FormError, match="needs a person in the moderator's seat"):
        config_from_form(form(human="Alex"))


def test_a_person_as_moderator_waits_with_a_question_which_is_shown_and_answered_next_round():
    config = handraiser("generic")
    session = LiveSession(config, backend_for(SCRIPTED, config), human=MODERATOR, pace_s=0.0).start()
    asked = "Which fact settles it?"
    try:
        assert session.channel is not None
        request = session.channel.pending(timeout_s=20)
        assert request is not None and request.kind == "vote"
        assert [(f.name, f.kind, f.required) for f in request.fields] == [
            ("vote", "choice", True),
            ("question", "text", False),
        ]
        assert "you may ask both sides a clarifying question" in seat_words.prompt(request)
        slots = [None] * sum(seat_form.SLOTS.values())
        slots[0], slots[seat_form.SLOTS["choice"] + seat_form.SLOTS["integer"]] = "wait", asked  # as the page sends
        session.channel.submit(request.request_id, seat_form.values(request, slots))
        request = session.channel.pending(timeout_s=20)
        assert request is not None and request.kind == "vote" and request.view.round == 2
        session.channel.submit(request.request_id, {"vote": "con"})
        assert wait(lambda: session.done)
        question, _ = [u for u in session.view.utterances.values() if u.speaker == MODERATOR]
        assert question.kind == "question" and "".join(question.disclosed).endswith(asked)
        round_two = [u for u in session.view.utterances.values() if u.kind == "statement"][2:]
        assert len(round_two) == 2 and all(u.disclosed[0].startswith(ANSWERING.strip()) for u in round_two)
        lines = render.transcript_lines(session.view)
        assert any('<span class="badge kind">question</span>' in line and asked in line for line in lines)
    finally:
        session.stop()


def test_a_person_at_the_terminal_asks_the_moderators_question_on_the_vote_line(tmp_path):
    out = tmp_path / "events.jsonl"
    command = [sys.executable, "-m", "debate_core", "run", "--protocol", "handraiser", "--variant", "generic",
               "--backend", "scripted", "--human", MODERATOR, "--events-jsonl", str(out)]  # fmt: skip
    stdin = "wait Which fact settles it?\ncon\n"  # seed 0: Con argues B, the correct answer
    result = subprocess.run(command, capture_output=True, text=True, input=stdin, cwd=ROOT, timeout=HANG_GUARD_S)
    assert result.returncode == 0, result.stderr
    assert "[question…]" in result.stdout  # the line's hint names the question box
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    said = [e for e in events if e["type"] == "utterance_generated" and e["speaker"] == MODERATOR]
    assert [e["kind"] for e in said] == ["question", "vote"]
    assert said[0]["structured"] == {"question": "Which fact settles it?"} and said[0]["source"] == "human"
    statements = [e for e in events if e["type"] == "utterance_generated" and e["kind"] == "statement"]
    assert all(e["text"].startswith(ANSWERING) for e in statements[2:])
    ended = events[-1]
    assert ended["type"] == "debate_ended" and (ended["final_answer"], ended["correct"]) == ("B", True)
