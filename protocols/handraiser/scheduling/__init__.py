"""Meeting Scheduling (HandRaiser's App. C, after Natural Plan): cases, their checking, schedules and briefings.

A pure package: models (``model``), clock times (``clock``), the seeded generator and the command
that writes ``cases.jsonl`` (``generate``), the verifier and solver (``check``), the schedule
format (``parse``) and each agent's private view (``briefing``). See README.md beside it.

What it does not do: run a conversation or import the engine; the HandRaiser protocol does that.
"""

from protocols.handraiser.scheduling.briefing import briefing, roles
from protocols.handraiser.scheduling.check import Verdict, Violation, solve, verify
from protocols.handraiser.scheduling.clock import format_time, parse_time
from protocols.handraiser.scheduling.generate import CASES, generate, generate_many
from protocols.handraiser.scheduling.model import (
    Case,
    Meeting,
    Person,
    Schedule,
    Traveler,
    Window,
    dump_cases,
    load_cases,
)
from protocols.handraiser.scheduling.parse import SCHEDULE_FORMAT, ParseError, parse_schedule, render_schedule

__all__ = [
    "CASES",
    "SCHEDULE_FORMAT",
    "Case",
    "Meeting",
    "ParseError",
    "Person",
    "Schedule",
    "Traveler",
    "Verdict",
    "Violation",
    "Window",
    "briefing",
    "dump_cases",
    "format_time",
    "generate",
    "generate_many",
    "load_cases",
    "parse_schedule",
    "parse_time",
    "render_schedule",
    "roles",
    "solve",
    "verify",
]
