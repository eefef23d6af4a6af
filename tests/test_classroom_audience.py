"""The audience of a classroom debate: polls (one vote per member, a tally), display names, the records."""

from __future__ import annotations

import pydantic
import pytest

from ui.classroom import ClassroomRecord, Conflict, Forbidden, Invalid, PollResult, clean_name, html_name, poll_key
from ui.classroom.names import MAX_NAME_CHARS, distinct
from ui.classroom.testing import classroom


def test_one_vote_per_member_per_poll_changeable_until_it_closes():
    room, host, _ = classroom()
    members = [room.join(f"Student {i}") for i in range(5)]
    room.open_poll("round 1", ["A", "B", "C"], label="Round 1")
    for token, choice in zip(members, ["A", "A", "B", "B", "C"], strict=True):
        room.vote(token, "round 1", choice)
    room.vote(members[0], "round 1", "b")  # changes their mind (a choice is matched without case)
    room.vote(members[0], "round 1", "B")  # the same vote again counts once
    tally = room.tally()
    assert tally is not None and tally.counts == (1, 3, 1) and tally.total == 5 and tally.open
    assert room.my_vote(members[0], "round 1") == "B" and room.my_vote(None, "round 1") is None
    closed = room.end_poll(host, "round 1")
    assert closed is not None and not closed.open and closed.counts == (1, 3, 1)
    with pytest.raises(Conflict, match="closed"):
        room.vote(members[4], "round 1", "A")
    assert room.tally("round 1") == closed and room.tally() is None


def test_opening_the_next_poll_closes_the_one_before_and_a_key_is_held_once():
    room, _, _ = classroom()
    member = room.join("Viewer")
    room.advance(2)
    room.open_poll(poll_key("opening"), ["yes", "no"])
    room.vote(member, "opening", "yes")
    room.advance(9)
    room.open_poll(poll_key("round", 2), ["yes", "no"])
    first, second = room.record().polls
    assert (first.key, first.from_turn, first.to_turn, first.counts) == ("opening", 2, 9, (1, 0))
    assert (second.key, second.open) == ("round 2", True)
    with pytest.raises(Conflict):
        room.open_poll("opening", ["yes"])
    with pytest.raises(Conflict):
        room.vote(member, "opening", "no")


@pytest.mark.parametrize(
    "choices", [[], [str(i) for i in range(13)], ["a" * 201], ["  "]], ids=["none", "13", "long", "blank"]
)
def test_a_poll_offers_a_bounded_set_of_choices(choices):
    room, _, _ = classroom()
    with pytest.raises(Invalid):
        room.open_poll("round 1", choices)


def test_votes_for_what_the_poll_does_not_offer_are_refused():
    room, host, _ = classroom()
    member = room.join("Viewer")
    room.open_poll("round 1", ["A", "B"])
    for choice in ["D", "", None, 3, ["A"], "A" * 500]:
        with pytest.raises(Invalid):
            room.vote(member, "round 1", choice)
    with pytest.raises(Invalid):
        room.vote(member, "round 7", "A")
    with pytest.raises(Forbidden):
        room.vote(host, "round 1", "A")  # the host does not vote
    assert room.tally().total == 0


def test_poll_keys_follow_the_protocols_rounds_and_phases():
    assert poll_key("round", 2) == "round 2"
    assert poll_key(None, 3) == "round 3"
    assert poll_key("rebuttal", 1) == "rebuttal, round 1"
    assert poll_key(" opening\n statement ") == "opening statement"
    assert poll_key("") == "debate"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("  Ada   Lovelace ", "Ada Lovelace"),
        ("Ada\nLovelace\t", "Ada Lovelace"),
        ("\u202eevil\u202c name", "evil name"),  # a bidi override would flip what follows it
        ("zero\u200bwidth", "zerowidth"),
        ("\x1b[31mred\x1b[0m", "[31mred[0m"),  # the escape goes; what is left is plain text
        ("Ｆｕｌｌ", "Full"),  # full-width letters folded
        ("<script>alert(1)</script>", "<script>alert(1)</script>"),  # kept as text: escaped where drawn
        ("José Ñúñez", "José Ñúñez"),
        ("李雷", "李雷"),
    ],
)
def test_display_names_are_cleaned(typed, kept):
    assert clean_name(typed) == kept


@pytest.mark.parametrize(
    "typed",
    ["", "   ", "\x00\x01", "\u200b\u200b", "!!!", "🙂", None, 42, ["Ada"], "x" * (MAX_NAME_CHARS + 1), "y" * 10**6],
)
def test_names_without_letters_or_too_long_are_refused(typed):
    with pytest.raises(Invalid):
        clean_name(typed)


def test_a_hostile_name_is_harmless_where_it_is_drawn_and_in_the_room():
    room, host, _ = classroom()
    token = room.join('"><img src=x onerror=alert(1)>')
    name = room.identify(token).name
    assert name == '"><img src=x onerror=alert(1)>'
    drawn = html_name(name)
    assert "<" not in drawn and ">" not in drawn and '"' not in drawn
    room.open_seat(host, "Ann")
    with pytest.raises(Invalid):
        room.take_seat("Ann", "\u202e")  # refused before anyone sits
    assert room.roster()[0].holder is None


def test_the_same_name_twice_is_told_apart():
    room, _, _ = classroom()
    a, b, c = (room.join("Sam") for _ in range(3))
    assert [room.identify(t).name for t in (a, b, c)] == ["Sam", "Sam (2)", "Sam (3)"]
    assert room.identify(room.join("sam")).name == "sam (4)"
    long = "L" * MAX_NAME_CHARS
    assert len(distinct(long, [long])) == MAX_NAME_CHARS


def test_the_record_round_trips_through_json_with_display_names_only():
    room, host, clock = classroom(host_seat="Ann", host_name="Teacher")
    member = room.join("Viewer")
    room.open_seat(host, "Ben")
    seated = room.take_seat("Ben", "Student")
    room.open_poll("round 1", ["A", "B"])
    room.vote(member, "round 1", "A")
    room.advance(4)
    clock.advance(30)
    room.free_seat(host, "Ben")
    record = room.close()
    text = record.to_json()
    back = ClassroomRecord.from_json(text)
    assert back == record and back.polls[0].count_of("A") == 1
    assert [h.name for h in back.seats] == ["Teacher", "Student"]
    assert back.holders_at(0) == {"Ann": "Teacher", "Ben": "Student"}
    assert back.holders_at(4) == {}
    assert len(back.polls_until(0)) == 1
    for secret in (host, member, seated, *(m.id for m in room.members())):
        assert secret not in text
    with pytest.raises(pydantic.ValidationError):
        record.seats[0].name = "changed"  # frozen
    with pytest.raises(pydantic.ValidationError):
        ClassroomRecord.from_json(text.replace('"schema_version":1', '"schema_version":1,"token":"x"'))


def test_a_poll_result_holds_one_count_per_choice():
    with pytest.raises(pydantic.ValidationError):
        PollResult(key="k", choices=("A", "B"), counts=(1,), from_turn=0, opened_at=0)
    with pytest.raises(pydantic.ValidationError):
        PollResult(key="k", choices=("A", "A"), counts=(1, 1), from_turn=0, opened_at=0)
