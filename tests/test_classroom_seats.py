"""Seats in a classroom debate: opening, taking, assigning, freeing, reloads, grace periods and raised hands."""

from __future__ import annotations

import pytest

from ui.classroom import Acting, Action, Conflict, Fallback, Forbidden, HoldingEnd, Role, SeatState
from ui.classroom.testing import classroom


def held(room):
    return {v.agent: v.holder for v in room.roster() if v.holder}


def test_a_seat_is_taken_only_once_opened_and_by_one_person():
    room, host, _ = classroom()
    with pytest.raises(Forbidden, match="not opened"):
        room.take_seat("Ann", "Early Bird")
    room.open_seat(host, "Ann")
    token = room.take_seat("Ann", "First")
    with pytest.raises(Conflict, match="taken"):
        room.take_seat("Ann", "Second")
    room.open_seat(host, "Ben")
    with pytest.raises(Conflict, match="already hold"):
        room.take_seat("Ben", token=token)
    assert held(room) == {"Ann": "First"}
    assert room.identify(token).role is Role.SEAT and room.acting("Ann") is Acting.PERSON


def test_an_audience_member_takes_a_seat_with_their_own_token():
    room, host, _ = classroom()
    member = room.join("Dana")
    room.open_seat(host, "Ben")
    assert room.take_seat("Ben", token=member) == member
    me = room.identify(member)
    assert (me.role, me.seat, me.name) == (Role.SEAT, "Ben", "Dana")
    with pytest.raises(Forbidden):
        room.vote(member, "round 1", "A")  # seated: no longer the audience


def test_a_reload_re_attaches_to_the_seat_and_a_new_browser_only_watches():
    room, host, clock = classroom(grace_s=30)
    room.open_seat(host, "Ann")
    token = room.take_seat("Ann", "Eve")
    room.disconnect(token)  # the page unloads
    clock.advance(5)
    again = room.attach(token)  # the same browser, reloaded: same token from its storage
    assert (again.role, again.seat, again.name) == (Role.SEAT, "Ann", "Eve")
    assert room.authorize(token, Action.INTERRUPT, "Ann") is Role.SEAT
    assert room.attach(None).watching
    for _ in range(100):  # its heartbeats go on: no grace period runs
        clock.advance(10)
        room.heartbeat(token)
    assert held(room) == {"Ann": "Eve"}


@pytest.mark.parametrize("fallback", [Fallback.MODEL, Fallback.PASS])
def test_an_absent_person_keeps_the_seat_for_the_grace_period_then_it_falls_back(fallback):
    changes = []
    room, host, clock = classroom(grace_s=60, on_change=changes.append)
    room.open_seat(host, "Ann", fallback=fallback)
    token = room.take_seat("Ann", "Eve")
    assert changes[-1].acting is Acting.PERSON and changes[-1].holder == "Eve"
    room.advance(3)
    room.disconnect(token)
    clock.advance(59)
    view = room.roster()[0]
    assert view.acting is Acting.PERSON and view.connected is False and view.grace_left_s == pytest.approx(1)
    assert room.acting("Ann") is Acting.PERSON
    room.advance(5)
    clock.advance(1)
    room.tick()
    assert room.acting("Ann") is Acting(fallback.value)
    assert changes[-1].agent == "Ann" and changes[-1].acting is Acting(fallback.value) and changes[-1].holder is None
    view = room.roster()[0]
    assert view.state is SeatState.OPEN and view.holder is None
    back = room.attach(token)
    assert back.role is Role.AUDIENCE and back.seat is None and "away" in back.notice
    assert room.attach(token).notice == ""  # said once
    with pytest.raises(Forbidden):
        room.authorize(token, Action.SUBMIT, "Ann")
    [holding] = room.record().seats
    assert (holding.name, holding.from_turn, holding.to_turn) == ("Eve", 0, 5)
    assert (holding.ended, holding.then) == (HoldingEnd.AWAY, fallback)
    assert room.take_seat("Ann", token=token) == token  # still open: the same person may come back to it


def test_a_page_that_stops_sending_heartbeats_is_away_from_its_last_one():
    room, host, clock = classroom(grace_s=30, away_after_s=10)
    room.open_seat(host, "Ann")
    token = room.take_seat("Ann", "Eve")
    clock.advance(9)
    assert room.roster()[0].connected is True
    room.heartbeat(token)
    clock.advance(11)
    assert room.roster()[0].connected is False
    clock.advance(18)
    assert held(room) == {"Ann": "Eve"}
    clock.advance(2)  # 30 s since the last heartbeat
    assert held(room) == {}


def test_the_host_frees_a_seat_back_to_a_model_or_to_pass():
    changes = []
    room, host, _ = classroom(on_change=changes.append)
    room.open_seat(host, "Ann")
    room.open_seat(host, "Ben")
    ann = room.take_seat("Ann", "Ann's Student")
    ben = room.take_seat("Ben", "Ben's Student")
    room.free_seat(host, "Ann")  # a model takes it, closed to people
    assert room.roster()[0].state is SeatState.MODEL and room.acting("Ann") is Acting.MODEL
    assert changes[-1].acting is Acting.MODEL
    assert "freed" in room.attach(ann).notice and room.identify(ann).role is Role.AUDIENCE
    with pytest.raises(Forbidden):
        room.take_seat("Ann", token=ann)
    room.free_seat(host, "Ben", fallback="pass")  # open again, its turns let pass meanwhile
    assert room.acting("Ben") is Acting.PASS and room.roster()[1].state is SeatState.OPEN
    newcomer = room.take_seat("Ben", "Newcomer")
    assert held(room) == {"Ben": "Newcomer"} and newcomer != ben
    with pytest.raises(Forbidden):
        room.authorize(ben, Action.INTERRUPT, "Ben")
    ends = [(h.name, h.ended, h.then) for h in room.record().seats]
    assert ends == [
        ("Ann's Student", HoldingEnd.FREED, Fallback.MODEL),
        ("Ben's Student", HoldingEnd.FREED, Fallback.PASS),
        ("Newcomer", None, None),
    ]


def test_opening_a_seat_whose_fallback_is_to_pass_tells_the_debate():
    changes = []
    room, host, _ = classroom(on_change=changes.append)
    room.open_seat(host, "Cal", fallback="pass")
    assert changes[-1].agent == "Cal" and changes[-1].acting is Acting.PASS
    room.free_seat(host, "Cal")  # nobody held it: it goes back to its model
    assert changes[-1].acting is Acting.MODEL and room.acting("Cal") is Acting.MODEL


def test_the_host_assigns_a_seat_to_a_named_person_or_to_a_raised_hand():
    room, host, _ = classroom()
    given = room.assign(host, "Cal", display_name="Guest Speaker")
    assert given is not None and room.identify(given).seat == "Cal"
    with pytest.raises(Conflict, match="free it first"):
        room.assign(host, "Cal", display_name="Another")
    member = room.join("Curious")
    other = room.join("Quiet")
    room.raise_hand(member, seat="Ben")
    room.raise_hand(other)
    hands = room.hands()
    assert [(h.name, h.hand_seat) for h in hands] == [("Curious", "Ben"), ("Quiet", None)]
    with pytest.raises(Forbidden):
        room.assign(member, "Ben", person=hands[0].id)  # only the host turns a hand into a seat
    assert room.assign(host, "Ben", person=hands[0].id) is None
    me = room.identify(member)
    assert (me.role, me.seat) == (Role.SEAT, "Ben")
    assert room.authorize(member, Action.INTERRUPT, "Ben") is Role.SEAT
    assert [h.name for h in room.hands()] == ["Quiet"]
    room.lower_hand(other)
    assert room.hands() == ()
    with pytest.raises(Forbidden):
        room.raise_hand(member)  # seated now


def test_a_seated_person_leaves_and_the_seat_stays_open():
    room, host, _ = classroom()
    room.open_seat(host, "Ann")
    token = room.take_seat("Ann", "Eve")
    room.leave_seat(token)
    assert room.identify(token).role is Role.AUDIENCE and room.acting("Ann") is Acting.MODEL
    assert room.roster()[0].state is SeatState.OPEN
    assert room.record().seats[0].ended is HoldingEnd.LEFT
    with pytest.raises(Forbidden):
        room.leave_seat(token)


def test_closing_ends_holdings_refuses_changes_and_expires_the_join_code():
    room, host, clock = classroom(host_seat="Ann")
    rooms = room._rooms
    member = room.join("Viewer")
    room.advance(7)
    record = room.close()
    assert [(h.name, h.to_turn, h.ended) for h in record.seats] == [("Host", 7, HoldingEnd.ENDED)]
    assert rooms.by_code(room.join_code) is None and rooms.by_debate("d1") is None
    for act in (lambda: room.join("Late"), lambda: room.open_seat(host, "Ben"), lambda: room.raise_hand(member)):
        with pytest.raises(Conflict, match="ended"):
            act()
    assert room.identify(host).host  # a closed room still says who a page is
    clock.advance(10_000)
    assert room.close() == record  # again harmless
