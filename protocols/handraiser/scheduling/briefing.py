"""What each agent of a meeting-scheduling case knows, as the text it is briefed with.

What it does: ``briefing(case, role)`` words the private view of one agent: ``"traveler"`` or a
planner's name (``roles(case)`` lists them).

* The traveler knows the travel-time matrix over all the case's locations (including places
  where nobody is), its own start (location and time) and end of day, whom it must meet and which
  planner speaks for each, the three hard constraints, and the schedule format it must answer
  in. It does not know where anyone is or when they are free: the paper gives each planning
  agent "private information about this person, including location, available time slots,
  meeting duration, and preferred meeting times", so the traveler has to learn them by talking.
* A planner knows only its person's private information: location, availability, least
  duration and (soft) preferred times. The paper says each case "includes the distance matrix
  and the private information for the planning agents and traveler" without saying who holds the
  matrix; here the traveler does, since it is the one who travels (Natural Plan gives the
  matrix to the one who plans), and ``planners_see_travel=True`` gives it to the planners too.

What it does not do: run the conversation, hold the reference solution (never shown) or check a
schedule (``check``).
"""

from __future__ import annotations

from protocols.handraiser.scheduling.clock import format_time
from protocols.handraiser.scheduling.model import Case, Person, key
from protocols.handraiser.scheduling.parse import SCHEDULE_FORMAT

TRAVELER = "traveler"

RULES = (
    "The schedule succeeds only if every hard constraint holds:\n"
    "(i) each meeting is with one of the people above, at that person's location, wholly within a time they "
    "are available, and at least as long as they need;\n"
    "(ii) you have time to travel from your start to the first meeting and from each meeting to the next;\n"
    "(iii) you meet each person exactly once, and schedule no other meeting.\n"
    "Preferred times are wishes: honour them when you can, but they never make a schedule fail."
)


def roles(case: Case) -> tuple[str, ...]:
    """The agents of ``case``: the traveler, then each person's planner."""
    return (TRAVELER, *(person.planner for person in case.people))


def _travel(case: Case) -> str:
    lines = [
        f"- {case.locations[i]} <-> {case.locations[j]}: {case.travel[i][j]} min"
        for i in range(len(case.locations))
        for j in range(i + 1, len(case.locations))
    ]
    return "Travel times between locations, in minutes (the same both ways):\n" + "\n".join(lines)


def _traveler(case: Case) -> str:
    people = ", ".join(f"{person.name} (their planner is {person.planner})" for person in case.people)
    traveler = case.traveler
    return "\n\n".join(
        (
            f"You are the traveler. Today you want to meet {len(case.people)} people, each separately at their own "
            f"location: {people}. Only each person's planner knows where that person is, when they are free, "
            "how long the meeting must last and when they would rather meet: ask the planners.",
            f"You start at {traveler.start_location} at {format_time(traveler.start_time)}, and your last meeting "
            f"must end by {format_time(traveler.end_of_day)}.",
            _travel(case),
            RULES,
            SCHEDULE_FORMAT,
        )
    )


def _planner(case: Case, person: Person, planners_see_travel: bool) -> str:
    available = ", and ".join(str(window) for window in person.availability)
    wishes = (
        "prefers to meet " + ", or ".join(str(window) for window in person.preferred) + " (a wish, not a requirement)"
        if person.preferred
        else "no preferred time"
    )
    parts = [
        f"You are {person.planner}, the planning agent of {person.name}, who wants to meet the traveler. "
        f"What follows is private: only you know it, and the traveler learns it only from what you tell them.",
        "\n".join(
            (
                f"- Location: {person.name} is at {person.location} and meets only there.",
                f"- Available: {available}.",
                f"- Meeting length: at least {person.duration} minutes.",
                f"- Preferred time: {wishes}.",
            )
        ),
        f"Help the traveler fit a meeting with {person.name} into their day; the traveler writes the final schedule.",
    ]
    if planners_see_travel:
        parts.append(_travel(case))
    return "\n\n".join(parts)


def briefing(case: Case, role: str, *, planners_see_travel: bool = False) -> str:
    """The private briefing of ``role`` ("traveler" or a planner's name); ``ValueError`` for any other role."""
    if key(role) == TRAVELER:
        return _traveler(case)
    for person in case.people:
        if key(person.planner) == key(role):
            return _planner(case, person, planners_see_travel)
    raise ValueError(f"no role {role!r} in case {case.id}: the roles are {', '.join(roles(case))}")
