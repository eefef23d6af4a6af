"""Reading a proposed schedule from a model's or a person's text, and writing one.

What it does: ``parse_schedule(text)`` returns a ``Schedule``, or a ``ParseError`` (a value, not
raised) saying what is wrong and on which line; it never raises, whatever the text. Two forms:

* plain text, one meeting a line (``SCHEDULE_FORMAT`` is the instruction agents get)::

      MEET Alice AT Harbor Point FROM 9:00 AM TO 10:00 AM

  Keywords in any case; runs of spaces; a leading bullet ("-", "*", "1.") and surrounding
  ``**``/backticks are ignored; "UNTIL", "-" or an en dash may stand for "TO"; times in any form
  ``clock.parse_time`` reads ("9am", "9:00 a.m.", "21:30"). Lines that do not begin with the
  word MEET are ignored (a reply may explain itself around the schedule), but a line that does
  is held to the grammar: a malformed one is an error, not skipped. A line "NO MEETINGS" is the
  empty schedule; no MEET line at all is an error.
* JSON, the whole text or one fenced code block in it: ``{"meetings": [{"participant": ...,
  "location": ..., "start": "9:00 AM", "end": "10:00 AM"}]}`` or the bare list; a time may be
  minutes since midnight.

Bounded: a text over ``MAX_CHARS`` characters, more than ``model.MAX_MEETINGS`` meetings or a
MEET line over ``MAX_LINE`` characters is refused. ``render_schedule`` writes the plain-text
form (meetings in time order), which parses back to the same schedule.

What it does not do: check the schedule against a case (``check.verify``) or correct names.
"""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, ValidationError

from protocols.handraiser.scheduling.clock import format_time, parse_time
from protocols.handraiser.scheduling.model import MAX_MEETINGS, Meeting, Schedule

MAX_CHARS = 20_000
MAX_LINE = 300  # characters of one MEET line: bounds the matching of a hostile line

SCHEDULE_FORMAT = (
    "Write the final schedule one meeting a line, in time order, exactly like\n"
    "MEET <person> AT <location> FROM <start> TO <end>\n"
    "for example: MEET Yara AT Town Hall FROM 9:00 AM TO 10:00 AM\n"
    "and nothing else on those lines."
)

_BULLET = re.compile(r"^(?:[-*•]|\d{1,2}[.)])\s+")
_MEET = re.compile(r"^MEET\b", re.IGNORECASE)
_LINE = re.compile(
    r"""^MEET\s+(?P<who>\S.*?)\s+
    AT\s+(?P<where>\S.*?)\s+
    FROM\s+(?P<start>\S.*?)\s*
    (?:\s(?:TO|UNTIL)\s|[-–—])\s*
    (?P<end>\S.*?)\s*\.?$""",
    re.IGNORECASE | re.VERBOSE,
)
_NONE = re.compile(r"^NO\s+MEETINGS\.?$", re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z]*\s*\n(.*?)```", re.DOTALL)


class ParseError(BaseModel):
    """Why a text is not a schedule, and the line (1-based) at fault when there is one."""

    model_config = ConfigDict(frozen=True)

    message: str
    line: int | None = None

    def __str__(self) -> str:
        return self.message if self.line is None else f"line {self.line}: {self.message}"


def render_schedule(schedule: Schedule) -> str:
    """The plain-text form, meetings in time order; ``"NO MEETINGS"`` for an empty schedule."""
    if not schedule.meetings:
        return "NO MEETINGS"
    ordered = sorted(schedule.meetings, key=lambda m: (m.start, m.end))
    return "\n".join(
        f"MEET {m.participant} AT {m.location} FROM {format_time(m.start)} TO {format_time(m.end)}" for m in ordered
    )


def _explain(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:3]:
        where = ".".join(str(step) for step in item["loc"])
        parts.append(f"{where}: {item['msg']}" if where else str(item["msg"]))
    more = error.error_count() - 3
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def _from_json(text: str) -> Schedule | ParseError:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        return ParseError(message=f"not valid JSON: {str(error)[:200]}")
    if isinstance(data, list):
        data = {"meetings": data}
    if not isinstance(data, dict):
        return ParseError(message='JSON schedule is an object {"meetings": [...]} or a list of meetings')
    meetings = data.get("meetings")
    if isinstance(meetings, list) and len(meetings) > MAX_MEETINGS:
        return ParseError(message=f"more than {MAX_MEETINGS} meetings")
    try:
        return Schedule.model_validate(data)
    except ValidationError as error:
        return ParseError(message=f"not a schedule: {_explain(error)}")
    except (RecursionError, ValueError, TypeError) as error:
        return ParseError(message=f"not a schedule: {str(error)[:200]}")


def _line(number: int, line: str) -> Meeting | ParseError:
    if len(line) > MAX_LINE:
        return ParseError(message=f"a MEET line of over {MAX_LINE} characters", line=number)
    match = _LINE.match(line)
    if match is None:
        return ParseError(
            message=f"a MEET line reads 'MEET <person> AT <location> FROM <start> TO <end>', not {line[:120]!r}",
            line=number,
        )
    try:
        start, end = parse_time(match["start"]), parse_time(match["end"])
        return Meeting(participant=match["who"], location=match["where"], start=start, end=end)
    except ValidationError as error:
        return ParseError(message=_explain(error), line=number)
    except ValueError as error:
        return ParseError(message=str(error), line=number)


def _from_lines(text: str) -> Schedule | ParseError:
    meetings: list[Meeting] = []
    empty: int | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip().strip("*`").strip()
        line = _BULLET.sub("", line).strip("*`").strip()
        if _NONE.match(line):
            empty = number
            continue
        if not _MEET.match(line):
            continue
        if len(meetings) == MAX_MEETINGS:
            return ParseError(message=f"more than {MAX_MEETINGS} meetings", line=number)
        parsed = _line(number, line)
        if isinstance(parsed, ParseError):
            return parsed
        meetings.append(parsed)
    if empty is not None and meetings:
        return ParseError(message="'NO MEETINGS' and MEET lines together", line=empty)
    if not meetings and empty is None:
        return ParseError(message="no schedule found: no line begins with MEET (or reads NO MEETINGS)")
    return Schedule(meetings=tuple(meetings))


def parse_schedule(text: str) -> Schedule | ParseError:
    """The schedule in ``text`` (plain-text lines or JSON), or a ``ParseError``; never raises."""
    if not isinstance(text, str):
        return ParseError(message=f"a schedule is text, not {type(text).__name__}")
    if len(text) > MAX_CHARS:
        return ParseError(message=f"a schedule of over {MAX_CHARS} characters is refused unread")
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        return _from_json(stripped)
    fences = [block for block in _FENCE.findall(text) if block.strip().startswith(("{", "["))]
    if len(fences) == 1:
        return _from_json(fences[0].strip())
    if len(fences) > 1:
        return ParseError(message="more than one JSON block: give one schedule")
    return _from_lines(text)
