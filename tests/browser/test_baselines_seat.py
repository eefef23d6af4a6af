"""The baselines family in a real browser: a person as TAR's judge hears both sides, lets the debate go on once,
then ends it for the affirmative side; the verdict is the debate's answer, live and in the replay (issue #26)."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import STEP_GUARD_MS, Person, choose, open_more_settings, set_number, transcript, wait_for

REASON = "Both sides still argue; <b>round 2</b> may settle it."


def judge_form(page, round_: int) -> None:
    """Wait for the judge's call of ``round_``, whose sides are labelled with their answers."""
    page.wait_for_selector(f"#seat-prompt:has-text('Your call as the judge, round {round_}')", timeout=STEP_GUARD_MS)


def test_a_person_as_tars_judge_hears_both_sides_declines_once_then_ends_the_debate(page, app_url):
    person = Person(page)
    choose(page, "protocol-choice", "baselines")
    tar = page.locator("#variant-choice label:has-text('tar')")
    wait_for(lambda: tar.count() == 1, "the baselines as variants")
    agents = page.locator("#setup-agents textarea, #setup-agents input").first
    wait_for(lambda: agents.input_value() == "Alex", "the default variant (cot) seats one solver")
    tar.click()
    wait_for(lambda: agents.input_value() == "Alex, Chris, Jenny", "TAR's three seats back")
    seat = page.locator("#human-seat input")
    choose(page, "human-seat", "Jenny")
    wait_for(lambda: seat.input_value() == "Jenny · judge", "the third seat labelled as the judge's")
    open_more_settings(page)
    wait_for(lambda: "judge (1:" in page.locator("#roles").inner_text(), "the roles TAR fills, in seat order")
    set_number(page, "pace", 0.1)
    page.click("#start")
    # round 1: the affirmative's sentences, then the negative's, then the judge's call is the person's
    judge_form(page, 1)
    said = transcript(page)
    assert "The answer is B: it is the option the facts of the question support." in said
    assert "I disagree: A is the more familiar option" in said
    sides = page.locator("#transcript .line.speech .role")
    assert [sides.nth(i).inner_text() for i in range(2)] == ["affirmative", "negative"]
    assert "you are Jenny, the judge" in page.locator("#status").inner_text()
    call, side = page.locator("#seat-choice-0 label"), page.locator("#seat-choice-1 label")
    assert [call.nth(i).inner_text() for i in range(2)] == ["No: another round", "Yes: end the debate now"]
    assert [side.nth(i).inner_text() for i in range(2)] == ["Affirmative: B", "Negative: A"]
    call.nth(0).click()
    page.locator("#seat-text-0 textarea").fill(REASON)
    screenshot(page, "baselines-tar-judge-round-1")
    person.click("#seat-submit", "decline")
    # round 2: the negative side comes round; the person ends the debate for the affirmative side
    judge_form(page, 2)
    assert "I tried to hold A, but the affirmative side's facts stand." in transcript(page)
    page.locator("#seat-choice-0 label:has-text('Yes: end the debate now')").click()
    page.locator("#seat-choice-1 label:has-text('Affirmative: B')").click()
    person.click("#seat-submit", "verdict")
    result = page.locator("#result")
    wait_for(lambda: result.locator(".final").count() == 1, "the end of the debate")
    assert "Final answer: B" in result.inner_text() and "judge by Jenny" in result.inner_text()
    assert "✓ correct" in result.inner_text()
    judged = page.locator("#transcript .line.speech", has=page.locator(".agent", has_text="Jenny"))
    assert judged.count() == 2
    assert "No side is clearly right yet" in judged.nth(0).inner_text() and REASON in judged.nth(0).inner_text()
    assert judged.nth(0).locator("b").count() == 0  # the person's "<b>" stayed text
    assert "The affirmative side is right." in judged.nth(1).inner_text()
    assert "Final Answer: B" in judged.nth(1).inner_text()
    screenshot(page, "baselines-tar-judge-decided")
    assert dict(person.actions) == {"decline": 1, "verdict": 1}
    # the replay shows the same debate and the same verdict
    debate = page.locator("#status .status[data-debate]").get_attribute("data-debate")
    page.goto(f"{app_url}?debate={debate}")
    replayed = page.locator("#replay-result")
    wait_for(lambda: "Final answer: B" in replayed.inner_text(), "the replayed verdict")
    assert "judge by Jenny" in replayed.inner_text()
    assert "The affirmative side is right." in page.locator("#replay-transcript").inner_text()
