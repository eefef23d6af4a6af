"""Who may do what in a classroom debate: every role against every action, forged and hostile tokens."""

from __future__ import annotations

import contextlib
import logging

import pytest

from ui.classroom import ROOMS, Action, Forbidden, Invalid, Role, Room, Rooms
from ui.classroom.roles import ANYONE, AUDIENCE_ACTIONS, HOST_ACTIONS, SEAT_ACTIONS
from ui.classroom.testing import classroom


@pytest.fixture
def cast():
    """A room: Ann's and Ben's seats held by two students, Cal's a model's; a joined audience member."""
    room, host, _ = classroom()
    room.open_seat(host, "Ann")
    room.open_seat(host, "Ben")
    tokens = {
        "host": host,
        "ann": room.take_seat("Ann", "Student One"),
        "ben": room.take_seat("Ben", "Student Two"),
        "audience": room.join("Viewer"),
        "none": None,
        "wrong": "x" * 43,
        "other room's host": classroom(debate_id="d2")[1],
    }
    return room, tokens


def test_every_action_belongs_to_exactly_one_set():
    sets = [ANYONE, AUDIENCE_ACTIONS, SEAT_ACTIONS, HOST_ACTIONS]
    for action in Action:
        assert sum(action in s for s in sets) == 1, action


WHO = ["host", "ann", "ben", "audience", "none", "wrong", "other room's host"]
ALLOWED: dict[str, set[str]] = {
    **{a.value: set(WHO) for a in ANYONE},
    **{a.value: {"audience"} for a in AUDIENCE_ACTIONS},
    **{a.value: {"ann"} for a in SEAT_ACTIONS},  # asked for Ann's seat
    **{a.value: {"host"} for a in HOST_ACTIONS},
}
EXPECTED_ROLE = {"host": Role.HOST, "ann": Role.SEAT, "ben": Role.SEAT, "audience": Role.AUDIENCE}


@pytest.mark.parametrize("who", WHO)
@pytest.mark.parametrize("action", list(Action))
def test_each_role_may_do_only_its_own_actions(cast, who, action):
    room, tokens = cast
    agent = "Ann" if action in SEAT_ACTIONS else None
    if who in ALLOWED[action.value]:
        role = room.authorize(tokens[who], action, agent)
        assert role is EXPECTED_ROLE.get(who, Role.AUDIENCE)
    else:
        with pytest.raises(Forbidden) as refused:
            room.authorize(tokens[who], action, agent)
        text = str(refused.value)
        assert text and all(t not in text for t in tokens.values() if t)


def test_a_seated_person_acts_in_no_other_seat(cast):
    room, tokens = cast
    for action in (Action.INTERRUPT, Action.SUBMIT):
        assert room.authorize(tokens["ben"], action, "Ben") is Role.SEAT
        with pytest.raises(Forbidden, match="not your seat"):
            room.authorize(tokens["ben"], action, "Ann")
        with pytest.raises(Forbidden, match="not your seat"):
            room.authorize(tokens["ann"], action, "Cal")  # a model's seat: nobody's


def test_a_host_who_sits_has_both_parts_and_no_other_seat():
    room, host, _ = classroom(host_seat="Ann", host_name="Teacher")
    assert room.identify(host).seat == "Ann" and room.identify(host).host
    assert room.authorize(host, Action.INTERRUPT, "Ann") is Role.SEAT
    assert room.authorize(host, Action.PAUSE) is Role.HOST
    with pytest.raises(Forbidden):
        room.authorize(host, Action.SUBMIT, "Ben")
    with pytest.raises(Forbidden, match="audience"):
        room.authorize(host, Action.VOTE)


@pytest.mark.parametrize(
    "forged",
    [None, "", " ", 0, 12345, 3.5, b"bytes", ["list"], {"token": "x"}, "A" * 43, "A" * 10_000, "\x00", "\ud800"],
)
def test_forged_tokens_are_refused_and_raise_nothing_else(forged):
    room, host, _ = classroom()
    room.open_seat(host, "Ann")
    room.take_seat("Ann", "Student")
    assert room.identify(forged).watching
    assert room.attach(forged).watching
    for action in (Action.PAUSE, Action.STOP, Action.ASSIGN, Action.INTERRUPT, Action.SUBMIT, Action.VOTE):
        with pytest.raises(Forbidden):
            room.authorize(forged, action, "Ann")
    with pytest.raises(Forbidden):
        room.free_seat(forged, "Ann")
    with pytest.raises(Forbidden):
        room.open_seat(forged, "Ben")
    with pytest.raises(Forbidden):
        room.vote(forged, "k", "A")
    if forged is not None:  # a token that is not this room's does not sit anyone (no token: a new person joins)
        room.open_seat(host, "Ben")
        with pytest.raises(Forbidden):
            room.take_seat("Ben", "Sneaky", token=forged)


def test_a_host_token_of_another_room_is_nothing_here():
    rooms = Rooms()
    room1, host1, _ = classroom(rooms=rooms)
    room2, host2, _ = classroom(debate_id="d2", rooms=rooms)
    assert room1.authorize(host1, Action.STOP) is Role.HOST
    with pytest.raises(Forbidden):
        room1.authorize(host2, Action.STOP)
    with pytest.raises(Forbidden):
        room2.free_seat(host1, "Ann")


def test_a_second_browser_with_the_same_link_is_audience():
    rooms = Rooms()
    room, host, _ = classroom(rooms=rooms, host_seat="Ann", host_name="Teacher")
    # the second browser opens the same link: it finds the room, but brings no token
    found = rooms.by_code(room.join_code.lower())
    assert found is room
    second = found.identify(None)
    assert second.role is Role.AUDIENCE and second.watching and second.seat is None
    assert found.authorize(None, Action.WATCH) is Role.AUDIENCE
    for action in (Action.INTERRUPT, Action.SUBMIT, Action.PAUSE, Action.VOTE):
        with pytest.raises(Forbidden):
            found.authorize(None, action, "Ann")
    joined = found.join("Second Browser")
    assert found.identify(joined).role is Role.AUDIENCE
    with pytest.raises(Forbidden):
        found.authorize(joined, Action.INTERRUPT, "Ann")
    assert found.authorize(host, Action.INTERRUPT, "Ann") is Role.SEAT  # the first browser keeps its seat


def test_unknown_seats_and_actions_are_invalid_not_crashes():
    room, host, _ = classroom()
    with pytest.raises(Invalid):
        room.open_seat(host, "Nobody")
    with pytest.raises(Invalid):
        room.take_seat(["Ann"], "x")  # type: ignore[arg-type]
    with pytest.raises(Invalid):
        room.authorize(host, "launch_missiles")  # type: ignore[arg-type]


def test_no_token_ever_reaches_the_log(caplog):
    caplog.set_level(logging.DEBUG)
    room, host, clock = classroom()
    room.open_seat(host, "Ann", fallback="pass")
    seat = room.take_seat("Ann", "Student")
    member = room.join("Viewer")
    for token in (host, seat, member, "forged-" + "x" * 30):
        for action in Action:
            with contextlib.suppress(Forbidden):
                room.authorize(token, action, "Ben")
    room.disconnect(seat)
    clock.advance(1_000)
    room.tick()
    text = caplog.text + repr(room) + repr(room.roster()) + repr(room.members()) + room.record().to_json()
    for token in (host, seat, member):
        assert token not in text
    assert "refused" in caplog.text  # refusals are logged, by action only


def test_the_servers_registry_is_the_default():
    room, _ = Room.create("classroom-default-registry", {"Ann": None})
    try:
        assert ROOMS.by_code(room.join_code) is room and ROOMS.by_debate(room.debate_id) is room
    finally:
        room.close()
    assert ROOMS.by_code(room.join_code) is None
