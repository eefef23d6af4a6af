"""bench/classroom.py on real connections: raw Gradio clients (the teacher's page, a viewer on the live address,
a student who joined by the join code and took a seat) follow a short scripted debate and every sentence
reaches each of them; the student's presses are accepted and the debate takes their words."""

from __future__ import annotations

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

from bench.classroom_report import report
from tests.test_classroom_bench import bench


def run(coroutine):
    with ThreadPoolExecutor(1) as aside:  # its own thread: Playwright's sync API keeps a loop running in this one
        return aside.submit(asyncio.run, asyncio.wait_for(coroutine, 600)).result()


def test_the_classroom_bench_follows_a_short_debate_on_real_connections(app_url, app_db):
    classroom = bench()
    outcome = run(classroom.classroom(app_url, None, app_db, 2, 200, 0.3))
    assert outcome.sentences >= 4 and outcome.expected >= outcome.sentences  # each viewer counts its sentences
    assert outcome.arrived == outcome.expected, "a sentence never reached a client"
    assert all(not math.isnan(value) and value >= 0 for value in outcome.last)
    assert outcome.updates >= outcome.sentences
    assert "2 viewers" in report(outcome)


def test_a_seated_student_joins_by_the_code_presses_and_is_answered_for_in_the_bench(app_url, app_db):
    classroom = bench()
    outcome = run(classroom.classroom(app_url, None, app_db, 1, 200, 0.3, seated=1))
    # the teacher's page and the student's (a sentence disclosed before a page's first update is not counted)
    assert outcome.arrived == outcome.expected >= 2 * (outcome.sentences - 1)
    assert outcome.presses >= 1 and outcome.accepted == outcome.presses, "a press of the student's own seat refused"
    assert outcome.asked >= 1 and outcome.sent == outcome.asked, "the debate did not take the student's words"
    assert "1 viewers + 1 seated" in report(outcome)
