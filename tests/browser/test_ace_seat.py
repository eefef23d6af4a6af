"""ACE in a real browser: a person as the observer fills in the analysis, stops the debate and picks its answer."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import STEP_GUARD_MS, Person, choose, open_more_settings, set_number, transcript, wait_for

REASON = "They disagree on <b>step 2</b>; Alex checks every option."


def test_a_person_as_the_observer_analyses_stops_and_picks_the_answer(page):
    person = Person(page)
    choose(page, "protocol-choice", "ace")
    wait_for(lambda: page.locator("#variant-choice label:has-text('no_analyze')").count() == 1, "ACE's variants")
    seat = page.locator("#human-seat input")
    choose(page, "human-seat", "Jenny")
    wait_for(lambda: seat.input_value() == "Jenny · observer", "the third seat labelled as the observer's")
    open_more_settings(page)
    wait_for(lambda: "observer (1:" in page.locator("#roles").inner_text(), "the roles ACE fills, in seat order")
    set_number(page, "pace", 0.1)
    page.click("#start")
    # round 1: both debaters answer, item by item; then the analysis is the person's
    page.wait_for_selector("#seat-prompt:has-text('Compare the debaters')", timeout=STEP_GUARD_MS)
    assert "Alex" in transcript(page) and "2. The first option that looks plausible" in transcript(page)
    labels = [page.locator(f"#seat-boolean-{i}").inner_text() for i in range(3)]
    assert ["Do the answers agree?" in labels[0], "similar overall" in labels[1], "Stop" in labels[2]] == [True] * 3
    matching = page.locator("#seat-text-0")
    assert "Matching items" in matching.inner_text() and "Alex's first: 1-2, 3-1" in matching.inner_text()
    matching.locator("textarea").fill("1-1")
    page.locator("#seat-text-1 textarea").fill("2-2")
    page.locator("#seat-text-2 textarea").fill(REASON)
    page.check("#seat-boolean-2 input")  # stop now
    screenshot(page, "ace-observer-form")
    person.click("#seat-submit", "analysis")
    # they still disagree, so the observer picks the answer
    page.wait_for_selector("#seat-prompt:has-text('pick the debate')", timeout=STEP_GUARD_MS)
    page.locator("#seat-choice-0 label:has-text('B')").click()
    person.click("#seat-submit", "pick")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    assert "judge by Jenny" in page.locator("#result").inner_text()
    # the analysis: both explanations side by side, the person's links and verdict, their words kept as text
    panel = page.locator("#transcript .line.analysis.paired")
    assert panel.count() == 1
    assert panel.locator(".pair-side").count() == 2 and panel.locator(".pair-side").nth(0).locator("li").count() == 3
    links = panel.locator(".links").inner_text()
    assert "1 ↔ 1 match" in links and "2 ≠ 2 differ" in links
    assert panel.locator(".verdict.stop").inner_text() == "stop" and REASON in panel.inner_text()
    assert panel.locator("b", has_text="step 2").count() == 0  # "<b>" stayed text
    assert "Jenny picks B" in page.locator("#transcript .line.analysis.pick").inner_text()
    rounds = page.locator("#rounds")
    wait_for(lambda: "judge: picked by Jenny" in rounds.inner_text(), "the answers per round, with the decision")
    assert "Answers per round" in rounds.inner_text() and "Jenny" not in rounds.locator("thead").inner_text()
    screenshot(page, "ace-observer-decided")
    assert dict(person.actions) == {"analysis": 1, "pick": 1}
