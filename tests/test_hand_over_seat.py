"""A seat people come and go from (``HandOverSeat``): its model, a person, or nobody answers, switched from
outside; a person who leaves while asked never holds the debate up."""

from __future__ import annotations

import threading

import pytest

from debate_core import AgentSpec, Debate, HumanChannel, SeatKind
from debate_core.backends.base import Completion
from debate_core.errors import StaleRequestError
from debate_core.events import DebateEnded, EndReason, PlansMade, Source, UtteranceGenerated
from debate_core.kernel import Acting, HandOverSeat
from debate_core.kernel.seats import model_seat
from debate_core.kernel.shared_seat import LEFT, NOBODY
from tests.conftest import SentenceSplitter, build_script_backend, make_config, of_type
from tests.test_human_seat import FORMS, WAIT_S, make_view

AGENT = "Alex"


def seat(acting: Acting = Acting.MODEL, channel: HumanChannel | None = None) -> HandOverSeat:
    return HandOverSeat(AGENT, model_seat(make_config(), AGENT), acting=acting, channel=channel)


def answered(result_of, *, within: float = WAIT_S):
    """Run ``result_of()`` in a thread (it may block on a person); its result, or fail if it hangs."""
    box: list = []
    worker = threading.Thread(target=lambda: box.append(result_of()), daemon=True)
    worker.start()
    worker.join(within)
    assert not worker.is_alive(), "the seat kept the debate waiting"
    return box[0]


def test_acting_as_its_model_it_sends_one_request_and_reads_the_reply_as_the_models():
    shared = seat(Acting.MODEL)
    form, view = FORMS["plan"], make_view()
    [request] = shared.ask(form, view, turn=1)
    assert request.agent == AGENT and request.kind == "plan"
    text = '{"action": "speak", "urgency": 7, "answer": "B", "thought": "x"}'
    result = shared.receive(form, view, [Completion(text, 1, 1)])
    alone = model_seat(make_config(), AGENT)
    [same] = alone.ask(form, view, turn=1)
    assert same.sampling == request.sampling and same.messages == request.messages  # exactly as its model seat
    expected = alone.receive(form, view, [Completion(text, 1, 1)])
    assert result.source is Source.MODEL and (result.value, result.valid) == (expected.value, expected.valid)


def test_with_nobody_in_it_the_turn_passes_recorded_as_valid_with_a_note():
    shared = seat(Acting.PASS)
    form, view = FORMS["plan"], make_view()
    assert shared.ask(form, view, turn=1) == []
    result = shared.receive(form, view, [])
    assert (result.source, result.valid, result.note) == (Source.POLICY, True, NOBODY)
    assert result.value == form.fallback(view)


def test_a_person_in_it_answers_their_words_and_their_plans_come_from_their_stance():
    channel = HumanChannel()
    shared = seat(Acting.MODEL)
    shared.to_person(channel)
    assert shared.acting is Acting.PERSON and shared.channel is channel
    # a plan: from the stance at once (a live seat), never waited for
    channel.set_stance(intent="raise", urgency=6)
    plan, view = FORMS["plan"], make_view()
    assert shared.ask(plan, view, turn=1) == []
    result = shared.receive(plan, view, [])
    assert result.source is Source.HUMAN and result.value.urgency == 6
    # an initial answer: waited for, and the person's
    initial = FORMS["initial_answer"]
    assert shared.ask(initial, view, turn=0) == []
    request = channel.pending(timeout_s=WAIT_S)
    assert request is not None
    channel.submit(request.request_id, {"answer": "C", "reason": "mine"})
    result = answered(lambda: shared.receive(initial, view, []))
    assert result.source is Source.HUMAN and result.valid and result.note is None


def test_a_model_takes_over_from_the_next_request_and_the_seat_goes_back_to_a_person_later():
    channel = HumanChannel()
    shared = seat(Acting.PERSON, channel)
    shared.to_model()
    assert shared.acting is Acting.MODEL and shared.channel is None
    assert len(shared.ask(FORMS["plan"], make_view(), turn=2)) == 1
    shared.receive(FORMS["plan"], make_view(), [Completion("{}", 1, 1)])
    shared.to_pass()
    assert shared.ask(FORMS["plan"], make_view(), turn=3) == []
    assert shared.receive(FORMS["plan"], make_view(), []).note == NOBODY
    shared.to_person(HumanChannel())
    assert shared.acting is Acting.PERSON


@pytest.mark.parametrize("switch", ["to_model", "to_pass", "to_person"])
def test_a_switch_while_the_person_is_asked_withdraws_the_request_and_the_turn_passes(switch):
    channel = HumanChannel()
    shared = seat(Acting.PERSON, channel)  # waits as long as it takes: only the switch can end the wait
    form, view = FORMS["initial_answer"], make_view()
    shared.ask(form, view, turn=0)
    request = channel.pending(timeout_s=WAIT_S)
    assert request is not None

    def leave_once_waiting() -> None:
        # the debate is blocked in receive by now, or about to be: either way it must not hang
        getattr(shared, switch)(*((HumanChannel(),) if switch == "to_person" else ()))

    leaver = threading.Timer(0.05, leave_once_waiting)
    leaver.start()
    result = answered(lambda: shared.receive(form, view, []))
    leaver.join()
    assert (result.source, result.valid, result.note) == (Source.HUMAN, True, LEFT)
    assert result.value == form.fallback(view)
    assert channel.pending(timeout_s=0) is None
    with pytest.raises(StaleRequestError):  # the person's late words reach nothing
        channel.submit(request.request_id, {"answer": "C", "reason": "late"})


def test_a_person_who_answered_before_leaving_is_kept():
    channel = HumanChannel()
    shared = seat(Acting.PERSON, channel)
    form, view = FORMS["initial_answer"], make_view()
    shared.ask(form, view, turn=0)
    request = channel.pending(timeout_s=WAIT_S)
    assert request is not None
    channel.submit(request.request_id, {"answer": "D", "reason": "then I left"})
    shared.to_model()
    result = shared.receive(form, view, [])
    assert result.source is Source.HUMAN and result.note is None and result.value[0] == "D"


def test_stop_ends_a_persons_wait():
    channel = HumanChannel()
    shared = seat(Acting.PERSON, channel)
    form, view = FORMS["initial_answer"], make_view()
    shared.ask(form, view, turn=0)
    threading.Timer(0.05, shared.cancel).start()
    result = answered(lambda: shared.receive(form, view, []))
    assert result.valid is False  # the seat closed: recorded as such


def test_a_debate_follows_the_switches_and_the_events_say_who_answered():
    """Chris's seat: the model for the first turns, then a person (who speaks), then nobody."""
    config = make_config(agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny")))
    config = config.model_copy(update={"max_turns": 6})
    shared = HandOverSeat("Chris", model_seat(config, "Chris"))
    channel = HumanChannel()
    debate = Debate(config, build_script_backend(), seats={"Chris": shared}, segmenter=SentenceSplitter())
    events = []
    for event in debate.events():
        events.append(event)
        if isinstance(event, PlansMade) and event.turn == 1:
            channel.set_stance(intent="raise", urgency=9)
            shared.to_person(channel)
            threading.Thread(target=_say, args=(channel, "I hold Chris's seat now."), daemon=True).start()
        if isinstance(event, UtteranceGenerated) and event.speaker == "Chris" and event.source is Source.HUMAN:
            shared.to_pass()
    assert isinstance(events[-1], DebateEnded) and events[-1].reason is not EndReason.ERROR
    sources = {p.turn: next(r.source for r in p.plans if r.agent == "Chris") for p in of_type(events, PlansMade)}
    assert sources[0] is Source.MODEL and sources[1] is Source.MODEL
    assert Source.HUMAN in sources.values() and sources[max(sources)] is Source.POLICY
    spoken = [u for u in of_type(events, UtteranceGenerated) if u.speaker == "Chris" and u.source is Source.HUMAN]
    assert spoken and spoken[0].text == "I hold Chris's seat now."


def _say(channel: HumanChannel, text: str) -> None:
    request = channel.pending(timeout_s=WAIT_S)
    if request is not None and request.kind == "utterance":
        channel.submit(request.request_id, {"text": text})


def test_the_seat_keeps_the_configured_kind():
    config = make_config(agents=(AgentSpec(name="Alex"), AgentSpec(name="Hana", seat=SeatKind.HUMAN)))
    shared = HandOverSeat("Hana", None, kind=SeatKind.HUMAN, acting=Acting.MODEL)
    assert shared.acting is Acting.PASS  # no model to hand it to: its turns pass
    Debate(config, build_script_backend(), seats={"Hana": shared}, segmenter=SentenceSplitter())
