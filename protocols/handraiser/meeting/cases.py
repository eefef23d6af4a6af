"""Which meeting-scheduling case a debate plays, and the question that carries one.

What it does: a case travels **in the question**: ``scheduling_question(case)``
is a ``Question`` whose text is the task statement (public: whom the traveler
meets, nothing private), whose ``context`` is the case's JSON (every front end
keeps the context out of sight; only this protocol reads it, and each agent is
shown its own briefing of it) and whose answer is ``SUCCESS`` ("valid"). So a
stored debate, a replay and a study item hold their whole case, whatever
happens to the committed file later. ``case_for(config, params)`` finds it: the
question's case; else the committed case named by the parameter ``case``; else
the committed case the debate's seed picks (``seed`` mod 50), so a question
with no case (the terminal's built-in demo question) still plays one.
``outcome(question, ok)`` is the debate's answer for a verdict: ``SUCCESS``
or ``FAILURE``, or none for a multiple-choice question (an answer there must
be an option: such a question is no scheduling question, and only the
verdict phase says how the game went).

What it does not do: check schedules (``scheduling.check``) or word briefings (``scheduling.briefing``).
"""

from __future__ import annotations

from functools import cache

from pydantic import ValidationError

from debate_core.config import DebateConfig, Question
from debate_core.errors import ConfigError
from protocols.handraiser.meeting.params import SchedulingParams
from protocols.handraiser.scheduling import CASES, Case, load_cases

SUCCESS, FAILURE = "valid", "invalid"
PLANNERS = ("planner_a", "planner_b")


@cache
def committed() -> dict[str, Case]:
    """The committed cases (``scheduling/cases.jsonl``) by id, in file order."""
    return {case.id: case for case in load_cases(CASES)}


def task_statement(case: Case) -> str:
    people = " and ".join(person.name for person in case.people)
    return (
        f"Meeting Scheduling ({case.id}): the traveler plans a day meeting {people}, each once at their own "
        "location, within their availability and the travel times. Each planner alone knows one person's details."
    )


def scheduling_question(case: Case) -> Question:
    """The question that carries ``case``: the task statement, the case's JSON as context, the answer ``valid``."""
    return Question(text=task_statement(case), answer=SUCCESS, context=case.model_dump_json())


def case_in(question: Question) -> Case | None:
    """The case a question carries in its context, None when it carries none; ``ConfigError`` for a broken one."""
    context = question.context.strip()
    if not context.startswith("{") or '"travel"' not in context:
        return None
    try:
        return Case.model_validate_json(context)
    except ValidationError as error:
        raise ConfigError(f"the question's context is not a valid meeting-scheduling case: {error}") from None


def case_for(config: DebateConfig, params: SchedulingParams) -> Case:
    """The case the debate plays (see the module docstring); ``ConfigError`` when none fits this protocol."""
    given = case_in(config.question)
    if params.case is not None:
        named = committed().get(params.case)
        if named is None:
            ids = list(committed())
            raise ConfigError(f"no committed case {params.case!r}: the ids are {ids[0]} .. {ids[-1]}")
        if given is not None and given.id != named.id:
            raise ConfigError(f"the question carries case {given.id}, the parameter case names {params.case}")
        case = given or named
    elif given is not None:
        case = given
    else:
        ids = list(committed())
        case = committed()[ids[config.seed % len(ids)]]
    if sorted(person.planner for person in case.people) != list(PLANNERS):
        raise ConfigError(f"case {case.id}: this protocol seats two planners, {PLANNERS[0]} and {PLANNERS[1]}")
    return case


def outcome(question: Question, ok: bool) -> str | None:
    """The debate's answer for a verdict: ``valid``/``invalid``; none for a multiple-choice question."""
    if question.options:
        return None
    return SUCCESS if ok else FAILURE
