"""Four defects of the live and replay pages (issue #30, item 7), fixed where the logic is pure; the browser
shows them fixed in ``tests/browser/test_live_defects.py``.

(3) the seat badge of a person who let the floor pass says so, then listening, never "won the floor" again;
(4) a debate waiting for the seated person's words says for whom and for what, not "generating";
(11) a backend still starting (llama.cpp's server) says what it does, and a model that has yet to send its
first token is said to read its prompt, instead of a bare "running";
(17) Play at the last turn of a replay plays again from turn 0, and playing lets go of Play at the end.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import gradio as gr
import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat
from debate_core.backends.base import Completion, GenerationRequest
from debate_core.backends.scripted import ScriptedBackend
from debate_core.events import SpeakerSelected, UtteranceGenerated
from protocols.kimura.demo import DemoScript, demo_backend, demo_config
from tests.conftest import HANG_GUARD_S, QUESTION
from ui import activity, replay_panel
from ui.seat_state import follow, seat_state_html
from ui.session import SCRIPTED, LiveSession, backend_for

SEATED = "Jenny"


def wait(predicate, what: str) -> None:
    """Until ``predicate`` holds; the guard only catches a hang (the debate's work is bounded by its turns)."""
    done = threading.Event()
    for _ in range(int(HANG_GUARD_S * 100)):
        if predicate():
            return
        done.wait(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def seated_config(**fields) -> DebateConfig:
    agents = tuple(AgentSpec(name=n, seat="human" if n == SEATED else "model") for n in ("Alex", "Chris", SEATED))
    return DebateConfig(question=QUESTION, agents=agents, **fields)


# -- (3) the seat badge after the floor passed ---------------------------------------------------------------


def test_a_person_who_let_the_floor_pass_is_told_so_then_listens_and_never_reads_won_the_floor_again():
    config = demo_config(seed=1, max_turns=16)
    data = config.model_dump()
    for agent in data["agents"]:
        agent["seat"] = "human" if agent["name"] == SEATED else "model"
    config = DebateConfig.model_validate(data)
    channel = HumanChannel()
    channel.set_stance(intent="interrupt", urgency=9)  # she asks for the floor, then says nothing in time
    seat = HumanSeat(SEATED, channel, timeout_s=0, live=True)
    state, states = "listening", []
    passed_at = None
    for event in Debate(config, demo_backend(config), seats={SEATED: seat}).events():
        state, spent = follow(state, SEATED, "floor", event)
        if spent is not None:
            channel.set_stance(**spent)
        states.append(state)
        if isinstance(event, UtteranceGenerated) and event.speaker == SEATED and not event.units:
            passed_at = len(states) - 1
            assert state == "floor passed"
        if passed_at is not None and isinstance(event, SpeakerSelected) and event.speaker != SEATED:
            assert state == "listening"  # the next speaker ends her turn at the floor
    assert passed_at is not None, "the person never held the floor"
    assert states[passed_at - 1] == "won the floor"
    assert "won the floor" not in states[passed_at:] and states[-1] == "listening"
    assert "floor passed" in states and len(states) - passed_at > 12  # many turns followed: the badge moved on
    said = seat_state_html("floor passed", 9, "floor")
    assert "Your time ran out before you spoke, so the floor passed" in said


def test_a_floor_won_and_then_given_to_another_reads_listening():
    chosen = SpeakerSelected(
        seq=9, turn=3, public_tokens=40, at=0.0, speaker="Alex", rule="urgency", urgency=5, candidates=()
    )
    assert follow("won the floor", SEATED, "floor", chosen) == ("listening", None)
    assert follow("queued", SEATED, "floor", chosen) == ("lost to Alex", None)  # unchanged


# -- (4) waiting for the seated person -----------------------------------------------------------------------


def test_a_debate_waiting_for_the_persons_initial_answer_says_so_not_generating():
    config = seated_config()
    live = LiveSession(config, backend_for(SCRIPTED, config), human=SEATED).start()
    try:
        assert live.channel is not None
        request = live.channel.pending(timeout_s=HANG_GUARD_S)
        assert request is not None and request.kind == "initial_answer"
        wait(lambda: live.debate.table.cancel.tokens > 0, "the models' initial answers")
        assert live.activity() == "waiting for Jenny's initial answer"
        live.channel.submit(request.request_id, {"answer": "B"})
        wait(lambda: live.view.turn >= 1, "the debate to go on")
        assert "waiting for Jenny" not in live.activity()
    finally:
        live.stop()


def test_the_waiting_words_name_the_person_and_what_is_asked():
    assert activity.waiting_words("Jenny", "initial_answer") == "waiting for Jenny's initial answer"
    assert activity.waiting_words("Jenny", "utterance") == "waiting for Jenny to speak (they hold the floor)"
    assert activity.waiting_words("Kim", "judge_check") == "waiting for Kim's judge check"


# -- (11) a backend that starts slowly, and a model that has not sent a token yet ----------------------------


class SlowStart(ScriptedBackend):
    """The demo's script behind a server that starts only when ``loaded`` is touched, and only once released."""

    owns_server = True
    loading_words = "starting the test's server and loading its model into it"

    def __init__(self, config: DebateConfig) -> None:
        super().__init__(DemoScript(config).reply, model_id="slow-start")
        self.go = threading.Event()
        self.started = False
        self.closed = False

    @property
    def loaded(self) -> SlowStart:
        self.go.wait(HANG_GUARD_S)
        self.started = True
        return self

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        assert self.started, "a request reached a server that had not started"
        return super().generate(requests)

    def close(self) -> None:
        self.closed = True


def test_a_backend_still_starting_says_what_it_does_and_how_long_then_runs():
    config = demo_config(seed=1, max_turns=4)
    backend = SlowStart(config)
    live = LiveSession(config, backend, pace_s=0)
    statuses: list[str] = []
    bump = live._bump
    live._bump = lambda: (statuses.append(live.status), bump())  # type: ignore[method-assign]
    live.start()
    wait(lambda: statuses, "the first status")
    assert live.status == "starting the test's server and loading its model into it"
    assert live.activity().endswith(" s") and not live.done  # how long, while it starts
    backend.go.set()
    wait(lambda: live.done, "the end of the debate")
    assert statuses[0].startswith("starting the test's server") and "running" in statuses
    assert live.status.startswith("ended") and backend.closed  # a server started for the debate stops with it


def test_stop_while_the_server_starts_ends_the_session_before_any_request():
    config = demo_config(seed=1)
    backend = SlowStart(config)
    live = LiveSession(config, backend, pace_s=0).start()
    wait(lambda: live.status.startswith("starting the test's server"), "the start")
    live.stop()
    assert live.done and live.status == "stopped before the model had loaded"
    backend.go.set()
    live._thread.join(HANG_GUARD_S)
    assert backend.closed and live.view.events == 0


class FirstTokenLate(ScriptedBackend):
    """The demo's script, whose first generation waits (with no token) until released."""

    def __init__(self, config: DebateConfig) -> None:
        super().__init__(DemoScript(config).reply, model_id="first-token-late")
        self.asked = threading.Event()
        self.go = threading.Event()

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        if not self.go.is_set():
            self.asked.set()
            self.go.wait(HANG_GUARD_S)
        return super().generate(requests)


def test_a_model_with_no_token_yet_is_said_to_read_its_prompt(monkeypatch):
    monkeypatch.setattr(activity, "QUIET_S", 0.0)  # no wall-clock wait: any quiet at all is said
    config = demo_config(seed=1, max_turns=3)
    backend = FirstTokenLate(config)
    live = LiveSession(config, backend, pace_s=0).start()
    try:
        assert backend.asked.wait(HANG_GUARD_S), "the debate never asked the model"
        assert live.status == "running"
        assert live.activity().startswith("the model is reading its prompt, ")
        backend.go.set()
        wait(lambda: live.done, "the end of the debate")
        assert live.activity() == ""
    finally:
        backend.go.set()
        live.stop()


# -- (17) Play at the last turn ------------------------------------------------------------------------------


@pytest.fixture
def replay_events():
    config = demo_config(seed=2, max_turns=3)
    return list(Debate(config, demo_backend(config)).events())


def test_play_at_the_last_turn_plays_again_from_turn_0(replay_events):
    last = replay_events[-1].turn
    timer, position = replay_panel.play_from(True, replay_events, last)
    assert timer.active is True and position == 0
    timer, position = replay_panel.play_from(True, replay_events, 1)  # mid-way: plays on from there
    assert timer.active is True and position == gr.skip()
    timer, position = replay_panel.play_from(False, replay_events, last)  # let go: stays where it is
    assert timer.active is False and position == gr.skip()
    timer, position = replay_panel.play_from(True, [], 0)  # nothing loaded: nothing to restart
    assert position == gr.skip()


def test_playing_reaches_the_last_turn_and_lets_go_of_play(replay_events):
    last = replay_events[-1].turn
    shown, play = replay_panel.advance(replay_events, last - 2, True)
    assert shown == last - 1 and play == gr.skip()
    shown, play = replay_panel.advance(replay_events, last - 1, True)
    assert shown == last and play is False
    assert replay_panel.advance(replay_events, last, False) == (gr.skip(), gr.skip())
