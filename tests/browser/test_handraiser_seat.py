"""HandRaiser in a real browser: a person as the moderator cuts Pro off at the next chunk, hears Con out, votes."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import (
    STEP_GUARD_MS,
    Person,
    choose,
    open_more_settings,
    record_seat_states,
    seat_state,
    seat_states_seen,
    sentences,
    set_number,
    transcript,
    wait_for,
)


def test_a_person_as_the_moderator_interrupts_pro_mid_statement_and_votes(page):
    person = Person(page)
    choose(page, "protocol-choice", "handraiser")
    human_policy = page.locator("#variant-choice label:has-text('human')")
    wait_for(lambda: human_policy.count() == 1, "HandRaiser's policies as variants")
    human_policy.click()
    seat = page.locator("#human-seat input")
    choose(page, "human-seat", "Jenny")
    wait_for(lambda: seat.input_value() == "Jenny · moderator", "the third seat labelled as the moderator's")
    open_more_settings(page)
    set_number(page, "pace", 1.0)
    page.click("#start")
    wait_for(lambda: page.locator("#interrupt-now").is_visible(), "the moderator's Interrupt button")
    for other in ("#interrupt", "#raise-hand", "#seat-answer", "#point", "#point-text"):
        assert page.locator(other).is_hidden(), f"{other} is not a moderator's control"
    assert "you are Jenny, the moderator" in page.locator("#status").inner_text()
    wait_for(lambda: sentences(page) >= 1, "Pro's first chunk")
    record_seat_states(page)
    heard = sentences(page)
    person.key("i", "interrupt")
    wait_for(lambda: "cut off by Jenny" in transcript(page), "Pro cut off at the next chunk")
    pro = page.locator("#transcript .line.speech").first
    assert "pro" in pro.locator(".role").inner_text()
    assert pro.locator(".sentence").count() <= heard + 1  # the next chunk, not the end of the statement
    # Con is heard out: the press was spent on Pro, so the stance went back to listening
    page.wait_for_selector("#seat-prompt:has-text('Your vote')", timeout=STEP_GUARD_MS)
    con = page.locator("#transcript .line.speech").nth(1)
    assert "con" in con.locator(".role").inner_text() and "cut off" not in con.inner_text()
    assert transcript(page).count("cut off by Jenny") == 1
    wait_for(lambda: "interrupted Alex" in seat_states_seen(page), "the badge saying whom the person cut off")
    assert "armed" in seat_states_seen(page) and seat_state(page) == "interrupted Alex"
    page.check("#show-discarded input")  # what Pro never said: the cut came before the end
    wait_for(lambda: pro.locator(".discarded").count() > 0, "Pro's discarded chunks")
    # the vote says what each choice does; the correct answer (B) is one side's
    choices = page.locator("#seat-choice-0 label")
    assert [choices.nth(i).inner_text().split(":")[0] for i in range(3)] == [
        "Vote for Pro",
        "Vote for Con",
        "Wait another round",
    ]
    screenshot(page, "handraiser-moderator")
    page.locator("#seat-choice-0 label:has-text('B) ')").click()
    person.click("#seat-submit", "vote")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    assert "✓ correct" in page.locator("#result").inner_text()
    assert page.locator("#transcript .line.speech .badge.kind").inner_text() == "vote"
    assert dict(person.actions) == {"interrupt": 1, "vote": 1}
