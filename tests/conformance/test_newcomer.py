"""A protocol nobody wrote a test for gets the whole conformance suite, and the suite finds its defect.

Two outside plugins, loaded through ``DEBATE_PLUGINS`` in a pytest run of its own: the example package
``examples/round_robin`` registers ``round-robin``, which keeps every rule, and
``tests/conformance/unfillable.py`` registers ``round-robin-unfillable``, the same protocol with an
answer form no person can fill.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from debate_core.plugins import ENV_VAR
from tests.conftest import HANG_GUARD_S

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = "round_robin.plugin,tests.conformance.unfillable"
EXAMPLE = ROOT / "examples" / "round_robin"
CHECKS = {
    "test_its_scripted_demo_runs_to_an_end_and_the_stream_is_one_that_can_have_happened",
    "test_its_model_seats_can_be_handed_to_people_and_back_at_any_request",
    "test_every_consumer_in_the_project_consumes_its_stream",
    "test_a_person_can_fill_every_form_in_every_seat_a_person_may_take",
    "test_a_store_round_trip_gives_back_the_very_events",
    "test_replay_from_the_store_draws_what_the_live_page_drew_at_every_turn",
    "test_the_terminal_shows_every_disclosed_unit_and_the_result",
    "test_its_row_of_a_comparison_study_report_builds",
}


def test_a_protocol_registered_from_outside_is_checked_with_no_test_written(tmp_path):
    report = tmp_path / "junit.xml"
    command = [
        sys.executable,
        "-m",
        "pytest",
        "tests/conformance/test_every_protocol.py",
        "-q",
        "-p",
        "no:cacheprovider",
    ]
    command += ["-k", "round and robin", f"--junitxml={report}"]
    done = subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, ENV_VAR: PLUGINS, "PYTHONPATH": os.pathsep.join([str(EXAMPLE), str(ROOT)])},
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # 1: some tests failed
    outcomes: dict[tuple[str, str], str] = {}
    why: dict[tuple[str, str], str] = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        test, _, case_id = case.attrib["name"].partition("[")
        failed = case.find("failure")
        outcomes[(test, case_id.rstrip("]"))] = "failed" if failed is not None else "passed"
        if failed is not None:
            why[(test, case_id.rstrip("]"))] = failed.attrib.get("message", "")
    ids = ("round-robin/standard", "round-robin/short", "round-robin-unfillable/standard")
    assert set(outcomes) == {(test, case_id) for test in CHECKS for case_id in ids}
    person = ("test_a_person_can_fill_every_form_in_every_seat_a_person_may_take", "round-robin-unfillable/standard")
    assert {key for key, outcome in outcomes.items() if outcome == "failed"} == {person}
    assert "cannot fill the answer form" in why[person] and "this form takes nothing" in why[person]
