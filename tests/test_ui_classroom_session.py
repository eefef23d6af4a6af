"""A live debate with several people: each in a seat of their own, each seat's controls its own; a seat handed
back to a model, or let pass, never holds the debate up."""

from __future__ import annotations

import time

import pytest

from debate_core import AgentSpec, DebateConfig
from debate_core.events import PlansMade, Source
from debate_core.kernel import Acting
from debate_core.testing import AutoPerson
from tests.conftest import QUESTION
from ui import web_plugins
from ui.session import SCRIPTED, LiveSession, backend_for

AGENTS = ("Alex", "Chris", "Jenny")


def wait(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def classroom(*, human: str | None = None, **kwargs) -> LiveSession:
    agents = tuple(AgentSpec(name=n, seat="human" if n == human else "model") for n in AGENTS)
    config = DebateConfig(question=QUESTION, agents=agents, max_turns=kwargs.pop("max_turns", 30))
    return LiveSession(config, backend_for(SCRIPTED, config), human=human, shared=AGENTS, **kwargs)


@pytest.fixture
def live():
    session = classroom(pace_s=0.05)
    session.pause()  # held between turns: the test seats people while nothing moves on
    yield session.start()
    session.stop()


def test_every_shared_seat_starts_with_its_model_and_has_no_person():
    session = classroom()
    assert {agent: held.acting for agent, held in session.people.items()} == dict.fromkeys(AGENTS, Acting.MODEL)
    assert session.human is None and session.channel is None and session.controls == "none"


def test_each_person_presses_only_their_own_seats_controls(live):
    alex, chris = live.seat_person("Alex"), live.seat_person("Chris")
    assert live.channel_of("Alex") is alex and live.channel_of("Chris") is chris
    interrupt = web_plugins.press_named("interrupt")
    assert interrupt is not None
    assert live.press(interrupt, 4, agent="Alex") == ""
    assert alex.stance() == {"intent": "interrupt", "urgency": 4}
    assert chris.stance() == {} and live.people["Chris"].state == "listening"
    assert live.people["Alex"].state == "armed"
    live.raise_hand(7, agent="Chris")
    assert chris.stance() == {"intent": "raise", "urgency": 7}
    assert alex.stance()["intent"] == "interrupt"
    live.press(interrupt, agent="Jenny")  # nobody sits in Jenny's seat: nothing to set, nothing changes
    assert live.channel_of("Jenny") is None


def test_a_seated_person_acts_in_the_debate_and_the_events_say_a_person_answered():
    session = classroom(pace_s=0.0, max_turns=4)
    channel = session.seat_person("Chris")
    person = AutoPerson(channel).start()  # gives their words when asked (their initial answer, say)
    plans: list[PlansMade] = []
    session.listeners.append(lambda event: plans.append(event) if isinstance(event, PlansMade) else None)
    session.start()
    assert wait(lambda: session.done)
    person.stop()
    assert plans
    sources = {r.source for p in plans for r in p.plans if r.agent == "Chris"}
    assert sources == {Source.HUMAN}
    assert {r.source for p in plans for r in p.plans if r.agent == "Alex"} == {Source.MODEL}


def test_freeing_a_seat_while_its_person_is_asked_lets_the_debate_go_on():
    session = classroom(human="Jenny")  # Jenny's person is asked for an initial answer and never gives one
    session.start()
    assert session.channel is not None
    request = session.channel.pending(timeout_s=20)
    assert request is not None and request.kind == "initial_answer"
    before = session.channel
    session.free_seat("Jenny", "model")
    assert session.people["Jenny"].acting is Acting.MODEL and session.channel is None
    assert before.closed and before.pending(timeout_s=0) is None
    assert wait(lambda: session.view.turn >= 1), "the debate still waits for the person who left"
    session.stop()


def test_a_seat_freed_to_pass_lets_its_turns_pass_and_a_new_person_can_take_it(live):
    live.seat_person("Alex")
    live.free_seat("Alex", "pass")
    assert live.people["Alex"].acting is Acting.PASS
    again = live.seat_person("Alex")
    assert live.people["Alex"].acting is Acting.PERSON and live.channel_of("Alex") is again
    with pytest.raises(ValueError, match="model' or 'pass"):
        live.free_seat("Alex", "anyone")
    with pytest.raises(KeyError):
        classroom(human=None).seat_person("Zoe")
