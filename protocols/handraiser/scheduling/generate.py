"""Seeded generation of meeting-scheduling cases, and the command that writes the committed set.

What it does: ``generate(seed, ...)`` builds one ``Case`` from ``random.Random(seed)`` alone, so
the same seed (and knobs) gives the same case on every machine. It first draws a hidden plan
(which person first, each meeting's start and duration, with the real travel time between)
and then the private information around it, so every case is solvable; ``check.solve`` then
confirms it and its answer, checked by ``check.verify``, is stored as the reference solution.
The knobs, each drawn from the seed when left None, vary the kind of constraint a case stresses
(its ``tags``):

* ``tight``: availability windows leave 0-15 minutes around the hidden meeting and little slack
  between the meetings (``tight_availability``), else 15-180 minutes;
* ``long_travel``: travel at 0.8-1.1 minutes a grid step instead of 0.3-0.5, so about 2.5
  times longer (half the trips 30-70 minutes instead of 13-30; ``long_travel``);
* ``preferences``: each person has a soft preferred time, which the hidden plan honours or not
  (``preferred_times``; ``preference_conflict`` when even the reference cannot honour them all);
* ``two_windows``: a person may have a second availability window, which may be too short or too
  far to use (``two_windows``);
* ``extra_locations``: places in the travel matrix where nobody is (0-3).

Derived tags: ``order_matters`` when only one order of the two people can work. Locations are
points on a grid and travel takes the distance times a pace (rounded up), so the matrix is
symmetric and the direct way is never slower than a detour; the generator uses integers only
(no floating point), so a seed's case is the same everywhere. Places and names are this
project's own.

``CASES`` is the committed set, ``cases.jsonl`` beside this module (case i from seed ``seed + i``);
``python -m experiments scheduling-cases`` (``study/scheduling_cases.py``) (re)writes or checks it.

What it does not do: run agents or score debates (the HandRaiser protocol does), or print (the
command is a study module, where the protocol's front ends live).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from protocols.handraiser.scheduling.check import solve, verify
from protocols.handraiser.scheduling.model import Case, Meeting, Person, Schedule, Traveler, Window

CASES = Path(__file__).with_name("cases.jsonl")
PLACES = (
    "Harbor Point",
    "Old Mill",
    "Cedar Heights",
    "Lantern Row",
    "Fig Market",
    "Granite Quay",
    "Willow Bend",
    "Saltmarsh",
    "Copper Hill",
    "Beacon Square",
    "Tanners Lane",
    "Orchard Gate",
    "Kestrel Park",
    "Glassworks",
    "North Ferry",
    "Juniper Flats",
)
NAMES = (
    "Alice",
    "Bruno",
    "Chidi",
    "Dalia",
    "Emeka",
    "Farah",
    "Goran",
    "Hana",
    "Ivo",
    "Junko",
    "Kalinda",
    "Lars",
    "Mirela",
    "Nikhil",
    "Odette",
    "Pavel",
    "Rosa",
    "Samir",
    "Tove",
    "Wen",
)
PLANNERS = ("planner_a", "planner_b")
DURATIONS = (30, 45, 60, 75, 90, 120)
EARLIEST, LATEST = 6 * 60, 23 * 60  # nobody's window reaches outside 6:00 AM .. 11:00 PM


def _up(minutes: int, step: int = 5) -> int:
    return -(-minutes // step) * step


def _matrix(rng: random.Random, count: int, pace: int) -> tuple[tuple[int, ...], ...]:
    """Minutes between points on a 100 x 100 grid: the distance times ``pace``/100, rounded up, at least 5.

    Integer arithmetic only (``isqrt``), so the matrix is the same on every platform and Python.
    """
    points = [(rng.randrange(101), rng.randrange(101)) for _ in range(count)]
    rows = []
    for i, (x, y) in enumerate(points):
        row = []
        for j, (u, v) in enumerate(points):
            square = pace * pace * ((x - u) ** 2 + (y - v) ** 2)  # (pace x distance) squared
            root = math.isqrt(square)
            root += root * root < square  # the square root, rounded up
            row.append(0 if i == j else max(5, -(-root // 100)))
        rows.append(tuple(row))
    return tuple(rows)


def _slack(rng: random.Random, tight: bool) -> int:
    return rng.choice((0, 5, 10, 15)) if tight else rng.randrange(15, 181, 15)


def _preferred(rng: random.Random, meeting: Meeting, window: Window, honoured: bool) -> Window:
    length = rng.choice((60, 90, 120))
    if honoured:  # a preferred time around the hidden meeting
        start = max(EARLIEST, min(meeting.start, meeting.end - length) - rng.randrange(0, 31, 15))
        return Window(start=start, end=max(start + length, meeting.end))
    start = rng.choice((max(EARLIEST, window.start - length), min(LATEST - length, window.end)))
    return Window(start=start, end=start + length)


def _windows(rng: random.Random, main: Window, duration: int) -> tuple[Window, ...]:
    gap, length = rng.randrange(30, 121, 15), rng.choice((duration - 15, duration, duration + 30, duration + 60))
    early = (
        Window(start=main.start - gap - length, end=main.start - gap) if main.start - gap - length >= EARLIEST else None
    )
    late = Window(start=main.end + gap, end=main.end + gap + length) if main.end + gap + length <= LATEST else None
    options = [w for w in (early, late) if w is not None and w.end - w.start >= 15]
    if not options:
        return (main,)
    return tuple(sorted((main, rng.choice(options)), key=lambda w: w.start))


def _attempt(rng: random.Random, seed: int, knobs: dict[str, bool], extra: int) -> Case | None:
    tight, long_travel = knobs["tight"], knobs["long_travel"]
    places = rng.sample(PLACES, 3 + extra)
    travel = _matrix(rng, len(places), rng.randrange(80, 111) if long_travel else rng.randrange(30, 51))
    names = rng.sample(NAMES, 2)
    durations = [rng.choice(DURATIONS) for _ in names]
    start_time, end_of_day = rng.randrange(8 * 60, 10 * 60 + 1, 15), rng.randrange(17 * 60, 21 * 60 + 1, 30)
    first = rng.randrange(2)
    plan: dict[int, Meeting] = {}
    here, free = 0, start_time
    for person in (first, 1 - first):
        there = person + 1
        begin = _up(free + travel[here][there]) + (rng.choice((0, 5, 10)) if tight else rng.randrange(0, 91, 15))
        plan[person] = Meeting(
            participant=names[person], location=places[there], start=begin, end=begin + durations[person]
        )
        here, free = there, plan[person].end
    if free > end_of_day:
        return None
    people = []
    for person in (0, 1):
        meeting = plan[person]
        main = Window(
            start=max(EARLIEST, meeting.start - _slack(rng, tight)), end=min(LATEST, meeting.end + _slack(rng, tight))
        )
        windows = _windows(rng, main, durations[person]) if knobs["two_windows"] and rng.random() < 0.75 else (main,)
        wish = (_preferred(rng, meeting, main, rng.random() < 0.6),) if knobs["preferences"] else ()
        people.append(
            Person(
                name=names[person],
                location=places[person + 1],
                availability=windows,
                duration=durations[person],
                preferred=wish,
                planner=PLANNERS[person],
            )
        )
    listed = list(places)
    rng.shuffle(listed)
    order = [places.index(name) for name in listed]
    return Case(
        id=f"meeting-{seed:04d}",
        seed=seed,
        locations=tuple(listed),
        travel=tuple(tuple(travel[i][j] for j in order) for i in order),
        traveler=Traveler(start_location=places[0], start_time=start_time, end_of_day=end_of_day),
        people=tuple(people),
    )


def _tags(case: Case, knobs: dict[str, bool], reference: Schedule) -> tuple[str, ...]:
    tags = [
        tag
        for tag, on in (
            ("tight_availability", knobs["tight"]),
            ("long_travel", knobs["long_travel"]),
            ("preferred_times", knobs["preferences"]),
            ("two_windows", any(len(p.availability) > 1 for p in case.people)),
        )
        if on
    ]
    names = tuple(p.name for p in case.people)
    if (solve(case, order=names) is None) != (solve(case, order=names[::-1]) is None):
        tags.append("order_matters")
    met = set(verify(case, reference).preferences_met)
    if any(p.preferred and p.name not in met for p in case.people):
        tags.append("preference_conflict")
    return tuple(tags)


def generate(
    seed: int,
    *,
    tight: bool | None = None,
    long_travel: bool | None = None,
    preferences: bool | None = None,
    two_windows: bool | None = None,
    extra_locations: int | None = None,
) -> Case:
    """The case of ``seed`` (knobs left None are drawn from the seed); always solvable, with its reference."""
    rng = random.Random(seed)
    drawn = {
        "tight": rng.random() < 0.5,
        "long_travel": rng.random() < 0.4,
        "preferences": rng.random() < 0.6,
        "two_windows": rng.random() < 0.4,
    }
    given = {"tight": tight, "long_travel": long_travel, "preferences": preferences, "two_windows": two_windows}
    knobs = {name: drawn[name] if value is None else value for name, value in given.items()}
    drawn_extra = rng.randrange(4)  # drawn even when given, so each knob leaves the others' draws alone
    extra = drawn_extra if extra_locations is None else extra_locations
    if not 0 <= extra <= len(PLACES) - 3:
        raise ValueError(f"extra_locations is 0..{len(PLACES) - 3}, not {extra}")
    for _ in range(1000):
        case = _attempt(rng, seed, knobs, extra)
        if case is None:
            continue
        reference = solve(case)
        if reference is None or not verify(case, reference).ok:
            raise RuntimeError(f"seed {seed}: a case built around a plan has no valid schedule (a generator bug)")
        return Case.model_validate({**case.model_dump(), "tags": _tags(case, knobs, reference), "reference": reference})
    raise RuntimeError(f"seed {seed}: no case fitted a day in 1000 tries")


def generate_many(count: int, seed: int = 0) -> list[Case]:
    """``count`` cases, the i-th from seed ``seed + i``."""
    return [generate(seed + i) for i in range(count)]
