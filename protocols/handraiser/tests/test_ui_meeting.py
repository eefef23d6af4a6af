"""Meeting Scheduling in the web app without a browser: a person as the traveler, with Interrupt, whom to write to
and the schedule box, and the verifier's verdict on the page."""

from __future__ import annotations

from debate_core import AgentSpec, DebateConfig
from protocols.handraiser.meeting.cases import committed, scheduling_question
from protocols.handraiser.tests.test_ui_handraiser import wait
from ui import render, seat_words
from ui.session import SCRIPTED, LiveSession, backend_for
from ui.setup_config import seat_roles

TRAVELER = "Alex"


def scheduling(variant: str = "human") -> DebateConfig:
    agents = (AgentSpec(name=TRAVELER, seat="human"), AgentSpec(name="Chris"), AgentSpec(name="Jenny"))
    question = scheduling_question(committed()["meeting-0002"])  # Rosa (Chris's) and Lars (Jenny's)
    return DebateConfig(question=question, agents=agents, protocol="scheduling", variant=variant)


def test_a_travelers_interrupt_cuts_the_planner_and_the_schedule_box_ends_the_game_with_the_verdict_shown():
    config = scheduling()
    session = LiveSession(config, backend_for(SCRIPTED, config), human=TRAVELER, pace_s=0.05).start()
    try:
        assert session.controls == "interrupt"
        assert session.channel is not None
        request = session.channel.pending(timeout_s=20)
        assert request is not None and request.kind == "traveler_turn"
        assert [(f.name, f.choices) for f in request.fields] == [("to", ("Chris", "Jenny", "schedule")), ("text", ())]
        assert seat_words.prompt(request).startswith("Round 1 of 10: write to a planner (Chris (Planner A")
        assert "Travel times between locations" in seat_words.prompt(request)  # the person's own briefing
        assert "10:50 AM" not in seat_words.prompt(request)  # not when Rosa is free: her planner knows that
        session.channel.submit(request.request_id, {"to": "Chris", "text": "Where is Rosa and when is she free?"})
        assert wait(lambda: any(u.speaker == "Chris" and u.disclosed for u in session.view.utterances.values()))
        session.interrupt()
        assert session.seat_state == "armed"
        request = session.channel.pending(timeout_s=20)
        assert request is not None and request.kind == "traveler_turn"
        planner = next(u for u in session.view.utterances.values() if u.speaker == "Chris")
        assert planner.interrupted_by == TRAVELER and planner.discarded and len(planner.disclosed) < planner.total
        assert session.seat_state == "interrupted Chris"
        one = "MEET Rosa AT Fig Market FROM 10:50 AM TO 12:20 PM"  # Lars is never met: constraint (iii)
        session.channel.submit(request.request_id, {"to": "schedule", "text": one})
        assert wait(lambda: session.done)
        ended = session.view.ended
        assert ended is not None and ended.final_answer == "invalid" and ended.correct is False
        lines = render.transcript_lines(session.view)
        assert any('<span class="badge kind">schedule</span>' in line and one in line for line in lines)
        assert any("verdict" in line and "(iii) missing_meeting" in line and "Lars" in line for line in lines)
        assert sum(f"✂ cut off by {TRAVELER}" in line for line in lines) == 1
    finally:
        session.stop()


def test_the_set_up_form_seats_the_traveler_then_the_two_planners():
    assert seat_roles("scheduling", "human", "Alex, Chris, Jenny") == {
        "Alex": "traveler", "Chris": "planner_a", "Jenny": "planner_b"
    }  # fmt: skip
    assert seat_roles("scheduling", "human", "Alex, Chris, Jenny", "Jenny: traveler")["Jenny"] == "traveler"
