"""HandRaiser in a real browser: a person as the moderator cuts Pro off at the next chunk, hears Con out, votes; and
one who waits with a clarifying question, which both sides answer in the next round."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import (
    STEP_GUARD_MS,
    Person,
    choose,
    notice,
    open_more_settings,
    record_seat_states,
    seat_state,
    seat_states_seen,
    sentences,
    set_number,
    transcript,
    wait_for,
)


def set_up(page, protocol: str, *, variant: str = "human", seat: str = "", role: str = "", pace: float = 1.0) -> None:
    """Choose ``protocol`` and its policy ``variant``, take ``seat`` (labelled with its ``role``), set the pace."""
    choose(page, "protocol-choice", protocol)
    policy = page.locator(f"#variant-choice label:has-text('{variant}')")
    wait_for(lambda: policy.count() == 1, f"{protocol}'s policies as variants")
    policy.click()
    if seat:
        choose(page, "human-seat", seat)
        labelled = f"{seat} · {role}"
        wait_for(lambda: page.locator("#human-seat input").input_value() == labelled, f"the seat labelled {labelled}")
    open_more_settings(page)
    set_number(page, "pace", pace)


def test_a_person_as_the_moderator_interrupts_pro_mid_statement_and_votes(page):
    person = Person(page)
    # a slow pace while Pro speaks: a page that attaches late on a loaded machine still finds Pro mid-statement
    set_up(page, "handraiser", seat="Jenny", role="moderator", pace=5.0)  # the third seat; 5 s, the slider's top
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


def test_a_person_as_the_moderator_waits_with_a_question_and_the_next_statements_answer_it(page):
    person = Person(page)
    asked = "Which fact settles it?"
    set_up(page, "handraiser", seat="Jenny", role="moderator", pace=0.1)
    page.click("#start")
    page.wait_for_selector("#seat-prompt:has-text('Your vote, round 1')", timeout=STEP_GUARD_MS)
    assert "you may ask both sides a clarifying question" in page.locator("#seat-prompt").inner_text()
    page.locator("#seat-choice-0 label:has-text('Wait another round')").click()
    page.locator("#seat-text-0 textarea").fill(asked)
    person.click("#seat-submit", "question")
    page.wait_for_selector("#seat-prompt:has-text('Your vote, round 2')", timeout=STEP_GUARD_MS)
    question = page.locator("#transcript .line.speech:has(.badge.kind:text-is('question'))")
    assert question.count() == 1 and asked in question.inner_text() and "Jenny" in question.inner_text()
    statements = page.locator("#transcript .line.speech:has(.role:text-is('pro')), "
                              "#transcript .line.speech:has(.role:text-is('con'))")  # fmt: skip
    wait_for(lambda: statements.count() == 4, "both sides' second statements")
    for i in (2, 3):
        assert statements.nth(i).locator(".words").inner_text().startswith("You asked which fact settles it.")
    screenshot(page, "handraiser-moderator-question")
    page.locator("#seat-choice-0 label:has-text('B) ')").click()  # the side arguing the correct answer
    person.click("#seat-submit", "vote")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    assert "✓ correct" in page.locator("#result").inner_text()
    assert dict(person.actions) == {"question": 1, "vote": 1}


def test_speakers_and_the_moderator_on_models_of_their_own_from_the_set_up(page):
    set_up(page, "handraiser", variant="generic", pace=0)
    models = page.locator("#models-per-role textarea")
    models.fill("moderator=transformers:/etc/models")  # a path on the app's machine: refused, with why
    page.click("#start")
    wait_for(lambda: "Cannot start" in notice(page), "the refusal")
    assert "models per role: moderator=transformers:/etc/models" in notice(page)
    models.fill("moderator=scripted:listener-small\npro=scripted:speaker-big")
    page.click("#start")
    card = page.locator("#question")
    wait_for(lambda: "models:" in card.inner_text(), "which model sits in which seat")
    assert "Alex: speaker-big, Chris: scripted-demo, Jenny: listener-small" in card.inner_text()
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    assert "Error" not in page.locator("#result").inner_text()
