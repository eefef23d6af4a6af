"""bench/classroom.py on real connections: two raw Gradio clients (the teacher's page and a viewer on the
live address) follow a short scripted debate and every sentence reaches both."""

from __future__ import annotations

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

from tests.test_classroom_bench import bench


def test_the_classroom_bench_follows_a_short_debate_on_real_connections(app_url, app_db):
    classroom = bench()
    run = classroom.classroom(app_url, None, app_db, 2, 200, 0.3)
    with ThreadPoolExecutor(1) as aside:  # its own thread: Playwright's sync API keeps a loop running in this one
        outcome = aside.submit(asyncio.run, asyncio.wait_for(run, 600)).result()
    assert outcome.sentences >= 4 and outcome.expected >= outcome.sentences  # each viewer counts its sentences
    assert outcome.arrived == outcome.expected, "a sentence never reached a client"
    assert all(not math.isnan(value) and value >= 0 for value in outcome.last)
    assert outcome.updates >= outcome.sentences
    assert "2 viewers" in classroom.report(outcome)
