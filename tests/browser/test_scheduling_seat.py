"""Meeting Scheduling in a real browser: a person as the traveler reads their briefing, writes to a planner they
pick, cuts the planner off with the Interrupt key and submits a schedule; the verifier's verdict is on the page (a
schedule that misses a meeting names the broken constraint), and a right schedule in the next game succeeds."""

from __future__ import annotations

from protocols.handraiser.meeting.cases import case_in
from protocols.handraiser.scheduling.check import solve
from protocols.handraiser.scheduling.parse import render_schedule
from tests.browser.conftest import screenshot
from tests.browser.pages import STEP_GUARD_MS, Person, transcript, wait_for
from tests.browser.test_handraiser_seat import set_up
from ui.setup_fields import _demo_question


def _schedules() -> tuple[str, str]:
    """The demo case's right schedule, and a wrong one: its first meeting only (constraint iii: a person unmet)."""
    case = case_in(_demo_question("scheduling"))
    assert case is not None
    right = solve(case)
    assert right is not None
    lines = render_schedule(right).splitlines()
    return "\n".join(lines), lines[0]


def _traveler_turn(page, person: Person, to: str, text: str, kind: str) -> None:
    page.wait_for_selector("#seat-prompt:has-text('write to a planner')", timeout=STEP_GUARD_MS)
    page.locator(f"#seat-choice-0 label:has-text('{to}')").click()
    page.locator("#seat-text-0 textarea").fill(text)
    person.click("#seat-submit", kind)


def test_a_person_as_the_traveler_interrupts_a_planner_and_the_schedules_verdict_is_shown(page):
    right, wrong = _schedules()
    person = Person(page)
    question = page.locator("#setup-question textarea")
    set_up(page, "scheduling", seat="Alex", role="traveler")  # the first seat
    wait_for(lambda: question.input_value().startswith("Meeting Scheduling (meeting-"), "the task's own question")
    page.click("#start")
    # the traveler's turn: their own briefing, whom to write to, the message
    page.wait_for_selector("#seat-prompt:has-text('Travel times between locations')", timeout=STEP_GUARD_MS)
    assert "you are Alex, the traveler" in page.locator("#status").inner_text()
    assert [page.locator("#seat-choice-0 label").nth(i).inner_text() for i in range(3)] == [
        "Chris",
        "Jenny",
        "schedule",
    ]
    assert "exactly like MEET <person> AT <location> FROM <start> TO <end>" in page.locator("#seat-prompt").inner_text()
    assert "&quot;travel&quot;" not in page.content() and '"travel"' not in page.locator("body").inner_text()
    _traveler_turn(page, person, "Chris", "Where and when can I meet your person?", "message")
    wait_for(lambda: page.locator("#transcript .line.speech").count() >= 2, "the planner's answer beginning")
    planner = page.locator("#transcript .line.speech").nth(1)
    wait_for(lambda: planner.locator(".sentence").count() >= 1, "the planner's first chunk")
    person.key("i", "interrupt")
    wait_for(lambda: "cut off by Alex" in transcript(page), "the planner cut off at the next chunk")
    assert "Chris" in planner.inner_text()
    screenshot(page, "scheduling-traveler")
    _traveler_turn(page, person, "schedule", wrong, "schedule")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the verdict")
    shown = transcript(page)
    assert "verdict" in shown and "(iii) missing_meeting" in shown
    assert "✗ incorrect" in page.locator("#result").inner_text()
    # the next game: the right schedule at once
    page.click("#start")
    page.wait_for_selector("#seat-prompt:has-text('Travel times between locations')", timeout=STEP_GUARD_MS)
    wait_for(lambda: "(iii)" not in transcript(page), "the new game's transcript")
    _traveler_turn(page, person, "schedule", right, "schedule")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the second verdict")
    assert "✓ correct" in page.locator("#result").inner_text()
    assert "satisfies every hard constraint" in transcript(page)
    assert dict(person.actions) == {"message": 1, "interrupt": 1, "schedule": 2}
