"""Clock times of the meeting-scheduling cases: minutes since midnight inside, "9:00 AM" outside.

What it does: ``format_time(minutes)`` renders a time of day as "9:00 AM" ("12:00 PM" is noon,
"12:00 AM" midnight, 1440 is rendered "12:00 AM" too: the end of the day); ``parse_time(text)``
reads one back, tolerant of case, spacing and the usual am/pm spellings ("9:00am", "9 a.m.",
"09:00 PM", "9.30 pm") and of a bare 24-hour clock ("13:30", "9:00" is 9 AM, "24:00" the end of
the day), and strict on everything else: an hour of 13 with "PM", minutes over 59 or any other
word raise ``ValueError`` with the text in the message.

What it does not do: dates, time zones, "noon"/"midnight" words or seconds.
"""

from __future__ import annotations

import re

DAY = 24 * 60  # minutes in a day: a time is 0..DAY, DAY being the end of the day

_TIME = re.compile(
    r"""^\s*
    (?P<hour>\d{1,2})
    (?:\s*[:.h]\s*(?P<minute>\d{2}))?
    \s*
    (?P<half>a\.?\s*m\.?|p\.?\s*m\.?)?
    \s*$""",
    re.IGNORECASE | re.VERBOSE,
)


def format_time(minutes: int) -> str:
    """``540`` -> ``"9:00 AM"``; 0 and 1440 -> ``"12:00 AM"``, 720 -> ``"12:00 PM"``."""
    if not 0 <= minutes <= DAY:
        raise ValueError(f"a time of day is 0..{DAY} minutes, not {minutes}")
    hour, minute = divmod(minutes % DAY, 60)
    half = "AM" if hour < 12 else "PM"
    return f"{(hour % 12) or 12}:{minute:02d} {half}"


def parse_time(text: str) -> int:
    """``"9:00 AM"`` (or ``"9am"``, ``"09:00"``, ``"21:30"``...) -> minutes since midnight; else ``ValueError``."""
    if len(text) > 32:
        raise ValueError(f"not a time of day: {text[:32]!r}...")
    match = _TIME.match(text)
    if match is None:
        raise ValueError(f"not a time of day: {text!r} (expected like '9:00 AM' or '21:30')")
    hour = int(match["hour"])
    minute = int(match["minute"] or 0)
    half = match["half"]
    if minute > 59:
        raise ValueError(f"not a time of day: {text!r} (minutes over 59)")
    if half is None:
        if match["minute"] is None:
            raise ValueError(f"not a time of day: {text!r} (a bare hour needs AM or PM)")
        if hour == 24 and minute == 0:
            return DAY
        if hour > 23:
            raise ValueError(f"not a time of day: {text!r} (hour over 23)")
        return hour * 60 + minute
    if not 1 <= hour <= 12:
        raise ValueError(f"not a time of day: {text!r} (with AM/PM the hour is 1..12)")
    afternoon = half.lower().startswith("p")
    return (hour % 12 + (12 if afternoon else 0)) * 60 + minute


def format_span(start: int, end: int) -> str:
    """``(540, 600)`` -> ``"9:00 AM to 10:00 AM"``."""
    return f"{format_time(start)} to {format_time(end)}"
