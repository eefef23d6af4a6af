"""Meeting Scheduling on the scripted backend: the rules, the verdict, every listener policy, the symmetric setting."""

from __future__ import annotations

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.backends.router import BackendRouter
from debate_core.backends.scripted import ScriptedReply
from debate_core.config import Question
from debate_core.errors import ConfigError
from debate_core.events import (
    EndReason,
    Interrupted,
    ListenerDecision,
    PhaseStarted,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceGenerated,
)
from debate_core.protocols.consistency import check_stream
from protocols.handraiser.cost import debate_cost
from protocols.handraiser.meeting.cases import committed, scheduling_question
from protocols.handraiser.meeting.demo import SchedulingDemo
from tests.conftest import of_type

AGENTS = (AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny"))
CASE = committed()["meeting-0002"]  # Rosa (Chris) at Fig Market, Lars (Jenny) at Juniper Flats
QUESTION = scheduling_question(CASE)
GOOD = "SCHEDULE\nMEET Rosa AT Fig Market FROM 10:50 AM TO 12:20 PM\nMEET Lars AT Juniper Flats FROM 1:10 PM TO 2:25 PM"
ROSA = "Rosa is at Fig Market, free 10:50 AM to 3:50 PM, and needs at least 90 minutes; she would rather meet early."


def config(variant: str = "prompted", *, agents=AGENTS, question=QUESTION, **params) -> DebateConfig:
    return DebateConfig(question=question, agents=agents, protocol="scheduling", variant=variant, params=params)


class Script:
    """The traveler takes ``turns`` in order (the last repeats); a planner writes ``planner`` to the traveler, or
    ``to`` its next addressee; a listener says yes at the listed (listener, message, chunk) points."""

    def __init__(self, turns=("To: Chris\nWhere is Rosa?", GOOD), planner=ROSA, yes=(), to=()) -> None:
        self.turns, self.planner, self.yes, self.to = list(turns), planner, set(yes), list(to)
        self.messages = 0
        self.heard: dict[str, int] = {}  # chunks each listener has heard of the current message
        self.kinds: list[str] = []

    def __call__(self, request):
        self.kinds.append(request.kind)
        if request.kind == "listen":
            who = _listener(request)
            self.heard[who] = self.heard.get(who, 0) + 1
            yes = (who, self.messages, self.heard[who]) in self.yes
            return ScriptedReply("Yes" if yes else "No", choice_probs={"Yes": 0.9 if yes else 0.1})
        self.messages += 1
        self.heard = {}
        if request.kind == "traveler_turn":
            return self.turns.pop(0) if len(self.turns) > 1 else self.turns[0]
        addressee = self.to.pop(0) if self.to else "Alex"
        return f"To: {addressee}\n{self.planner}"


def _listener(request) -> str:
    system = request.messages[0].content
    return system.removeprefix("You are ").split(",", 1)[0]


def run(cfg: DebateConfig, script=None) -> list:
    events = Debate(cfg, ScriptedBackend(script or Script())).run()
    check_stream(events)  # a stream that can have happened, under the protocol's own rules
    return events


def verdict_of(events) -> PhaseStarted:
    return next(p for p in of_type(events, PhaseStarted) if p.phase == "verdict")


# -- the game and the verdict -----------------------------------------------------------------------------------
def test_the_scripted_demo_plays_to_a_schedule_that_holds_every_constraint():
    cfg = config("prompted")
    events = Debate(cfg, ScriptedBackend(SchedulingDemo(cfg).reply)).run()
    check_stream(events)
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct, end.rule, end.decided_by) == (
        EndReason.VERDICT, "valid", True, "single", "Alex"
    )  # fmt: skip
    schedule = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "schedule")
    assert schedule.speaker == "Alex" and schedule.structured["ok"] is True and schedule.structured["violations"] == []
    assert "MEET Rosa AT Fig Market FROM 10:50 AM TO 12:20 PM" in schedule.text
    assert verdict_of(events).detail == "The schedule satisfies every hard constraint."
    assert of_type(events, Interrupted), "the scripted traveler cuts a planner off once the facts are out"


@pytest.mark.parametrize(
    ("schedule", "kind", "constraint"),
    [
        ("MEET Rosa AT Lantern Row FROM 10:50 AM TO 12:20 PM\nMEET Lars AT Juniper Flats FROM 1:10 PM TO 2:25 PM",
         "wrong_location", "i"),
        ("MEET Rosa AT Fig Market FROM 10:50 AM TO 12:20 PM\nMEET Lars AT Juniper Flats FROM 12:30 PM TO 1:45 PM",
         "travel_time", "ii"),
        ("MEET Rosa AT Fig Market FROM 10:50 AM TO 12:20 PM", "missing_meeting", "iii"),
        ("MEET Rosa AT Fig Market FROM 10:50 AM TO 12:20 PM\nMEET Lars AT Juniper Flats FROM 1:10 PM TO 2:25 PM\n"
         "MEET Lars AT Juniper Flats FROM 4:55 PM TO 6:10 PM", "extra_meeting", "iii"),
    ],
)  # fmt: skip
def test_a_schedule_breaking_a_constraint_scores_zero_with_the_violation_recorded(schedule, kind, constraint):
    events = run(config("generic"), Script(turns=("SCHEDULE\n" + schedule,)))
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct) == (EndReason.VERDICT, "invalid", False)
    said = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "schedule")
    assert said.structured["ok"] is False and said.structured["failed"] == [constraint]
    assert [v["kind"] for v in said.structured["violations"]] == [kind]
    assert f"({constraint}) {kind}:" in verdict_of(events).detail


def test_the_round_limit_ends_the_game_without_a_schedule_a_failure():
    script = Script(turns=("To: Chris\nWhere is Rosa?",))
    events = run(config("generic", max_rounds=3), script)
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct) == (EndReason.ROUNDS, None, False)
    assert [p.round for p in of_type(events, PhaseStarted) if p.phase == "round"] == [1, 2, 3]
    assert len(of_type(events, UtteranceGenerated)) == 6  # a round is one back-and-forth: two messages


def test_an_unreadable_schedule_is_recorded_and_the_traveler_is_asked_again_with_the_reason():
    backend = ScriptedBackend(Script(turns=("SCHEDULE\nMEET Rosa at noon", GOOD)))
    events = Debate(config("generic"), backend).run()
    check_stream(events)
    bad = of_type(events, UtteranceGenerated)[0]
    assert bad.speaker == "Alex" and bad.text == "" and "unreadable schedule" in bad.error and "MEET Rosa" in bad.raw
    asked = [r for r in backend.requests if r.kind == "traveler_turn"]
    assert len(asked) == 2 and "could not be used (an unreadable schedule" in asked[1].messages[-1].content
    assert events[-1].correct is True


def test_each_seat_chooses_whom_it_writes_to_and_that_seat_holds_the_floor_next():
    turns = ("To: Planner A\nCan you agree a time with Lars's planner?", GOOD)
    events = run(config("generic"), Script(turns=turns, to=("Planner B", "Alex")))
    said = [(u.speaker, (u.structured or {}).get("to")) for u in of_type(events, UtteranceGenerated)]
    assert said == [("Alex", "Chris"), ("Chris", "Jenny"), ("Jenny", "Alex"), ("Alex", None)]
    assert [(s.speaker, s.rule) for s in of_type(events, SpeakerSelected)] == [
        ("Chris", "addressed"), ("Jenny", "addressed"), ("Alex", "addressed")
    ]  # fmt: skip


def test_a_message_naming_nobody_goes_to_the_seat_that_spoke_before_with_a_note():
    events = run(config("generic"), Script(turns=("Where is Rosa?", GOOD), to=("the moon",)))
    first, second = of_type(events, UtteranceGenerated)[:2]
    assert first.structured["to"] == "Chris" and "no 'To:' line" in first.structured["note"]  # the first planner
    assert second.structured["to"] == "Alex" and "names nobody" in second.structured["note"]  # who spoke before


def test_each_seat_sees_only_its_own_briefing():
    backend = ScriptedBackend(Script())
    Debate(config("prompted"), backend).run()
    for request in backend.requests:
        prompt = " ".join(m.content for m in request.messages)
        traveler = request.messages[0].content.startswith("You are Alex")
        assert ("Travel times between locations" in prompt) == traveler, request.kind
        assert ("Available: 10:50 AM to 3:50 PM" in prompt) == (not traveler), request.kind
        assert "1:10 PM" not in prompt  # the reference is in nobody's briefing


# -- the case in a configuration --------------------------------------------------------------------------------
def test_the_case_travels_in_the_question_or_by_id_or_by_seed():
    plain = Question(text="Plan my day", answer="valid")
    events = run(config("generic", question=plain, case="meeting-0002"), Script())
    assert events[-1].correct is True  # the parameter names a committed case
    by_seed = config("generic", question=plain).model_copy(update={"seed": 53})
    events = run(by_seed, SchedulingDemo(by_seed).reply)
    assert of_type(events, PhaseStarted)[0].detail.startswith("meeting-0003:")  # seed 53 mod 50
    with pytest.raises(ConfigError, match="carries case meeting-0002"):
        Debate(config("generic", case="meeting-0004"), ScriptedBackend([]))
    with pytest.raises(ConfigError, match="no committed case"):
        Debate(config("generic", question=plain, case="meeting-9999"), ScriptedBackend([]))
    with pytest.raises(ConfigError):
        Debate(config("generic", agents=AGENTS[:2]), ScriptedBackend([]))


def test_a_multiple_choice_question_plays_the_seeds_case_and_ends_with_no_answer():
    question = Question(text="Which gas?", options=("Oxygen", "Nitrogen"), answer="B")
    cfg = config("generic", question=question)
    events = run(cfg, SchedulingDemo(cfg).reply)
    assert events[-1].final_answer is None and verdict_of(events).detail.startswith("The schedule satisfies")


# -- the listener policies, on the traveler ---------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["prompted", "generic", "concise", "random", "threshold", "learned"])
def test_every_policy_plays_the_scripted_game_to_a_schedule_that_holds(variant):
    params = {"listener": "demo-listener"} if variant == "learned" else {}
    cfg = config(variant, **params)
    demo = ScriptedBackend(SchedulingDemo(cfg).reply)
    listener = ScriptedBackend(SchedulingDemo(cfg).reply, model_id="demo-listener")
    backend = BackendRouter(demo, by_role={"traveler": listener}) if variant == "learned" else demo
    events = Debate(cfg, backend).run()
    check_stream(events)
    assert events[-1].correct is True and events[-1].reason is EndReason.VERDICT
    decisions = of_type(events, ListenerDecision)
    assert bool(decisions) == (variant not in ("generic", "concise"))
    assert {d.listener for d in decisions} <= {"Alex"} and {d.speaker for d in decisions} <= {"Chris", "Jenny"}
    if variant in ("prompted", "threshold", "learned"):
        assert of_type(events, Interrupted)
    cost = debate_cost(events)
    assert cost.decision_tokens == len(decisions) and cost.statements >= 4 and cost.total > 0


def test_the_paper_cost_counts_messages_up_to_the_cut_the_schedule_and_one_token_per_decision():
    events = run(config("prompted", chunk_tokens=4), Script(yes={("Alex", 2, 3)}))
    cost = debate_cost(events)
    cut = of_type(events, Interrupted)[0]
    assert (cut.interrupter, cut.interrupted, cut.disclosed_count) == ("Alex", "Chris", 3)
    disclosed = [u for u in of_type(events, UnitDisclosed) if u.utterance_id == cut.utterance_id]
    first = of_type(events, UtteranceGenerated)[0]
    schedule = of_type(events, UtteranceGenerated)[-1]
    assert cost.statement_tokens == sum(u.tokens for u in disclosed) + first.generation.completion_tokens
    assert cost.moderator_tokens == schedule.generation.completion_tokens
    assert cost.decision_tokens == 3 and cost.interrupt_chunks == (3,)


def test_the_concise_variant_asks_the_planners_to_be_brief():
    backend = ScriptedBackend(Script())
    Debate(config("concise"), backend).run()
    asked = {r.kind: r.messages[-1].content for r in backend.requests}
    assert "Be concise" in asked["planner_turn"] and "Be concise" not in asked["traveler_turn"]


# -- the symmetric setting (§4.5) -------------------------------------------------------------------------------
def test_in_the_symmetric_setting_every_seat_listens_and_cuts_in_cascading():
    yes = {("Chris", 1, 2), ("Alex", 2, 2), ("Jenny", 2, 2)}  # Chris cuts Alex; Alex and Jenny both cut Chris
    script = Script(turns=("To: Jenny\nJenny, tell me where Lars is and when he is free today please.", GOOD),
                    yes=yes, to=("Jenny",))  # fmt: skip
    events = run(config("prompted", chunk_tokens=4, symmetric=True), script)
    cuts = [(c.interrupter, c.interrupted) for c in of_type(events, Interrupted)]
    assert cuts[:2] == [("Chris", "Alex"), ("Jenny", "Chris")]  # both said yes: the one written to takes the floor
    first = of_type(events, ListenerDecision)[:2]
    assert [d.listener for d in first] == ["Chris", "Jenny"]  # the two others decide after each chunk
    assert events[-1].correct is True


def test_the_symmetric_setting_needs_no_person_in_the_travelers_seat_and_seats_the_learned_listener_everywhere():
    from debate_core.protocols.registry import protocol_class

    cls = protocol_class("scheduling")
    symmetric = cls("learned", cls.Params(listener="l1", symmetric=True))
    assert dict(symmetric.seat_models()) == {"traveler": "l1", "planner_a": "l1", "planner_b": "l1"}
    assert symmetric.controls_for("planner_a") == "interrupt"
    plain = cls("prompted", cls.Params())
    assert (plain.controls_for("traveler"), plain.controls_for("planner_a")) == ("interrupt", "none")
    with pytest.raises(ConfigError, match="person in the traveler's seat"):
        Debate(config("human"), ScriptedBackend([]))


# -- the paper's settings ---------------------------------------------------------------------------------------
def test_the_papers_settings_chunks_of_16_tokens_10_rounds_temperature_0_7():
    from debate_core.backends.scripted import scripted_tokens
    from debate_core.protocols.registry import protocol_class

    cls = protocol_class("scheduling")
    assert (cls.Params().chunk_tokens, cls.Params().max_rounds, cls.study_temperature) == (16, 10, 0.7)
    assert (cls.Params().symmetric, cls.Params().planners_see_travel) == (False, False)
    backend = ScriptedBackend(Script())
    events = Debate(config("generic"), backend).run()
    units = [u for u in of_type(events, UnitDisclosed) if u.speaker == "Chris"]
    assert len(units) > 1 and all(len(scripted_tokens(u.text)) <= 16 for u in units)
    assert events[0].segmenter == "tokens:16"
    assert {r.kind: r.sampling.max_new_tokens for r in backend.requests} == {"traveler_turn": 256, "planner_turn": 256}


# -- a person as the traveler -----------------------------------------------------------------------------------
def test_a_person_as_traveler_interrupts_picks_whom_to_write_to_and_submits_a_schedule_that_is_verified():
    import threading

    from debate_core import HumanChannel, HumanSeat, SeatKind
    from debate_core.errors import HumanInputError
    from tests.conftest import HANG_GUARD_S

    channel = HumanChannel()
    agents = (AgentSpec(name="Alex", seat=SeatKind.HUMAN), *AGENTS[1:])
    seat = HumanSeat("Alex", channel, timeout_s=HANG_GUARD_S, live=True)
    cfg = config("human", agents=agents, chunk_tokens=4)
    debate = Debate(cfg, ScriptedBackend(Script()), seats={"Alex": seat})
    typed = iter([
        {"to": "Chris", "text": "Where is Rosa, and when is she free?"},
        {"to": "schedule", "text": "MEET Rosa at noon"},  # refused: the person types it again
        {"to": "schedule", "text": GOOD.removeprefix("SCHEDULE\n").replace("\n", "; ")},
    ])  # fmt: skip
    asked, refused = [], []

    def person():
        while True:
            request = channel.pending(timeout_s=HANG_GUARD_S)
            if request is None:
                return
            asked.append((request.kind, request.fields[0].choices))
            while True:
                try:
                    channel.submit(request.request_id, next(typed))
                    break
                except HumanInputError as error:
                    refused.append(str(error))

    helper = threading.Thread(target=person, daemon=True)
    helper.start()
    events = []
    for event in debate:
        events.append(event)
        if isinstance(event, UnitDisclosed) and event.speaker == "Chris" and event.index == 1:
            channel.set_stance(intent="interrupt")  # pressed while chunk 2 is on screen: the cut follows it
        if isinstance(event, Interrupted):
            channel.set_stance(intent=None)
    channel.close()
    check_stream(events)
    cut = of_type(events, Interrupted)[0]
    assert (cut.interrupter, cut.interrupted, cut.disclosed_count) == ("Alex", "Chris", 2)
    assert asked == [("traveler_turn", ("Chris", "Jenny", "schedule"))] * 2
    assert refused and "unreadable schedule" in refused[0]
    schedule = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "schedule")
    assert schedule.structured["ok"] is True and events[-1].correct is True
    assert verdict_of(events).detail == "The schedule satisfies every hard constraint."
