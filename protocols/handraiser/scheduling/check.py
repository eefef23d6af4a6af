"""Checking a schedule against a case's hard constraints, and finding one that satisfies them.

What it does: ``verify(case, schedule)`` returns a ``Verdict``: ``ok`` only when all three hard
constraints of the paper (App. C) hold, else a list of ``Violation``s, each naming its kind, the
constraint it breaks and the meeting (0-based, in the schedule's own order) it concerns:

* (i) the meetings match the requirements: ``wrong_participant`` (no such person),
  ``wrong_location`` (not where that person is, or no location of the case), ``wrong_duration``
  (shorter than the person's duration: the duration is a least length, as Natural Plan's "for a
  minimum of N minutes"), ``outside_availability`` (not wholly inside one of the person's
  availability windows, or outside the traveler's day: before its start time or after its end);
* (ii) ``travel_time``: taking the meetings in order of start, the traveler cannot get from its
  start (location and time) to the first one, or from one meeting's end to the next one's
  location, in the time between (overlapping meetings are this violation too);
* (iii) ``extra_meeting``: a second meeting with someone already met; ``missing_meeting``: someone
  the schedule does not meet at all (the paper: "the traveler needs to travel among locations to
  meet these two people separately", and a task succeeds "only if it satisfies all the hard
  constraints", so meeting only one person fails).

Preferred times are soft: the verdict lists whom a sound meeting meets at a preferred time,
and they never make a schedule fail. ``solve(case)`` searches every order of the people and
every availability window (and each window's part inside a preferred time), starting each
meeting as early as the traveler can be there, for exactly the person's duration; first on a
5-minute grid (rounded times), then minute by minute, so it finds a schedule whenever one
exists (starting later or meeting longer never helps a later meeting) and prefers the one that
honours the most preferences, then ends earliest.

What it does not do: read text (``parse``), make cases (``generate``) or weigh soft preferences
into success.
"""

from __future__ import annotations

from itertools import permutations, product
from typing import Literal

from pydantic import BaseModel, ConfigDict

from protocols.handraiser.scheduling.clock import format_span, format_time
from protocols.handraiser.scheduling.model import Case, Meeting, Person, Schedule, Window, key

Kind = Literal[
    "wrong_participant",
    "wrong_location",
    "wrong_duration",
    "outside_availability",
    "travel_time",
    "extra_meeting",
    "missing_meeting",
]
Constraint = Literal["i", "ii", "iii"]
CONSTRAINT: dict[Kind, Constraint] = {
    "wrong_participant": "i",
    "wrong_location": "i",
    "wrong_duration": "i",
    "outside_availability": "i",
    "travel_time": "ii",
    "extra_meeting": "iii",
    "missing_meeting": "iii",
}
GRID = 5  # minutes: the first search rounds start times up to this grid


class Violation(BaseModel):
    """One broken hard constraint: its kind, which of the paper's three it is, the meeting, and why."""

    model_config = ConfigDict(frozen=True)

    kind: Kind
    constraint: Constraint
    meeting: int | None  # index into the schedule's meetings; None for a missing meeting
    message: str


class Verdict(BaseModel):
    """The outcome of ``verify``: no violations means success (the paper's reward of 1)."""

    model_config = ConfigDict(frozen=True)

    violations: tuple[Violation, ...] = ()
    preferences_met: tuple[str, ...] = ()  # people met (soundly) at one of their preferred times

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def failed(self) -> tuple[Constraint, ...]:
        """The constraints broken, in order, each once."""
        return tuple(c for c in ("i", "ii", "iii") if any(v.constraint == c for v in self.violations))

    def feedback(self) -> str:
        """One line per violation, for a person or an agent to read."""
        if self.ok:
            return "The schedule satisfies every hard constraint."
        return "\n".join(f"({v.constraint}) {v.kind}: {v.message}" for v in self.violations)


def _violation(kind: Kind, meeting: int | None, message: str) -> Violation:
    return Violation(kind=kind, constraint=CONSTRAINT[kind], meeting=meeting, message=message)


def _requirements(case: Case, index: int, meeting: Meeting, person: Person) -> list[Violation]:
    found: list[Violation] = []
    where = f"meeting {index + 1} with {person.name}"
    if key(meeting.location) != key(person.location):
        found.append(_violation("wrong_location", index, f"{where} is at {meeting.location}, not {person.location}"))
    if meeting.end - meeting.start < person.duration:
        length = meeting.end - meeting.start
        found.append(
            _violation("wrong_duration", index, f"{where} lasts {length} minutes, less than {person.duration}")
        )
    if not any(window.holds(meeting.start, meeting.end) for window in person.availability):
        spans = ", ".join(str(window) for window in person.availability)
        found.append(
            _violation(
                "outside_availability",
                index,
                f"{where} ({format_span(meeting.start, meeting.end)}) is not within their availability: {spans}",
            )
        )
    traveler = case.traveler
    if meeting.start < traveler.start_time or meeting.end > traveler.end_of_day:
        found.append(
            _violation(
                "outside_availability",
                index,
                f"{where} ({format_span(meeting.start, meeting.end)}) is outside the traveler's day "
                f"({format_span(traveler.start_time, traveler.end_of_day)})",
            )
        )
    return found


def _travel(case: Case, schedule: Schedule) -> list[Violation]:
    found: list[Violation] = []
    order = sorted(range(len(schedule.meetings)), key=lambda i: (schedule.meetings[i].start, schedule.meetings[i].end))
    place: str | None = case.traveler.start_location
    free = case.traveler.start_time
    origin = f"the start at {case.traveler.start_location} ({format_time(free)})"
    for index in order:
        meeting = schedule.meetings[index]
        target = f"meeting {index + 1} ({meeting.location}, {format_time(meeting.start)})"
        if meeting.start < free:
            found.append(_violation("travel_time", index, f"{target} begins before {origin} is over"))
        elif (
            place is not None
            and (need := case.minutes(place, meeting.location)) is not None
            and free + need > meeting.start
        ):
            found.append(
                _violation(
                    "travel_time",
                    index,
                    f"{target}: travel from {place} takes {need} minutes, so the traveler arrives at "
                    f"{format_time(free + need)} at the earliest after {origin}",
                )
            )
        known = case.index(meeting.location) is not None
        place = meeting.location if known else None
        free = max(free, meeting.end)
        origin = f"meeting {index + 1} (ends {format_time(meeting.end)})"
    return found


def verify(case: Case, schedule: Schedule) -> Verdict:
    """Check ``schedule`` against the three hard constraints of ``case``; never raises for a well-formed schedule."""
    found: list[Violation] = []
    met: dict[str, int] = {}
    preferred: list[str] = []
    for index, meeting in enumerate(schedule.meetings):
        person = case.person(meeting.participant)
        if person is None:
            names = ", ".join(p.name for p in case.people)
            found.append(
                _violation(
                    "wrong_participant", index, f"meeting {index + 1} is with {meeting.participant}, not {names}"
                )
            )
            if case.index(meeting.location) is None:
                where = f"meeting {index + 1} is at {meeting.location}, not a location of the case"
                found.append(_violation("wrong_location", index, where))
        elif key(person.name) in met:
            first = met[key(person.name)] + 1
            found.append(
                _violation("extra_meeting", index, f"meeting {index + 1} meets {person.name} again (first: {first})")
            )
        else:
            met[key(person.name)] = index
            own = _requirements(case, index, meeting, person)
            found.extend(own)
            if not own and any(w.holds(meeting.start, meeting.end) for w in person.preferred):
                preferred.append(person.name)
    for person in case.people:
        if key(person.name) not in met:
            found.append(_violation("missing_meeting", None, f"the schedule does not meet {person.name}"))
    found.extend(_travel(case, schedule))
    found.sort(key=lambda v: (v.meeting if v.meeting is not None else len(schedule.meetings), v.constraint))
    return Verdict(violations=tuple(found), preferences_met=tuple(preferred))


def _choices(person: Person) -> list[tuple[Window, bool]]:
    """Where a meeting with ``person`` may go: each preferred part of a window first, then each whole window."""
    choices: list[tuple[Window, bool]] = []
    for window in person.availability:
        for wish in person.preferred:
            start, end = max(window.start, wish.start), min(window.end, wish.end)
            if end - start >= person.duration:
                choices.append((Window(start=start, end=end), True))
    choices.extend((window, False) for window in person.availability if window.end - window.start >= person.duration)
    return choices


def _earliest(case: Case, plan: tuple[tuple[Person, tuple[Window, bool]], ...], step: int) -> list[Meeting] | None:
    place, free = case.traveler.start_location, case.traveler.start_time
    meetings: list[Meeting] = []
    for person, (window, _) in plan:
        arrive = free + (case.minutes(place, person.location) or 0)
        start = max(arrive, window.start)
        start = -(-start // step) * step
        end = start + person.duration
        if end > window.end or end > case.traveler.end_of_day:
            return None
        meetings.append(Meeting(participant=person.name, location=person.location, start=start, end=end))
        place, free = person.location, end
    return meetings


def solve(case: Case, *, order: tuple[str, ...] | None = None) -> Schedule | None:
    """A schedule meeting everyone that satisfies every hard constraint, or None when there is none.

    ``order``: only schedules meeting the people in this order of names (by default any order).
    """
    orders = list(permutations(case.people))
    if order is not None:
        orders = [people for people in orders if [key(p.name) for p in people] == [key(name) for name in order]]
    for step in (GRID, 1):
        best: tuple[tuple[int, int], list[Meeting]] | None = None
        for people in orders:
            for picks in product(*(_choices(person) for person in people)):
                plan = tuple(zip(people, picks, strict=True))
                meetings = _earliest(case, plan, step)
                if meetings is None:
                    continue
                score = (sum(wished for _, wished in picks), -meetings[-1].end)
                if best is None or score > best[0]:
                    best = (score, meetings)
        if best is not None:
            return Schedule(meetings=tuple(best[1]))
    return None
