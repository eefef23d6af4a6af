"""What a Meeting Scheduling seat is shown when it is asked to act.

What it does: ``MeetingView`` bundles one request's view: the seat's name,
role and title, persona and private brief, its **briefing** of the case (the
traveler's: the travel matrix, its day, whom it meets, the constraints and
the schedule format; a planner's: its one person's private information),
whom it may talk to (``contacts``, one line each, and ``choices``: their
names, plus ``schedule`` for the traveler, the values a person picks from;
``addresses``: the words that name each of them in a model's ``To:`` line),
the public record so far (``transcript``: one line per message, "Chris
(Planner A) to Alex: ...", a cut message ending where it was cut), who is
speaking now and what has been heard of it (``speaker``, ``partial``, for a
listener's decision), why the seat is asked again (``note``), whom it just
cut off (``cut``), whether it may submit the schedule, the round, and
whether it is asked to be concise. ``SCHEDULE`` is the traveler's choice
to submit.

What it does not do: hold anything a seat may not know: the record has what
was said in public, and each briefing is the seat's own.
"""

from __future__ import annotations

from dataclasses import dataclass

SCHEDULE = "schedule"


@dataclass(frozen=True, slots=True)
class MeetingView:
    """One seat's view at one request (see the module docstring)."""

    agent: str
    role: str
    title: str
    persona: str = ""
    brief: str = ""
    briefing: str = ""
    contacts: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    addresses: tuple[tuple[str, str], ...] = ()  # (a word that names an agent, that agent's name)
    transcript: tuple[str, ...] = ()
    speaker: str = ""
    partial: str = ""
    note: str = ""
    cut: str = ""
    can_submit: bool = False
    concise: bool = False
    round: int = 1
    max_rounds: int = 10
