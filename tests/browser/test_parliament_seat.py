"""Parliament in a real browser: a person as the critic raises a point of information while the speech streams."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import (
    STEP_GUARD_MS,
    Person,
    choose,
    open_more_settings,
    record_seat_states,
    seat_states_seen,
    sentences,
    set_number,
    transcript,
    wait_for,
)

POINT = "Producing a gas every day says nothing about its share of the air."


def test_a_person_as_critic_raises_a_point_mid_speech_and_the_prover_answers_it(page):
    person = Person(page)
    choose(page, "protocol-choice", "parliament")
    agents = page.locator("#setup-agents textarea")
    wait_for(lambda: agents.input_value() == "Alex, Chris", "two agents for a prover and a critic")
    choose(page, "human-seat", "Chris")
    open_more_settings(page)
    set_number(page, "pace", 1.0)
    page.click("#start")
    wait_for(lambda: sentences(page) >= 1, "the opening's first chunk")
    wait_for(lambda: page.locator("#point").is_visible(), "the point-of-information controls")
    assert page.locator("#interrupt").is_hidden()  # Kimura's floor controls are not a critic's
    assert "Point of information" in page.locator("#seat-state").inner_text()
    page.locator("#point-text textarea").fill(POINT)
    record_seat_states(page)
    person.click("#point", "point of information")
    wait_for(lambda: "point of information to Alex" in transcript(page), "the point, raised at the next chunk")
    wait_for(lambda: "point raised" in seat_states_seen(page), "the badge")
    exchange = page.locator("#transcript .line.intervention")
    assert POINT in exchange.inner_text()
    wait_for(lambda: page.locator("#transcript .line.speech.side").count() == 1, "the prover's reply")
    wait_for(lambda: "resumes" in transcript(page), "the speech going on after the exchange")
    screenshot(page, "parliament-critic")
    # the closing rebuttal is the person's: the box opens for it
    page.wait_for_selector("#seat-text-0 textarea", timeout=STEP_GUARD_MS)
    page.locator("#seat-text-0 textarea").fill("Share is measured by volume: nitrogen is 78 percent of dry air.")
    page.locator("#seat-choice-0 label:has-text('B')").click()
    person.click("#seat-submit", "own words")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    assert "Opposition Proposed Answer: B" in transcript(page)
    assert dict(person.actions) == {"point of information": 1, "own words": 1}
