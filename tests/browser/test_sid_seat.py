"""SID in a real browser: a person takes a seat, answers and revises; the confidence gauges, what each agent
read (kept spans highlighted) and the result show live, and again in the replay."""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import STEP_GUARD_MS, Person, choose, open_more_settings, set_number, wait_for

REASONING = "Nitrogen is about <b>78%</b> of the air."


def _answer(page, person: Person, prompt: str, label: str, kind: str) -> None:
    page.wait_for_selector(f"#seat-prompt:has-text('{prompt}')", timeout=STEP_GUARD_MS)
    page.locator("#seat-text-0 textarea").fill(REASONING)
    page.locator(f"#seat-choice-0 label:has-text('{label}')").click()
    person.click("#seat-submit", kind)


def test_a_person_in_a_sid_debate_answers_twice_and_sees_the_gauges_and_what_each_agent_read(page, app_url):
    person = Person(page)
    choose(page, "protocol-choice", "sid")
    wait_for(lambda: page.locator("#variant-choice label:has-text('no_expand')").count() == 1, "SID's variants")
    seat = page.locator("#human-seat input")
    choose(page, "human-seat", "Chris")
    wait_for(lambda: seat.input_value() == "Chris", "Chris's seat (no roles: the bare name)")
    open_more_settings(page)
    wait_for(lambda: "sid has no roles" in page.locator("#roles").inner_text(), "no roles to fill")
    set_number(page, "pace", 0.1)
    page.click("#start")
    # round 1: the gate's agent answers alone (it hesitates), then the person with the others
    _answer(page, person, "your answer", "B", "answer")
    confidence = page.locator("#confidence")
    wait_for(lambda: confidence.locator(".gauge").count() == 2, "round 1's gauges (Alex and Jenny; a person has none)")
    gate = confidence.locator(".gauge.fail[data-agent='Alex'][data-round='1']")
    assert "exit gate: not passed" in gate.inner_text() and "NLL max 7.00" in gate.inner_text()
    assert gate.locator(".gauge-mark").count() == 1 and "ln|V|" in str(gate.get_attribute("title"))
    assert confidence.locator(".gauge.pass[data-agent='Jenny'][data-round='1']").count() == 1
    # round 2: the models read the others compressed (the person's answer too), the person reads them whole
    reading = page.locator("#reading")
    wait_for(lambda: reading.locator("details.reading").count() == 2, "what Alex and Jenny read, before revising")
    said = reading.inner_text()
    assert "Not read so far" in said and "Chris (a person) read the others whole" in said
    alex = reading.locator("details.reading[data-agent='Alex'][data-round='2']")
    assert alex.locator("mark.kept").count() >= 1 and "kept" in alex.locator("summary").inner_text()
    assert "Chris: " + REASONING in alex.locator(".reading-text").inner_text()  # the person's words, as text
    assert alex.locator(".reading-text b").count() == 0
    _answer(page, person, "your updated answer", "B", "revise")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    assert "Final answer: B" in page.locator("#result").inner_text()
    wait_for(lambda: confidence.locator(".gauge").count() == 4, "every measured reply's gauge")
    assert confidence.locator(".gauge[data-round='2']").count() == 2
    rounds = page.locator("#rounds")
    assert rounds.locator("tbody tr[data-round]").count() == 2 and "majority" in rounds.inner_text()
    screenshot(page, "sid-seat-decided")
    assert dict(person.actions) == {"answer": 1, "revise": 1}
    # the replay draws the same panels
    debate = page.locator("#status .status[data-debate]").get_attribute("data-debate")
    page.goto(f"{app_url}?debate={debate}")
    replayed = page.locator("#replay-confidence .gauge")
    wait_for(lambda: replayed.count() == 4, "the replayed gauges")
    assert page.locator("#replay-reading mark.kept").count() >= 2 and "exit gate" in replayed.nth(0).inner_text()
    screenshot(page, "sid-replay")
