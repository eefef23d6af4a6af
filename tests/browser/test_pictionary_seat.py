"""Text Pictionary in a real browser: a person as the guesser hears the description chunk by chunk, cuts the
describer off with the Interrupt key, types a guess in the guess box, and the game ends solved; the secret is on
no part of the page until then."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import (
    INTERRUPT_PACE_S,
    STEP_GUARD_MS,
    Person,
    seat_state,
    sentences,
    status,
    transcript,
    wait_for,
)
from tests.browser.test_handraiser_seat import set_up

SECRET = "Nitrogen"  # the shared demo question's answer (B): the game's secret


def shown(page) -> str:
    """Everything the page shows now (the folded set-up holds the question the person typed, not shown)."""
    return page.locator("body").inner_text()


def test_a_person_as_the_guesser_interrupts_the_describer_and_guesses_the_secret(page):
    person = Person(page)
    set_up(page, "pictionary", seat="Chris", role="guesser", pace=INTERRUPT_PACE_S)  # the second of two seats
    agents = page.locator("#setup-agents input, #setup-agents textarea").first
    assert agents.input_value() == "Alex, Chris"  # the describer and the guesser
    page.click("#start")
    wait_for(lambda: page.locator("#interrupt-now").is_visible(), "the guesser's Interrupt button")
    assert "you are Chris, the guesser" in page.locator("#status").inner_text()
    card = page.locator("#question")
    wait_for(lambda: "hidden from you, the guesser" in card.inner_text(), "the card keeping the secret")
    # Paused at the first chunk, the person presses Interrupt while chunks remain however slow the machine is
    # (a paced press could land after the whole description on a loaded one); it lands at the next chunk.
    wait_for(lambda: sentences(page) >= 1, "the description's first chunk")
    page.click("#pause")
    wait_for(lambda: status(page).startswith("paused"), "the pause")
    assert SECRET.lower() not in shown(page).lower() and "Oxygen" not in card.inner_text()
    heard = sentences(page)
    person.key("i", "interrupt")
    wait_for(lambda: seat_state(page) == "armed", "the armed interrupt")  # armed before the debate goes on
    page.click("#resume")
    wait_for(lambda: "cut off by Chris" in transcript(page), "the describer cut off at the next chunk")
    description = page.locator("#transcript .line.speech").first
    assert "describer" in description.locator(".role").inner_text()
    assert description.locator(".sentence").count() <= heard + 1
    page.wait_for_selector("#seat-prompt:has-text('name the secret entity')", timeout=STEP_GUARD_MS)
    assert SECRET.lower() not in shown(page).lower()  # the guess box says nothing of it either
    screenshot(page, "pictionary-guesser")
    page.locator("#seat-text-0 textarea").fill(SECRET.lower())
    person.click("#seat-submit", "guess")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the game")
    assert "✓ correct" in page.locator("#result").inner_text()
    wait_for(lambda: "solved" in card.inner_text(), "the card saying the game was solved")
    assert f"The secret was {SECRET}" in card.inner_text()
    assert "Guess: nitrogen" in transcript(page)
    assert dict(person.actions) == {"interrupt": 1, "guess": 1}
