"""A person at the table, in a real browser: watch, interrupt, be cut off, raise a hand, let it pass.

The scripted demo runs (the app's default model); the person sits in Jenny's seat. The
debate takes the person's live controls as their plan every turn and waits only for their
words. Each test counts what the person does.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from debate_core.events import InitialAnswersGiven, PlansMade, UtteranceGenerated
from debate_core.kernel.seats import LET_PASS
from storage import Store
from tests.browser.conftest import screenshot
from tests.browser.pages import (
    INTERRUPT_PACE_S,
    STEP_GUARD_MS,
    Person,
    address,
    record_seat_states,
    seat_and_start,
    seat_state,
    seat_states_seen,
    sentences,
    status,
    transcript,
    wait_for,
)


def alex_opening(page) -> int:
    """How many sentences of Alex's opening are on the page."""
    return page.locator("#transcript .line.speech").first.locator(".sentence").count()


def debate_id_of(page) -> str:
    return parse_qs(urlparse(address(page)).query)["live"][0]


def test_a_person_watches_interrupts_is_cut_off_raises_a_hand_and_needs_only_those_actions(page):
    person = Person(page)
    seat_and_start(page, pace=INTERRUPT_PACE_S)  # time enough to press i mid-utterance on a busy machine
    person.answer("B")
    # Watching: the debate goes on with no action from the person.
    wait_for(lambda: sentences(page) >= 1, "Alex's first sentence")
    assert seat_state(page) == "listening"
    assert person.total == 1
    # Interrupt from the keyboard while Alex is mid-utterance: the floor at the next boundary.
    assert page.locator("#transcript .line.speech .more").count() == 1  # Alex is still speaking
    heard = alex_opening(page)
    person.key("i", "interrupt")
    wait_for(lambda: "cut off by Jenny" in transcript(page), "Alex to be cut off by Jenny")
    assert alex_opening(page) <= heard + 1  # cut at the next boundary, not at the end of his speech
    page.wait_for_selector("#seat-prompt:has-text('You have the floor')", timeout=STEP_GUARD_MS)
    assert seat_state(page) == "won the floor"
    wait_for(lambda: page.evaluate("document.activeElement?.closest('#seat-text-0') != null"), "the focused box")
    # Two sentences; a scripted agent cuts the person off after the first, and says so plainly.
    person.say("Wait, that is wrong. Nitrogen is 78 percent of the air.")
    wait_for(lambda: seat_state(page) == "cut off by Alex", "the person to be cut off")
    assert "cut you off" in page.locator("#seat-state").inner_text()
    assert page.locator("#seat-state .cutoff-banner").count() == 1
    mine = page.locator("#transcript .line.speech:has(.agent:text-is('Jenny'))").first
    assert mine.locator(".sentence").all_inner_texts() == ["Wait, that is wrong."]
    assert "cut off by Alex" in mine.inner_text()
    page.check("#show-discarded input")
    wait_for(lambda: "Nitrogen is 78 percent" in mine.locator(".discarded").inner_text(), "the unsaid sentence")
    # A raised hand while Alex answers: the person speaks once the floor is free.
    wait_for(lambda: "Let me answer Jenny" in transcript(page), "Alex's answer")
    record_seat_states(page)
    person.click("#raise-hand", "raise hand")
    wait_for(lambda: "hand raised" in seat_states_seen(page), "the hand raised")
    page.wait_for_selector("#seat-prompt:has-text('You have the floor')", timeout=STEP_GUARD_MS)
    person.say("Thanks for the answer. So it is B.")
    wait_for(lambda: "So it is B." in transcript(page), "the person's second point, heard out")
    second = page.locator("#transcript .line.speech:has(.agent:text-is('Jenny'))").nth(1)
    assert "interrupting" not in second.inner_text()  # the floor was free when the person took it
    screenshot(page, "live-seat-raised-hand")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    turns = int(page.locator("#budget").inner_text().split("Turn ")[1].split()[0])
    print(f"\nactions by the person for the whole debate: {person.total} {dict(person.actions)} over {turns} turns")
    assert dict(person.actions) == {"own words": 3, "interrupt": 1, "raise hand": 1}
    assert turns >= 15
    for control in ("#pause", "#resume", "#step", "#stop"):
        assert page.locator(control).is_disabled(), f"{control} stays enabled after the end"


def test_the_interrupt_button_and_a_person_who_lets_it_pass(page, app_db):
    person = Person(page)
    seat_and_start(page, pace=0.4, timer_s=3)
    # The person does not give an initial answer: a countdown, then the debate goes on.
    wait_for(lambda: "s left" in page.locator("#countdown").inner_text(), "the countdown")
    wait_for(lambda: sentences(page) >= 1, "the debate to go on without the person's answer")
    assert page.locator("#interrupt").is_visible()
    person.click("#interrupt", "interrupt")
    wait_for(lambda: seat_state(page) in ("armed", "queued", "won the floor"), "the armed interrupt")
    page.wait_for_selector("#seat-prompt:has-text('You have the floor')", timeout=STEP_GUARD_MS)
    assert "s left" in page.locator("#countdown").inner_text()
    wait_for(lambda: "said nothing (the person let it pass)" in transcript(page), "the floor let pass")
    page.click("#stop")
    wait_for(lambda: status(page).startswith("ended"), "the stop")
    store = Store(app_db)
    try:
        events = store.events(debate_id_of(page))
    finally:
        store.close()
    [initial] = [a for e in events if isinstance(e, InitialAnswersGiven) for a in e.answers if a.agent == "Jenny"]
    assert (initial.valid, initial.note) == (True, LET_PASS)
    [passed] = [e for e in events if isinstance(e, UtteranceGenerated) and e.speaker == "Jenny"]
    assert (passed.units, passed.error) == ((), LET_PASS)
    mine = [r for e in events if isinstance(e, PlansMade) for r in e.plans if r.agent == "Jenny"]
    assert mine and all(r.valid for r in mine)  # no plan of the person is ever invalid
    assert {r.plan.urgency for r in mine if r.plan.action.value == "listen"} == {0}
    assert person.total == 1
