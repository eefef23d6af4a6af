"""Meeting Scheduling cases: the verifier (each violation kind apart), the solver, the generator, the committed set."""

from __future__ import annotations

import itertools
import json

import pytest
from pydantic import ValidationError

from experiments.cli import main as experiments_main
from protocols.handraiser.scheduling import (
    CASES,
    Case,
    Meeting,
    Person,
    Schedule,
    Traveler,
    Window,
    briefing,
    generate,
    generate_many,
    load_cases,
    roles,
    solve,
    verify,
)


def t(hours: int, minutes: int = 0) -> int:
    return hours * 60 + minutes


def hand_case(**changes) -> Case:
    """Ana at Mill (10:00-12:00, 60 min, prefers 11-12), Ben at Quay (13:00-15:00, 30 min); start Dock 9:00."""
    data = {
        "id": "hand",
        "seed": -1,
        "locations": ("Dock", "Mill", "Quay"),
        "travel": ((0, 20, 40), (20, 0, 30), (40, 30, 0)),
        "traveler": Traveler(start_location="Dock", start_time=t(9), end_of_day=t(18)),
        "people": (
            Person(
                name="Ana",
                location="Mill",
                availability=(Window(start=t(10), end=t(12)),),
                duration=60,
                preferred=(Window(start=t(11), end=t(12)),),
                planner="planner_a",
            ),
            Person(
                name="Ben",
                location="Quay",
                availability=(Window(start=t(13), end=t(15)),),
                duration=30,
                planner="planner_b",
            ),
        ),
    }
    data.update(changes)
    return Case(**data)


def meet(who: str, where: str, start: int, end: int) -> Meeting:
    return Meeting(participant=who, location=where, start=start, end=end)


GOOD = (meet("Ana", "Mill", t(10), t(11)), meet("Ben", "Quay", t(13), t(13, 30)))


def kinds(case: Case, *meetings: Meeting) -> list[str]:
    return [v.kind for v in verify(case, Schedule(meetings=meetings)).violations]


def test_a_sound_schedule_passes_and_notes_preferences():
    case = hand_case()
    assert verify(case, Schedule(meetings=GOOD)).ok
    late = (meet("Ana", "MILL", t(11), t(12)), GOOD[1])  # names compared ignoring case
    verdict = verify(case, Schedule(meetings=late))
    assert verdict.ok and verdict.preferences_met == ("Ana",) and verdict.feedback().startswith("The schedule")


@pytest.mark.parametrize(
    ("meetings", "expected", "constraint"),
    [
        ((meet("Cleo", "Mill", t(10), t(11)), GOOD[1]), ["wrong_participant", "missing_meeting"], {"i", "iii"}),
        ((meet("Ana", "Quay", t(10), t(11)), GOOD[1]), ["wrong_location"], {"i"}),
        ((meet("Ana", "Mill", t(10), t(10, 45)), GOOD[1]), ["wrong_duration"], {"i"}),
        ((meet("Ana", "Mill", t(11, 30), t(12, 30)), GOOD[1]), ["outside_availability"], {"i"}),
        ((GOOD[0], meet("Ben", "Quay", t(11, 45), t(12, 15))), ["outside_availability"], {"i"}),
        ((GOOD[0], GOOD[1], meet("Ben", "Quay", t(14), t(14, 30))), ["extra_meeting"], {"iii"}),
        ((GOOD[0],), ["missing_meeting"], {"iii"}),
    ],
)
def test_each_requirement_and_count_violation_is_named(meetings, expected, constraint):
    verdict = verify(hand_case(), Schedule(meetings=meetings))
    assert [v.kind for v in verdict.violations] == expected
    assert set(verdict.failed) == constraint and not verdict.ok


def test_a_meeting_outside_the_travelers_day_is_outside_availability():
    case = hand_case(traveler=Traveler(start_location="Dock", start_time=t(9), end_of_day=t(13, 15)))
    assert kinds(case, *GOOD) == ["outside_availability"]


def test_travel_time_from_the_start_and_between_meetings():
    case = hand_case()
    # Dock -> Mill takes 20 minutes from 9:00, so 9:15 is too early (and outside Ana's window too).
    early = hand_case(
        people=(
            hand_case().people[0].model_copy(update={"availability": (Window(start=t(9), end=t(12)),)}),
            hand_case().people[1],
        )
    )
    assert kinds(early, meet("Ana", "Mill", t(9, 15), t(10, 15)), GOOD[1]) == ["travel_time"]
    assert kinds(early, meet("Ana", "Mill", t(9, 20), t(10, 20)), GOOD[1]) == []
    # Mill -> Quay takes 30 minutes: ending at 12:45 leaves 15.
    wide = hand_case(
        people=(
            case.people[0].model_copy(update={"availability": (Window(start=t(10), end=t(13)),)}),
            case.people[1],
        )
    )
    verdict = verify(wide, Schedule(meetings=(meet("Ana", "Mill", t(11, 45), t(12, 45)), GOOD[1])))
    assert [(v.kind, v.constraint, v.meeting) for v in verdict.violations] == [("travel_time", "ii", 1)]
    assert "30 minutes" in verdict.violations[0].message


def test_overlapping_meetings_break_the_travel_constraint():
    case = hand_case(
        people=(
            hand_case().people[0],
            hand_case().people[1].model_copy(update={"availability": (Window(start=t(10), end=t(15)),)}),
        )
    )
    assert kinds(case, GOOD[0], meet("Ben", "Quay", t(10, 30), t(11))) == ["travel_time"]


def test_the_solver_finds_a_sound_schedule_and_none_for_an_impossible_case():
    case = hand_case()
    found = solve(case)
    assert found is not None and verify(case, found).ok
    assert verify(case, found).preferences_met == ("Ana",)  # it honours the preference when it can
    # Ben only 11:00-11:40 while Ana is 10:00-12:00 for 60 min, 30 minutes apart: no order fits.
    ben = hand_case().people[1].model_copy(update={"availability": (Window(start=t(11), end=t(11, 40)),)})
    assert solve(hand_case(people=(hand_case().people[0], ben))) is None
    # Ben's only window ends before anyone can reach Quay from Dock (40 min from 9:00).
    late = hand_case(
        people=(hand_case().people[0], ben.model_copy(update={"availability": (Window(start=t(8), end=t(9, 50)),)}))
    )
    assert solve(late) is None


def grid_feasible(case: Case, step: int = 5) -> bool:
    """A naive brute force: every order, every grid start inside the person's windows, each meeting its duration."""
    starts = {
        p.name: [s for w in p.availability for s in range(w.start, w.end - p.duration + 1) if s % step == 0]
        for p in case.people
    }
    for order in itertools.permutations(case.people):
        for picks in itertools.product(*(starts[p.name] for p in order)):
            meetings = tuple(meet(p.name, p.location, s, s + p.duration) for p, s in zip(order, picks, strict=True))
            if verify(case, Schedule(meetings=meetings)).ok:
                return True
    return False


def test_the_solver_agrees_with_a_naive_grid_search():
    """Grid-feasible exactly when the solver's answer lies on the grid (its first pass is the same grid)."""
    outcomes = []
    for seed in (0, 3, 7, 12):
        case = generate(seed, extra_locations=0)
        for factor in (1, 2, 3, 5):  # slow the traffic down until the day breaks
            travel = tuple(tuple(minutes * factor for minutes in row) for row in case.travel)
            variant = Case.model_validate({**case.model_dump(), "travel": travel})
            found = solve(variant)
            assert found is None or verify(variant, found).ok
            on_grid = found is not None and all(m.start % 5 == 0 for m in found.meetings)
            assert grid_feasible(variant) == on_grid, (seed, factor)
            outcomes.append(found is not None)
    assert True in outcomes and False in outcomes


def test_generation_is_deterministic_and_varied():
    assert generate(11) == generate(11)
    assert generate(11) != generate(12)
    tags = {tag for case in generate_many(20) for tag in case.tags}
    assert {"tight_availability", "long_travel", "preferred_times", "two_windows", "order_matters"} <= tags
    knobbed = generate(5, tight=True, long_travel=True, preferences=True, extra_locations=2)
    assert {"tight_availability", "long_travel", "preferred_times"} <= set(knobbed.tags) and len(knobbed.locations) == 5
    with pytest.raises(ValueError, match="extra_locations"):
        generate(5, extra_locations=99)


def test_the_committed_cases_are_the_generators_and_all_solvable(tmp_path):
    cases = load_cases(CASES)
    assert len(cases) == 50 and len({case.id for case in cases}) == 50
    assert cases == generate_many(50, 0)
    assert experiments_main(["scheduling-cases", "--count", "50", "--seed", "0", "--check"]) == 0
    for case in cases:
        assert case.reference is not None and verify(case, case.reference).ok, case.id
        assert len(case.people) == 2
    out = tmp_path / "few.jsonl"
    assert experiments_main(["scheduling-cases", "--count", "3", "--seed", "0", "--out", str(out)]) == 0
    assert load_cases(out) == cases[:3]
    assert experiments_main(["scheduling-cases", "--count", "50", "--seed", "0", "--out", str(out), "--check"]) == 1


def test_bad_case_files_and_models_are_refused_with_a_clear_error(tmp_path):
    good = hand_case().model_dump()
    for change, words in [
        ({"travel": ((0, 20, 40), (21, 0, 30), (40, 30, 0))}, "same both ways"),
        ({"travel": ((1, 20, 40), (20, 0, 30), (40, 30, 0))}, "0 minutes"),
        ({"travel": ((0, 20), (20, 0))}, "3 x 3"),
        ({"locations": ("Dock", "Mill", "dock")}, "distinct"),
    ]:
        with pytest.raises(ValidationError, match=words):
            Case.model_validate({**good, **change})
    with pytest.raises(ValidationError, match="ends after it starts"):
        Window(start=t(10), end=t(9))
    with pytest.raises(ValidationError, match="not one of the case's locations"):
        Case.model_validate({**good, "traveler": {"start_location": "Moon", "start_time": 540, "end_of_day": 600}})
    bad = tmp_path / "bad.jsonl"
    bad.write_text(hand_case().model_dump_json() + "\n" + json.dumps({"id": "x"}) + "\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not a valid case"):
        load_cases(bad)


def test_briefings_hold_each_agents_private_view_only():
    case = hand_case()
    assert roles(case) == ("traveler", "planner_a", "planner_b")
    traveler = briefing(case, "traveler")
    assert "Dock <-> Quay: 40 min" in traveler and "9:00 AM" in traveler and "MEET <person>" in traveler
    assert "Mill" in traveler and "12:00 PM" not in traveler  # the matrix, not Ana's window
    ana = briefing(case, "planner_a")
    assert "Ana is at Mill" in ana and "10:00 AM to 12:00 PM" in ana and "at least 60 minutes" in ana
    assert "11:00 AM to 12:00 PM" in ana and "Ben" not in ana and "min" not in ana.split("minutes")[-1]
    assert "Dock <-> Quay" in briefing(case, "planner_b", planners_see_travel=True)
    assert "Dock <-> Quay" not in briefing(case, "planner_b")
    with pytest.raises(ValueError, match="the roles are traveler, planner_a, planner_b"):
        briefing(case, "planner_c")
