"""Text Pictionary in the web app without a browser: a person as the guesser, with Interrupt and the guess box."""

from __future__ import annotations

from debate_core import AgentSpec, DebateConfig
from debate_core.config import Question
from protocols.handraiser.pictionary.forms import GUESS_SENTENCE
from protocols.handraiser.tests.test_ui_handraiser import wait
from ui import render, seat_words
from ui.session import SCRIPTED, LiveSession, backend_for
from ui.setup_config import seat_roles

GUESSER = "Chris"


def pictionary(variant: str = "human") -> DebateConfig:
    agents = (AgentSpec(name="Alex"), AgentSpec(name=GUESSER, seat="human"))
    question = Question(text="Text Pictionary", answer="giraffe")
    return DebateConfig(question=question, agents=agents, protocol="pictionary", variant=variant)


def test_a_guessers_interrupt_cuts_the_describer_and_the_guess_box_ends_the_game():
    config = pictionary()
    session = LiveSession(config, backend_for(SCRIPTED, config), human=GUESSER, pace_s=0.05).start()
    try:
        assert session.controls == "interrupt"
        assert wait(lambda: any(u.disclosed for u in session.view.utterances.values())), "the describer never spoke"
        session.interrupt()
        assert session.seat_state == "armed"
        assert session.channel is not None
        request = session.channel.pending(timeout_s=20)
        assert request is not None and request.kind == "guess"
        described = next(iter(session.view.utterances.values()))
        assert described.interrupted_by == GUESSER and described.discarded
        assert len(described.disclosed) < described.total
        assert session.seat_state == f"interrupted {config.agents[0].name}"
        assert seat_words.prompt(request) == "Round 1 of 10: " + GUESS_SENTENCE
        assert request.fields[0].label.startswith("Your guess, or a question")
        assert "giraffe" not in repr(request.view.entity)  # the guesser's view does not hold the secret
        session.channel.submit(request.request_id, {"text": "Giraffes"})
        assert wait(lambda: session.done)
        ended = session.view.ended
        assert ended is not None and ended.final_answer == "giraffe" and ended.correct is True
        lines = render.transcript_lines(session.view)
        assert any('<span class="badge kind">guess</span>' in line and "Guess: Giraffes" in line for line in lines)
        assert sum(f"✂ cut off by {GUESSER}" in line for line in lines) == 1
    finally:
        session.stop()


def test_the_set_up_form_seats_the_describer_then_the_guesser():
    assert seat_roles("pictionary", "human", "Alex, Chris") == {"Alex": "describer", "Chris": "guesser"}
    assert seat_roles("pictionary", "human", "Alex, Chris", "Alex: guesser")["Alex"] == "guesser"
