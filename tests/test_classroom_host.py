"""The host's moves in a classroom: closing the poll early, giving a seat to anyone in the audience by name, and
turning a raised hand into the seat it asks for. Each is the host's alone (by token, on the server), and the
page's endpoints refuse everyone else with a sentence and change nothing."""

from __future__ import annotations

import html

import pytest

from tests.test_ui_classroom_wiring import started
from ui.classroom import Conflict, Forbidden, Invalid, Role
from ui.classroom.testing import classroom
from ui.classroom_actions import ANY_SEAT, HANDLERS
from ui.classroom_live import classroom_of
from ui.classroom_panel import KEYS, refresh
from ui.page_access import open_page, remember


def said(text: str) -> str:
    return html.unescape(text)


def test_the_host_closes_the_poll_early_and_its_tally_is_frozen_and_recorded():
    room, host, clock = classroom()
    lee, max_ = room.join("Lee"), room.join("Max")
    room.open_poll("round 1", ["A", "B"])
    room.vote(lee, "round 1", "B")
    for someone in (lee, None, "forged-" + "x" * 40):
        with pytest.raises(Forbidden, match="close the poll"):
            room.end_poll(someone)
    assert room.tally() is not None and room.tally().open  # type: ignore[union-attr]
    clock.advance(5)
    closed = room.end_poll(host)
    assert closed is not None and not closed.open and closed.counts == (0, 1)
    with pytest.raises(Conflict, match="closed"):
        room.vote(max_, "round 1", "A")
    assert room.tally() is None and room.end_poll(host) is None  # nothing open now
    [kept] = room.record().polls
    assert kept == closed and kept.closed_at == clock.now  # recorded as a poll the next round closes is


def test_the_host_gives_a_seat_to_anyone_in_the_audience_by_name_and_their_own_token_holds_it():
    room, host, _ = classroom()
    dana, eve = room.join("Dana"), room.join("Eve")
    [dana_id] = [m.id for m in room.members() if m.name == "Dana"]
    eve_id = next(m.id for m in room.members() if m.name == "Eve")
    assert room.hands() == ()  # no hand is up: any joined member can be given a seat
    with pytest.raises(Forbidden):
        room.assign(eve, "Ann", person=dana_id)
    assert room.assign(host, "Ann", person=dana_id) is None  # no new token: Dana's own holds the seat
    assert room.identify(dana).seat == "Ann" and room.authorize(dana, "interrupt", "Ann") is Role.SEAT
    with pytest.raises(Conflict, match="already holds Ann"):
        room.assign(host, "Ben", person=dana_id)
    with pytest.raises(Conflict, match="held by Dana"):
        room.assign(host, "Ann", person=eve_id)
    with pytest.raises(Invalid):
        room.assign(host, "Ann", person="nobody")
    assert room.identify(eve).role is Role.AUDIENCE


def test_a_raised_hand_names_its_seat_and_granting_it_gives_that_seat():
    room, host, _ = classroom()
    fay, gus = room.join("Fay"), room.join("Gus")
    room.raise_hand(fay, seat="Cal")
    room.raise_hand(gus)  # any seat
    with pytest.raises(Invalid):
        room.raise_hand(fay, seat="Nobody")
    hands = {h.name: h for h in room.hands()}
    assert (hands["Fay"].hand_seat, hands["Gus"].hand_seat) == ("Cal", None)
    with pytest.raises(Forbidden):
        room.grant(gus, hands["Fay"].id)
    assert room.grant(host, hands["Fay"].id, "Ann") == "Cal"  # the hand's own seat, not the one picked
    assert room.identify(fay).seat == "Cal"
    with pytest.raises(Invalid, match="any seat"):
        room.grant(host, hands["Gus"].id)
    assert room.grant(host, hands["Gus"].id, "Ben") == "Ben"
    with pytest.raises(Conflict, match="not up"):
        room.grant(host, hands["Gus"].id, "Ann")


@pytest.fixture
def live_room():
    live, host = started()
    yield live, host
    live.stop()


def test_the_pages_endpoints_do_the_hosts_moves_for_the_host_only(live_room):
    live, _ = live_room
    room = classroom_of(live.debate_id).room  # type: ignore[union-attr]
    hosting = remember({}, live)
    lee = {live.debate_id: room.join("Lee")}
    kim = {live.debate_id: room.join("Kim")}
    room.open_poll("round 9", ["A", "B"])
    page = open_page(live, lee)
    # the audience's page: the seat its hand asks for, the vote open
    drawn = dict(zip(KEYS, refresh(page, lee, None), strict=True))
    assert (ANY_SEAT.capitalize(), ANY_SEAT) in drawn["hand-seat"]["choices"]
    assert drawn["vote-button"]["interactive"] is True
    assert "Alex" in said(HANDLERS["classroom_raise_hand"](page, lee, "Alex"))
    hand = room.hands()[0]
    assert (hand.name, hand.hand_seat) == ("Lee", "Alex")
    # the host's page lists the hand with its seat, and the audience by name
    drawn = dict(zip(KEYS, refresh(open_page(live, hosting), hosting, None), strict=True))
    assert ("Lee (asks for Alex)", hand.id) in drawn["hands"]["choices"]
    assert "asks for Alex" in drawn["roster"]
    assert [name for name, _ in drawn["members"]["choices"]] == ["Lee", "Kim"]
    assert drawn["close-poll"]["interactive"] is True
    kim_id = next(pid for name, pid in drawn["members"]["choices"] if name == "Kim")
    # nobody but the host: refused, nothing changes
    for tokens in ({}, lee, kim, {live.debate_id: "forged-" + "x" * 40}):
        for api, values in (
            ("classroom_close_poll", ()),
            ("classroom_give_seat", ("Chris", kim_id)),
            ("classroom_assign", ("Chris", hand.id)),
        ):
            assert "bad" in HANDLERS[api](open_page(live, tokens), tokens, *values), (api, tokens)
    assert room.tally() is not None and room.roster()[0].holder is None
    # the host: the hand gets the seat it asked for, Kim the seat picked, the poll closes
    assert "Lee now holds Alex" in said(HANDLERS["classroom_assign"](page, hosting, "Jenny", hand.id))
    assert "Kim now holds Chris" in said(HANDLERS["classroom_give_seat"](page, hosting, "Chris", kim_id))
    assert "already" in said(HANDLERS["classroom_give_seat"](page, hosting, "Jenny", kim_id))
    assert "closed" in said(HANDLERS["classroom_close_poll"](page, hosting))
    assert "No poll is open" in said(HANDLERS["classroom_close_poll"](page, hosting))
    assert {s.agent: s.holder for s in room.roster()} == {"Alex": "Lee", "Chris": "Kim", "Jenny": None}
    assert live.channel_of("Alex") is not None and live.channel_of("Chris") is not None  # the debate followed
    # an audience member's page now says the poll has closed, and a vote is refused
    ned = {live.debate_id: room.join("Ned")}
    drawn = dict(zip(KEYS, refresh(open_page(live, ned), ned, None), strict=True))
    assert drawn["vote-button"]["value"] == "The poll has closed" and drawn["vote-button"]["interactive"] is False
    assert "closed" in said(HANDLERS["classroom_vote"](open_page(live, ned), ned, "A"))
    assert room.record().polls[-1].total == 0
