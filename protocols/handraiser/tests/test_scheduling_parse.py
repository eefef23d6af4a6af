"""Meeting Scheduling: clock times and the schedule format (text and JSON), tolerant in wording, strict in structure."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocols.handraiser.scheduling import (
    CASES,
    Meeting,
    ParseError,
    Schedule,
    format_time,
    load_cases,
    parse_schedule,
    parse_time,
    render_schedule,
)
from protocols.handraiser.scheduling.parse import MAX_CHARS


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("9:00 AM", 540),
        ("9:00am", 540),
        (" 9 a.m. ", 540),
        ("09:05 PM", 1265),
        ("9.30 pm", 1290),
        ("12:00 PM", 720),
        ("12:15 AM", 15),
        ("13:30", 810),
        ("9:00", 540),
        ("24:00", 1440),
    ],
)
def test_clock_times_are_read_in_their_usual_spellings(text, minutes):
    assert parse_time(text) == minutes


@pytest.mark.parametrize("text", ["13:00 PM", "9:75 AM", "9", "25:00", "nine", "9:00 XM", "0:00 AM", "9" * 40, ""])
def test_anything_else_is_not_a_time(text):
    with pytest.raises(ValueError, match="not a time of day"):
        parse_time(text)


def test_times_render_and_read_back():
    assert [format_time(m) for m in (0, 540, 720, 1439, 1440)] == [
        "12:00 AM",
        "9:00 AM",
        "12:00 PM",
        "11:59 PM",
        "12:00 AM",
    ]
    assert all(parse_time(format_time(m)) == m for m in range(0, 1440, 7))
    with pytest.raises(ValueError):
        format_time(1441)


def test_every_reference_solution_round_trips_through_text_and_json():
    for case in load_cases(CASES):
        assert case.reference is not None
        assert parse_schedule(render_schedule(case.reference)) == case.reference
        assert parse_schedule(case.reference.model_dump_json()) == case.reference
    assert parse_schedule(render_schedule(Schedule())) == Schedule()


def test_the_text_form_is_tolerant_of_wording_around_a_strict_line():
    text = """Here is the plan we agreed on.

    1. **meet   ana at Old Mill from 9am until 10:30 a.m.**
    - Meet Ben AT Quay FROM 1:00 PM - 1:30 PM.
    Thanks, everyone!"""
    expected = Schedule(
        meetings=(
            Meeting(participant="ana", location="Old Mill", start=540, end=630),
            Meeting(participant="Ben", location="Quay", start=780, end=810),
        )
    )
    assert parse_schedule(text) == expected


def test_json_forms_are_read_with_clock_or_minute_times():
    data = [{"participant": "Ana", "location": "Mill", "start": "9:00 AM", "end": 600}]
    expected = Schedule(meetings=(Meeting(participant="Ana", location="Mill", start=540, end=600),))
    assert parse_schedule(json.dumps(data)) == expected
    assert parse_schedule(json.dumps({"meetings": data})) == expected
    assert parse_schedule("Final:\n```json\n" + json.dumps({"meetings": data}) + "\n```\n") == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "no schedule found"),
        ("We should meet soon.", "no schedule found"),
        ("MEET Ana at Mill", "MEET <person> AT <location>"),
        ("MEET Ana AT Mill FROM 9:00 AM TO 8:00 AM", "ends after it starts"),
        ("MEET Ana AT Mill FROM 9:00 XM TO 10:00 AM", "not a time of day"),
        ("MEET Ana AT Mill FROM 9:00 AM TO 10:00 AM\nNO MEETINGS", "'NO MEETINGS' and MEET"),
        ("MEET " + "A" * 100 + " AT Mill FROM 9:00 AM TO 10:00 AM", "participant"),
        ("MEET Ana AT Mill FROM 9:00 AM TO 10:00 AM\n" * 17, "more than 16 meetings"),
        ("x" * (MAX_CHARS + 1), "refused unread"),
        ("MEET a AT b " * 40, "MEET line of over"),
        ('{"meetings": [{"participant": "Ana"}]}', "not a schedule"),
        ('{"meetings": [{"participant": "Ana", "location": "M", "start": 1, "end": 2, "x": 1}]}', "Extra inputs"),
        ('{"meetings": 3', "not valid JSON"),
        ("[" * 5000 + "]" * 5000, "not"),
        ("42", "no schedule found"),
        ('"MEET"', "no schedule found"),
        ("```json\n{}\n```\n```json\n[]\n```", "more than one JSON block"),
        (
            json.dumps([{"participant": "A", "location": "M", "start": i, "end": i + 1} for i in range(17)]),
            "more than 16",
        ),
        (json.dumps({"meetings": [{"participant": "A", "location": "M", "start": True, "end": 2}]}), "boolean"),
    ],
)
def test_malformed_or_hostile_text_is_a_parse_error_never_a_crash(text, words):
    result = parse_schedule(text)
    assert isinstance(result, ParseError), result
    assert words in str(result)


def test_a_parse_error_names_its_line():
    result = parse_schedule("Plan:\nMEET Ana AT Mill FROM 9 AM TO 10 AM\nMEET Ben AT Quay FROM noon TO 1 PM")
    assert isinstance(result, ParseError) and result.line == 3 and str(result).startswith("line 3:")


TOKENS = st.sampled_from(
    [
        "MEET",
        "meet",
        " AT ",
        " FROM ",
        " TO ",
        " until ",
        "-",
        "9:00",
        " AM",
        "pm",
        "12",
        ":",
        ".",
        "\n",
        "{",
        "}",
        "[",
        "]",
        '"',
        "meetings",
        ",",
        "```",
        "json",
        "NO MEETINGS",
        "Ana",
        " ",
        "–",
        "*",
        "1.",
        "start",
        "24:00",
    ]
)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.lists(TOKENS, max_size=60).map("".join) | st.text(max_size=300))
def test_any_text_gives_a_schedule_or_a_parse_error(text):
    result = parse_schedule(text)
    assert isinstance(result, Schedule | ParseError)
    if isinstance(result, ParseError):
        assert str(result)


MEETINGS = st.builds(
    lambda who, where, start, length: Meeting(
        participant=who, location=where, start=start, end=min(1440, start + length)
    ),
    st.sampled_from(["Ana", "ben", "Chidi Okafor"]),
    st.sampled_from(["Mill", "old  quay", "North Ferry"]),
    st.integers(0, 1439),
    st.integers(1, 300),
)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.lists(MEETINGS, max_size=16))
def test_rendered_schedules_parse_back(meetings):
    schedule = Schedule(meetings=tuple(sorted(meetings, key=lambda m: (m.start, m.end))))
    assert parse_schedule(render_schedule(schedule)) == schedule
    assert parse_schedule(schedule.model_dump_json()) == schedule
