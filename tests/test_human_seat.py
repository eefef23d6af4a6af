"""A human in a seat: same view as a model, same rules, answered from another thread."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from debate_core import (
    AgentSpec,
    Debate,
    HumanChannel,
    HumanInputError,
    HumanSeat,
    SeatKind,
    StaleRequestError,
    SuppliedInitialAnswer,
)
from debate_core.backends.scripted import ScriptedBackend
from debate_core.config import Question
from debate_core.errors import ConfigError
from debate_core.events import (
    Action,
    DebateEnded,
    EndReason,
    InitialAnswersGiven,
    Interrupted,
    PlansMade,
    Source,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceGenerated,
)
from debate_core.kernel.history import HistoryLine, LineKind
from debate_core.kernel.human import HumanRequest
from protocols.kimura.forms import kimura_forms
from protocols.kimura.plans import fallback_plan
from protocols.kimura.prompting import PromptBuilder
from protocols.kimura.views import AgentView, UtteranceView
from tests.conftest import (
    QUESTION,
    SentenceSplitter,
    build_script_backend,
    first,
    make_config,
    of_type,
    plan_of,
    plans_at,
)

HUMAN = "Hana"
WAIT_S = 3.0  # upper bound on any wait; replies normally arrive in milliseconds
Policy = Callable[[HumanChannel, HumanRequest], None]


def human_config(**overrides):
    values = {
        "agents": (
            AgentSpec(name="Alex"),
            AgentSpec(name="Chris"),
            AgentSpec(name=HUMAN, seat=SeatKind.HUMAN),
        ),
        "initial_answers": {HUMAN: SuppliedInitialAnswer(answer="B", reason="I know my Greek.")},
    }
    values.update(overrides)
    return make_config(**values)


class Human:
    """Plays the human seat from its own thread, answering each request with ``policy``."""

    def __init__(self, channel: HumanChannel, policy: Policy) -> None:
        self.channel, self.policy = channel, policy
        self.requests: list[HumanRequest] = []
        self.errors: list[BaseException] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        seen: set[int] = set()
        while not self._done.is_set():
            request = self.channel.pending(timeout_s=0.05)
            if request is None or request.request_id in seen:
                self._done.wait(0.005)
                continue
            seen.add(request.request_id)
            self.requests.append(request)
            try:
                self.policy(self.channel, request)
            except BaseException as error:  # surfaced by the test, not swallowed
                self.errors.append(error)

    def __enter__(self) -> Human:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join(timeout=WAIT_S)
        assert not self._thread.is_alive()
        assert not self.errors, self.errors

    def of_type(self, kind: str) -> list[HumanRequest]:
        return [request for request in self.requests if request.kind == kind]


# The person's side of the channel, by request kind (the values the web page and the terminal send).
def submit_plan(channel: HumanChannel, request_id: int, **fields):
    return channel.submit(request_id, fields)


def submit_utterance(channel: HumanChannel, request_id: int, text):
    return channel.submit(request_id, {"text": text})


def submit_initial(channel: HumanChannel, request_id: int, answer, reason=""):
    return channel.submit(request_id, {"answer": answer, "reason": reason})


def scripted_human(plans=None, utterances=(), initial="B") -> Policy:
    """Plans per turn (action, urgency, answer); listen otherwise; utterances in order."""
    plans, utterances = dict(plans or {}), list(utterances)

    def policy(channel: HumanChannel, request: HumanRequest) -> None:
        if request.kind == "initial_answer":
            submit_initial(channel, request.request_id, initial, "my reason")
        elif request.kind == "plan":
            action, urgency, answer = plans.get(request.view.turn, ("listen", 0, None))
            submit_plan(channel, request.request_id, action=action, urgency=urgency, answer=answer)
        else:
            submit_utterance(channel, request.request_id, utterances.pop(0))

    return policy


def run_with_human(config, backend, policy, *, timeout_s=WAIT_S, max_chars=2_000):
    channel = HumanChannel(max_chars=max_chars)
    seat = HumanSeat(HUMAN, channel, timeout_s=timeout_s)
    debate = Debate(config, backend, seats={HUMAN: seat}, segmenter=SentenceSplitter())
    with Human(channel, policy) as human:
        events = debate.run()
    # A request the policy left unanswered would show up as a timeout: fail loudly instead.
    unanswered = [r.error for p in of_type(events, PlansMade) for r in p.plans if r.agent == HUMAN and r.error]
    unanswered += [u.error for u in of_type(events, UtteranceGenerated) if u.speaker == HUMAN and u.error]
    assert not unanswered, unanswered
    return events, human


ALEX_FOUR = "Alpha is first. Alpha is the answer. Alpha again here. Alpha to finish."


def test_a_human_seat_must_be_given():
    with pytest.raises(ConfigError, match="human seat"):
        Debate(human_config(), build_script_backend(), segmenter=SentenceSplitter())


def test_seats_must_match_the_configured_agents():
    channel = HumanChannel()
    with pytest.raises(ConfigError, match="configured as a model seat"):
        Debate(make_config(), build_script_backend(), seats={"Alex": HumanSeat("Alex", channel)})
    with pytest.raises(ConfigError, match="unknown agents: Zoe"):
        Debate(
            human_config(),
            build_script_backend(),
            seats={HUMAN: HumanSeat(HUMAN, channel), "Zoe": HumanSeat("Zoe", channel)},
        )


def test_a_human_utterance_timeout_gives_the_floor_back():
    def policy(channel, request):
        if request.kind == "plan":
            action = "speak" if request.view.turn == 0 else "listen"
            submit_plan(channel, request.request_id, action=action, urgency=9, answer=None)
        # ... but never says anything

    channel = HumanChannel()
    seat = HumanSeat(HUMAN, channel, timeout_s=0.05)
    debate = Debate(
        human_config(max_turns=2), build_script_backend(), seats={HUMAN: seat}, segmenter=SentenceSplitter()
    )
    with Human(channel, policy):
        events = debate.run()
    generated = first(events, UtteranceGenerated)
    assert (generated.speaker, generated.source, generated.text, generated.units) == (
        HUMAN,
        Source.HUMAN,
        "",
        (),
    )
    assert generated.error == "the person let it pass"  # why the floor was given back
    assert of_type(events, UnitDisclosed) == []
    assert plans_at(events, 1).floor_holder is None


def test_human_initial_answer_comes_from_the_channel():
    config = human_config(initial_answers={}, max_turns=1)
    events, human = run_with_human(config, build_script_backend(), scripted_human(initial="(d)"))
    [request] = human.of_type("initial_answer")
    assert request.view.allowed == ()
    hana = first(events, InitialAnswersGiven).answers[2]
    assert (hana.agent, hana.answer, hana.reason, hana.source, hana.valid) == (
        HUMAN,
        "D",
        "my reason",
        Source.HUMAN,
        True,
    )


def test_human_gets_the_same_view_a_model_gets():
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [ALEX_FOUR]})
    config = human_config(token_budget=200, max_turns=3)
    events, human = run_with_human(config, backend, scripted_human())
    plan_requests = human.of_type("plan")
    assert [r.view.turn for r in plan_requests] == [0, 1, 2, 3]
    for request in plan_requests:
        view, plans = request.view, plans_at(events, request.view.turn)
        assert isinstance(view, AgentView)
        assert view.agent == HUMAN
        assert view.members == ("Alex", "Chris", HUMAN)
        assert view.question == QUESTION
        assert view.token_budget == 200
        assert view.tokens_left == 200 - plans.public_tokens
        assert view.allowed == plan_of(plans, "Chris").allowed
        assert view.floor_holder == plans.floor_holder
        assert [(a.agent, a.answer) for a in view.initial_answers] == [
            (a.agent, a.answer) for a in first(events, InitialAnswersGiven).answers
        ]
        model_prompt = next(
            r.messages[-1].content
            for r in backend.requests
            if r.kind == "plan" and r.agent == "Chris" and r.turn == view.turn
        )
        assert f"Remaining public tokens available to all agents: {view.tokens_left} / 200" in model_prompt
    at0, at2 = plan_requests[0].view, plan_requests[2].view
    assert (at0.allowed, at0.floor_holder, at0.last_event.kind) == (
        (Action.LISTEN, Action.SPEAK),
        None,
        LineKind.START,
    )
    assert (at2.allowed, at2.floor_holder) == ((Action.LISTEN, Action.INTERRUPT), "Alex")
    assert at2.last_event.text == "Alpha is the answer."
    assert [line.text for line in at2.turn_log] == ["Alpha is first."]


def test_human_utterance_is_disclosed_sentence_by_sentence_and_spends_the_budget():
    speech = "I pick Beta. Alpha fails the test. Beta passes it."
    backend = build_script_backend()
    budget = backend.count_tokens(speech)
    config = human_config(token_budget=budget)
    events, human = run_with_human(config, backend, scripted_human({0: ("speak", 9, "B")}, [speech]))
    generated = first(events, UtteranceGenerated)
    assert (generated.speaker, generated.source, generated.text) == (HUMAN, Source.HUMAN, speech)
    assert generated.units == ("I pick Beta.", "Alpha fails the test.", "Beta passes it.")
    disclosed = of_type(events, UnitDisclosed)
    assert [(e.turn, e.speaker, e.text) for e in disclosed] == [
        (1, HUMAN, "I pick Beta."),
        (2, HUMAN, "Alpha fails the test."),
        (3, HUMAN, "Beta passes it."),
    ]
    assert [e.public_tokens for e in disclosed] == [4, 9, 13]
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert (end.reason, end.turn) == (EndReason.BUDGET, 3)
    # While holding the floor the human is not asked to plan.
    assert [r.view.turn for r in human.of_type("plan")] == [0, 3]


def test_human_can_interrupt_an_ai_mid_utterance():
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [ALEX_FOUR]})
    policy = scripted_human({1: ("interrupt", 9, "B")}, ["Wait, that is wrong. Beta is right."])
    events, human = run_with_human(human_config(max_turns=4), backend, policy)
    [cut] = of_type(events, Interrupted)
    assert (cut.turn, cut.interrupter, cut.interrupted, cut.disclosed_count) == (1, HUMAN, "Alex", 1)
    assert cut.discarded == ("Alpha is the answer.", "Alpha again here.", "Alpha to finish.")
    [utterance_request] = human.of_type("utterance")
    assert isinstance(utterance_request.view, UtteranceView)
    assert utterance_request.view.interrupting == "Alex"
    assert utterance_request.view.interrupted_text == "Alpha is first."
    assert "Alpha is the answer." not in repr(human.requests)
    turn2 = [e for e in of_type(events, UnitDisclosed) if e.turn == 2]
    assert [(e.speaker, e.text, e.interrupting) for e in turn2] == [(HUMAN, "Wait, that is wrong.", "Alex")]
    record = plan_of(plans_at(events, 1), HUMAN)
    assert (record.source, record.valid, record.plan.action, record.plan.urgency) == (
        Source.HUMAN,
        True,
        Action.INTERRUPT,
        9,
    )


def test_an_ai_can_interrupt_the_human():
    backend = build_script_backend({(1, "Alex"): ("floor", 9, "A")}, {"Alex": ["No, Alpha. Trust me."]})
    speech = "Beta is second. The order is alpha then beta. So B."
    events, _ = run_with_human(human_config(max_turns=4), backend, scripted_human({0: ("speak", 9, "B")}, [speech]))
    [cut] = of_type(events, Interrupted)
    assert (cut.turn, cut.interrupter, cut.interrupted, cut.disclosed_count) == (1, "Alex", HUMAN, 1)
    assert cut.discarded == ("The order is alpha then beta.", "So B.")
    alex_prompt = next(r for r in backend.requests if r.agent == "Alex" and r.kind == "utterance")
    assert f"You are interrupting {HUMAN}" in alex_prompt.messages[-1].content
    assert "The order is alpha then beta." not in "".join(m.content for r in backend.requests for m in r.messages)
    # The human plans again as soon as it has lost the floor.
    assert HUMAN in [r.agent for r in plans_at(events, 2).plans]


def test_rejected_submission_reaches_nothing_and_the_human_can_retry():
    refusals: list[str] = []

    def policy(channel, request):
        if request.kind == "plan" and request.view.turn == 0:
            with pytest.raises(HumanInputError) as info:
                submit_plan(channel, request.request_id, action="interrupt", urgency=9, answer="B")
            refusals.append(str(info.value))
            submit_plan(channel, request.request_id, action="speak", urgency=2, answer="C")
        elif request.kind == "plan":
            submit_plan(channel, request.request_id, action="listen", urgency=0, answer=None)
        else:
            submit_utterance(channel, request.request_id, "Gamma is it.")

    events, _ = run_with_human(human_config(max_turns=1), build_script_backend(), policy)
    assert refusals == ["you can only listen or speak right now"]
    record = plan_of(plans_at(events, 0), HUMAN)
    assert (record.valid, record.plan.action, record.plan.urgency, record.plan.answer) == (
        True,
        Action.SPEAK,
        2,
        "C",
    )
    # answer=None keeps the human's current answer
    assert plans_at(events, 1).answer_of(HUMAN) == "C"


def test_a_human_who_lets_a_plan_pass_listens():
    channel = HumanChannel()
    seat = HumanSeat(HUMAN, channel, timeout_s=0.05)
    debate = Debate(
        human_config(max_turns=2), build_script_backend(), seats={HUMAN: seat}, segmenter=SentenceSplitter()
    )
    events = debate.run()
    plans = of_type(events, PlansMade)
    assert len(plans) == 3
    for made in plans:
        record = plan_of(made, HUMAN)
        assert (record.valid, record.source, record.error) == (True, Source.HUMAN, None)
        assert record.note == "the person let it pass"  # a choice, not a mistake
        assert record.plan == fallback_plan("B")
    assert events[-1].reason is EndReason.MAX_TURNS


def gated_plans(backend: ScriptedBackend, before: threading.Event | None, after: threading.Event) -> ScriptedBackend:
    """``backend`` whose turn-0 plan batch waits for ``before`` (when given) and sets ``after`` once answered."""
    generate = backend.generate

    def gated(requests):
        turn0_plans = any(r.kind == "plan" and r.turn == 0 for r in requests)
        if turn0_plans and before is not None:
            before.wait(WAIT_S)
        completions = generate(requests)
        if turn0_plans:
            after.set()
        return completions

    backend.generate = gated  # type: ignore[method-assign]
    return backend


def test_stop_unblocks_a_waiting_human_seat():
    # The models' part of the turn's batch is answered; only the person is still being asked
    # when the stop comes: the turn's plans are recorded (the person's as a fallback, with why).
    # Waiting for the models' answers, not for time, makes this hold on a loaded machine.
    channel = HumanChannel()
    seat = HumanSeat(HUMAN, channel, timeout_s=None)  # would wait forever
    models_answered = threading.Event()
    backend = gated_plans(build_script_backend(), None, models_answered)
    debate = Debate(human_config(), backend, seats={HUMAN: seat}, segmenter=SentenceSplitter())
    events: list = []
    worker = threading.Thread(target=lambda: events.extend(debate.run()), daemon=True)
    worker.start()
    request = channel.pending(timeout_s=WAIT_S)
    assert request is not None and request.kind == "plan"
    assert models_answered.wait(WAIT_S)
    debate.stop()
    worker.join(timeout=WAIT_S)
    assert not worker.is_alive()
    assert events[-1].reason is EndReason.STOPPED
    record = plan_of(plans_at(events, 0), HUMAN)
    assert record.valid is False
    assert record.error  # why the human's plan is missing is recorded
    assert channel.pending(timeout_s=0.01) is None


def test_a_stop_before_the_models_answer_ends_at_once_and_unblocks_the_human_seat():
    # The documented contract (docs/architecture.md, CHANGELOG): stop() ends the debate at once,
    # no model work starts after it; the turn's plans are not finished first. The person's
    # request is withdrawn all the same.
    channel = HumanChannel()
    seat = HumanSeat(HUMAN, channel, timeout_s=None)
    stopped, models_answered = threading.Event(), threading.Event()
    backend = gated_plans(build_script_backend(), stopped, models_answered)
    debate = Debate(human_config(), backend, seats={HUMAN: seat}, segmenter=SentenceSplitter())
    events: list = []
    worker = threading.Thread(target=lambda: events.extend(debate.run()), daemon=True)
    worker.start()
    request = channel.pending(timeout_s=WAIT_S)
    assert request is not None and request.kind == "plan"
    debate.stop()
    stopped.set()
    worker.join(timeout=WAIT_S)
    assert not worker.is_alive()
    assert events[-1].reason is EndReason.STOPPED
    assert not [e for e in events if isinstance(e, PlansMade)]
    assert channel.pending(timeout_s=0.01) is None


# -- the channel's submit-time validation --------------------------------------------------


def make_view(allowed=(Action.LISTEN, Action.SPEAK), current_answer="B") -> AgentView:
    return AgentView(
        agent=HUMAN, persona="", members=("Alex", HUMAN), question=QUESTION, turn=1, token_budget=100,
        tokens_left=90, initial_answers=(), turn_log=(), previous_thoughts=(),
        last_event=HistoryLine(turn=1, kind=LineKind.SILENCE), allowed=allowed, floor_holder=None,
        current_answer=current_answer,
    )  # fmt: skip


FORMS = kimura_forms(PromptBuilder()).by_kind()


def post(channel: HumanChannel, kind: str, view: AgentView, timeout_s: float) -> HumanRequest:
    """Post a request of Kimura's ``kind`` as a human seat does (its fields, its rule)."""
    form = FORMS[kind]
    if kind == "utterance":
        view = UtteranceView(view, (), fallback_plan("B"), None, "")  # type: ignore[assignment]
    return channel.post(
        kind, view, form.fields(view), build=lambda values: form.from_human(values, view), timeout_s=timeout_s
    )


def open_request(kind="plan", max_chars=2_000, **view) -> tuple[HumanChannel, HumanRequest]:
    channel = HumanChannel(max_chars=max_chars)
    return channel, post(channel, kind, make_view(**view), WAIT_S)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"action": "interrupt", "urgency": 5, "answer": "B"}, "you can only listen or speak right now"),
        ({"action": "shout", "urgency": 5, "answer": "B"}, "unknown action"),
        ({"action": "speak", "urgency": 10, "answer": "B"}, "outside 0-9"),
        ({"action": "speak", "urgency": -1, "answer": "B"}, "outside 0-9"),
        ({"action": "speak", "urgency": 3.5, "answer": "B"}, "must be an integer"),
        ({"action": "speak", "urgency": "7", "answer": "B"}, "must be an integer"),
        ({"action": "speak", "urgency": 5, "answer": "E"}, "'E' is not one of A, B, C, D"),
        ({"action": "speak", "urgency": 5, "answer": "B", "thought": "x" * 2_001}, "the thought is 2,001"),
    ],
)
def test_invalid_plan_submission_is_refused(fields, message):
    channel, request = open_request()
    with pytest.raises(HumanInputError, match=message):
        submit_plan(channel, request.request_id, **fields)
    # Nothing reached the engine: the request is still open and a valid reply goes through.
    assert channel.pending() is request
    plan = submit_plan(channel, request.request_id, action="speak", urgency=5, answer="(c)")
    assert channel.wait(request) == plan
    assert (plan.action, plan.urgency, plan.answer) == (Action.SPEAK, 5, "C")


def test_interrupt_is_refused_when_only_listen_or_speak_is_allowed_but_accepted_when_held():
    channel, request = open_request(allowed=(Action.LISTEN, Action.INTERRUPT))
    with pytest.raises(HumanInputError, match="you can only listen or interrupt right now"):
        submit_plan(channel, request.request_id, action="speak", urgency=5, answer="B")
    assert submit_plan(channel, request.request_id, action="interrupt", urgency=5, answer=None).answer == "B"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n", "empty"),
        ("x" * 21, "limit is 20"),
        ("?!...", "no letter or digit"),
        ("— …", "no letter"),
    ],
)
def test_invalid_utterance_submission_is_refused(text, message):
    channel, request = open_request("utterance", max_chars=20)
    with pytest.raises(HumanInputError, match=message):
        submit_utterance(channel, request.request_id, text)
    submit_utterance(channel, request.request_id, "  " + "y" * 20 + "  ")
    assert channel.wait(request) == "y" * 20


def test_submission_of_the_wrong_kind_is_refused():
    channel, request = open_request("utterance")
    with pytest.raises(HumanInputError, match="has no field 'action' \\(it asks for: text\\)"):
        submit_plan(channel, request.request_id, action="listen", urgency=0, answer=None)


def test_reply_to_an_old_request_is_stale():
    channel, old = open_request()
    new = post(channel, "plan", make_view(), WAIT_S)
    with pytest.raises(StaleRequestError):
        submit_plan(channel, old.request_id, action="listen", urgency=0, answer=None)
    submit_plan(channel, new.request_id, action="listen", urgency=1, answer=None)
    assert channel.wait(new).urgency == 1


def test_reply_after_the_deadline_is_stale():
    channel = HumanChannel()
    request = post(channel, "plan", make_view(), 0.01)
    assert channel.wait(request) is None
    with pytest.raises(StaleRequestError):
        submit_plan(channel, request.request_id, action="listen", urgency=0, answer=None)


def test_second_reply_to_the_same_request_is_stale():
    channel, request = open_request("utterance")
    submit_utterance(channel, request.request_id, "First.")
    assert channel.wait(request) == "First."
    with pytest.raises(StaleRequestError):
        submit_utterance(channel, request.request_id, "Second.")


# -- a live seat: a standing stance instead of a form every turn ----------------------------------------


def live_debate(stance_at: dict[int, dict], utterances=("I object. Beta is second.",), **config):
    """A live seat for Hana; ``stance_at[turn]`` is set when a unit of that turn is disclosed."""
    channel = HumanChannel()
    seat = HumanSeat(HUMAN, channel, timeout_s=WAIT_S, live=True)
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [ALEX_FOUR]})
    debate = Debate(human_config(**config), backend, seats={HUMAN: seat}, segmenter=SentenceSplitter())
    said = list(utterances)
    posted: list[str] = []

    def speak() -> None:
        while (request := channel.pending(timeout_s=WAIT_S)) is not None:
            posted.append(request.kind)
            channel.submit(request.request_id, {"text": said.pop(0)})

    player = threading.Thread(target=speak, daemon=True)
    player.start()
    events = []
    for event in debate.events():
        events.append(event)
        if isinstance(event, UnitDisclosed) and event.turn in stance_at:
            channel.set_stance(**stance_at[event.turn])
        if isinstance(event, SpeakerSelected) and event.speaker == HUMAN:
            channel.set_stance(intent="listen")  # the intent is spent once the person has the floor (as the page does)
    channel.close()
    player.join(WAIT_S)
    return events, posted


def test_a_live_seat_is_never_asked_for_a_plan_and_listens_by_default():
    events, posted = live_debate({}, max_turns=4)
    assert posted == []  # nothing waited on the person
    plans = [plan_of(p, HUMAN) for p in of_type(events, PlansMade) if HUMAN in [r.agent for r in p.plans]]
    assert plans and all(
        (r.valid, r.plan.action, r.plan.urgency, r.plan.answer, r.source) == (True, Action.LISTEN, 0, "B", Source.HUMAN)
        for r in plans
    )


def test_an_armed_interrupt_cuts_the_speaker_at_the_next_boundary_and_the_person_speaks():
    events, posted = live_debate({1: {"intent": "interrupt", "urgency": 9, "answer": "b"}}, max_turns=5)
    [cut] = of_type(events, Interrupted)
    assert (cut.turn, cut.interrupter, cut.interrupted) == (1, HUMAN, "Alex")
    assert posted == ["utterance"]  # the only time the debate waited: for the person's words
    record = plan_of(plans_at(events, 1), HUMAN)
    assert (record.plan.action, record.plan.urgency, record.plan.answer) == (Action.INTERRUPT, 9, "B")
    assert next(e.text for e in of_type(events, UnitDisclosed) if e.speaker == HUMAN) == "I object."


def test_a_raised_hand_waits_for_a_free_floor_and_nonsense_in_the_stance_is_ignored():
    events, _ = live_debate({1: {"intent": "raise", "urgency": "loud", "answer": "Z"}}, max_turns=8)
    held = [plan_of(p, HUMAN) for p in of_type(events, PlansMade) if p.floor_holder == "Alex" and p.turn >= 1]
    assert held and all(r.plan.action is Action.LISTEN for r in held)  # the floor was Alex's: the hand stays up
    free = next(plan_of(p, HUMAN) for p in of_type(events, PlansMade) if p.turn >= 1 and p.floor_holder is None)
    assert (free.plan.action, free.plan.urgency, free.plan.answer) == (Action.SPEAK, 9, "B")


# -- the live controls are checked where they enter (hostile-probe round) ------------------------------------------
FREE = Question(text="Who wrote Hamlet?", answer="Shakespeare")


def test_a_lone_surrogate_in_a_standing_answer_is_cleaned_and_the_debate_records(tmp_path):
    from storage import Store

    channel = HumanChannel()
    assert channel.set_stance(answer="Marlowe \ud800\x00") == {"answer": "Marlowe \ufffd"}
    seat = HumanSeat(HUMAN, channel, timeout_s=WAIT_S, live=True)
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [ALEX_FOUR]})
    cfg = human_config(question=FREE, max_turns=3, initial_answers={HUMAN: SuppliedInitialAnswer(answer="Marlowe")})
    store = Store(tmp_path / "s.sqlite3")
    try:
        events = list(store.record(Debate(cfg, backend, seats={HUMAN: seat}, segmenter=SentenceSplitter()).events()))
        assert store.debate(events[0].debate_id).status == "finished"
        assert store.events(events[0].debate_id) == events
    finally:
        store.close()
    assert plan_of(plans_at(events, 1), HUMAN).plan.answer == "Marlowe \ufffd"


@pytest.mark.parametrize(
    "values",
    [
        {"answer": "B" * 2_001},  # longer than anything a person may say
        {"answer": ["B"]},
        {"intent": "\ud800"},
        {"intent": "interrupt", "point": "p" * 1_001},
        {"mood": "cross"},
    ],
    ids=["long-answer", "list-answer", "surrogate-intent", "long-point", "unknown-control"],
)
def test_live_controls_that_are_no_control_are_refused_and_change_nothing(values):
    channel = HumanChannel()
    channel.set_stance(intent="raise", urgency=4)
    with pytest.raises(HumanInputError):
        channel.set_stance(**values)
    assert channel.stance() == {"intent": "raise", "urgency": 4}


@pytest.mark.parametrize(
    "urgency",
    [10**5_000, -1, 10, 2.5, float("nan"), "7", "", True, [9]],
    ids=["5000-digits", "-1", "10", "2.5", "nan", "text", "blank", "bool", "list"],
)
def test_an_urgency_that_is_no_integer_0_to_9_is_dropped_and_the_armed_interrupt_goes_at_9(urgency):
    channel = HumanChannel()
    assert channel.set_stance(urgency=3) == {"urgency": 3}
    assert channel.set_stance(intent="interrupt", urgency=urgency) == {"intent": "interrupt"}
    assert channel.set_stance(urgency=7.0, intent=None) == {"urgency": 7}  # 7.0 is 7; None removes


def test_an_armed_interrupt_with_a_huge_urgency_still_cuts_at_urgency_9():
    events, _ = live_debate({1: {"intent": "interrupt", "urgency": 10**5_000, "answer": "b"}}, max_turns=5)
    [cut] = of_type(events, Interrupted)
    assert (cut.turn, cut.interrupter) == (1, HUMAN)
    assert plan_of(plans_at(events, 1), HUMAN).plan.urgency == 9
