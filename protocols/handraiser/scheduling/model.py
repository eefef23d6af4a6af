"""The validated models of a meeting-scheduling case and of a schedule (frozen pydantic).

What it does: ``Case`` holds one task as the paper sets it (App. C): the locations, the travel
time between every two of them (minutes, the same both ways, zero on the diagonal), the
traveler's start (location and time) and end of day, and the ``Person`` each planning agent
helps (their location, availability windows, least meeting duration, soft preferred times and
the planner that holds them), plus the generator's seed, tags saying which kinds of constraint
it stresses, and a reference solution. ``Meeting`` and ``Schedule`` are a proposed plan. Times
are minutes since midnight (``clock``); in JSON a time may also be given as "9:00 AM" (an end at
"12:00 AM" is midnight at the end of the day, 1440). Every
model checks itself where it is built, so a case read from a file or a schedule from a model's
reply is either well formed or refused with a ``pydantic.ValidationError`` naming the field.
``load_cases``/``dump_cases`` read and write the JSON-lines file of cases.

What it does not do: check a schedule against a case (``check``), read free text (``parse``)
or make cases (``generate``).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from protocols.handraiser.scheduling.clock import DAY, format_span, parse_time

MAX_MEETINGS = 16  # a schedule longer than this is refused where it is built
MAX_LINE = 200_000  # characters: a longer line in a cases file is refused unread


def _minute(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("a time is minutes since midnight or a clock time like '9:00 AM', not a boolean")
    if isinstance(value, str):
        return parse_time(value)
    return value


def _end(value: int) -> int:
    return DAY if value == 0 else value  # an end at "12:00 AM" is midnight at the end of the day


Minute = Annotated[int, BeforeValidator(_minute), Field(ge=0, le=DAY)]
End = Annotated[Minute, AfterValidator(_end)]  # the end of a span: 0 ("12:00 AM") reads as the day's end
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]


def key(name: str) -> str:
    """How two names are compared: case and runs of whitespace do not matter."""
    return " ".join(name.split()).casefold()


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Window(_Frozen):
    """A span of time, ``start`` inclusive to ``end`` (minutes since midnight)."""

    start: Minute
    end: End

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.end <= self.start:
            raise ValueError(f"a window ends after it starts, not {self.start} -> {self.end}")
        return self

    def holds(self, start: int, end: int) -> bool:
        """Whether ``start``..``end`` lies wholly inside this window."""
        return self.start <= start and end <= self.end

    def __str__(self) -> str:
        return format_span(self.start, self.end)


def _disjoint(windows: tuple[Window, ...], what: str) -> None:
    for before, after in pairwise(windows):
        if after.start < before.end:
            raise ValueError(f"{what} are in time order and do not overlap: {before} then {after}")


class Person(_Frozen):
    """Someone who wants to meet the traveler: the private information one planning agent holds."""

    name: Name
    location: Name
    availability: tuple[Window, ...] = Field(min_length=1, max_length=6)
    duration: int = Field(ge=5, le=DAY, description="the least length of the meeting, minutes")
    preferred: tuple[Window, ...] = Field((), max_length=6, description="soft: when they would rather meet")
    planner: Name = Field(description="the planning agent that holds this person's information")

    @model_validator(mode="after")
    def _windows(self) -> Person:
        _disjoint(self.availability, f"{self.name}'s availability windows")
        _disjoint(self.preferred, f"{self.name}'s preferred times")
        if not any(w.end - w.start >= self.duration for w in self.availability):
            raise ValueError(f"no availability window of {self.name} is {self.duration} minutes long")
        return self


class Traveler(_Frozen):
    """The agent who travels to meet everyone: where and when its day starts, and when it ends."""

    start_location: Name
    start_time: Minute
    end_of_day: Minute

    @model_validator(mode="after")
    def _ordered(self) -> Traveler:
        if self.end_of_day <= self.start_time:
            raise ValueError("the traveler's day ends after it starts")
        return self


class Meeting(_Frozen):
    """One meeting of a schedule: with whom, where, from when to when."""

    participant: Name
    location: Name
    start: Minute
    end: End

    @model_validator(mode="after")
    def _ordered(self) -> Meeting:
        if self.end <= self.start:
            raise ValueError(f"a meeting ends after it starts, not {self.start} -> {self.end}")
        return self


class Schedule(_Frozen):
    """A proposed plan: meetings in any order (``check`` sorts them by start)."""

    meetings: tuple[Meeting, ...] = Field((), max_length=MAX_MEETINGS)


class Case(_Frozen):
    """One meeting-scheduling task: the travel matrix, the traveler's day and each person's private information."""

    id: Name
    seed: int
    locations: tuple[Name, ...] = Field(min_length=2, max_length=20)
    travel: tuple[tuple[int, ...], ...] = Field(description="minutes between locations[i] and locations[j]")
    traveler: Traveler
    people: tuple[Person, ...] = Field(min_length=1, max_length=4)
    tags: tuple[str, ...] = Field((), description="the kinds of constraint the case stresses")
    reference: Schedule | None = Field(None, description="a schedule that satisfies every hard constraint")

    @model_validator(mode="after")
    def _consistent(self) -> Case:
        keys = [key(name) for name in self.locations]
        if len(set(keys)) != len(keys):
            raise ValueError("location names are distinct")
        n = len(self.locations)
        if len(self.travel) != n or any(len(row) != n for row in self.travel):
            raise ValueError(f"the travel matrix is {n} x {n}, one row and column per location")
        for i in range(n):
            if self.travel[i][i] != 0:
                raise ValueError(f"travel from {self.locations[i]} to itself takes 0 minutes")
            for j in range(i + 1, n):
                if self.travel[i][j] != self.travel[j][i]:
                    raise ValueError(
                        f"travel between {self.locations[i]} and {self.locations[j]} is the same both ways"
                    )
                if not 1 <= self.travel[i][j] <= DAY:
                    raise ValueError(f"travel between two places takes 1..{DAY} minutes, not {self.travel[i][j]}")
        places = [self.traveler.start_location, *(p.location for p in self.people)]
        for place in places:
            if key(place) not in keys:
                raise ValueError(f"{place!r} is not one of the case's locations")
        names = [key(p.name) for p in self.people]
        planners = [key(p.planner) for p in self.people]
        if len(set(names)) != len(names) or len(set(planners)) != len(planners):
            raise ValueError("each person has their own name and their own planner")
        if "traveler" in planners:
            raise ValueError("'traveler' is the traveler's role, not a planner's")
        return self

    def index(self, location: str) -> int | None:
        """The row of ``location`` in the travel matrix (names compared by ``key``), or None."""
        wanted = key(location)
        return next((i for i, name in enumerate(self.locations) if key(name) == wanted), None)

    def minutes(self, origin: str, destination: str) -> int | None:
        """Travel time from ``origin`` to ``destination``, or None if either is not a location of the case."""
        i, j = self.index(origin), self.index(destination)
        return None if i is None or j is None else self.travel[i][j]

    def person(self, name: str) -> Person | None:
        """The person called ``name`` (compared by ``key``), or None."""
        return next((p for p in self.people if key(p.name) == key(name)), None)


def dump_cases(cases: Iterable[Case], path: Path) -> None:
    """Write ``cases`` to ``path``, one JSON object a line (times as minutes since midnight)."""
    path.write_text("".join(case.model_dump_json() + "\n" for case in cases), encoding="utf-8")


def load_cases(path: Path) -> list[Case]:
    """Read a JSON-lines file of cases; ``ValueError`` naming the line for anything that is not a valid case."""
    cases: list[Case] = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if len(line) > MAX_LINE:
                raise ValueError(f"{path}:{number}: a line over {MAX_LINE} characters is not a case")
            if not line.strip():
                continue
            try:
                cases.append(Case.model_validate_json(line))
            except ValidationError as error:
                raise ValueError(f"{path}:{number}: not a valid case: {error}") from error
    return cases
