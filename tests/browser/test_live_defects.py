"""Defects of the live and replay pages found walking every protocol and role in Chromium (issue #30, item 7),
each shown fixed in a real browser: (3), (4) and (17) on the scripted app; (11), llama.cpp's start said in
the status, on the app's own llama.cpp choice (the server lane: it starts llama.cpp), and without a server in
``tests/test_live_defects.py``.
"""

from __future__ import annotations

from storage import Store
from tests.browser.conftest import open_page
from tests.browser.pages import (
    INTERRUPT_PACE_S,
    STEP_GUARD_MS,
    Person,
    choose,
    open_more_settings,
    record_seat_states,
    seat_and_start,
    seat_state,
    seat_states_seen,
    sentences,
    set_number,
    status,
    transcript,
    wait_for,
)
from tests.conftest import HANG_GUARD_S

# Records every text the status line shows, so a short-lived one (the server starting) is not missed.
STATUS_LOG_JS = """
window.__statuses = [];
new MutationObserver(() => {
  const node = document.querySelector('#status .status-text');
  const text = node ? node.textContent : '';
  if (text && window.__statuses[window.__statuses.length - 1] !== text) window.__statuses.push(text);
}).observe(document, {subtree: true, childList: true, characterData: true});
"""

# Keeps the sentence the badge showed with each state (a state can last less than one poll).
NOTES_JS = """() => {
    window.seatNotes = {};
    new MutationObserver(() => {
        const badge = document.querySelector('#seat-state .seat-state');
        const note = document.querySelector('#seat-state .seat-note');
        if (badge && note) window.seatNotes[badge.dataset.state] = note.textContent;
    }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def test_3_the_badge_says_the_floor_passed_then_listening_never_won_the_floor_turns_later(page):
    person = Person(page)
    # a 10 s timer: a loaded machine's page still shows her floor's form before her time runs out
    seat_and_start(page, pace=INTERRUPT_PACE_S, timer_s=10)
    record_seat_states(page)
    page.evaluate(NOTES_JS)
    # She lets her initial answer pass (no race with its timer on a busy machine), asks for the floor at
    # once, and says nothing in time when she has it.
    person.click("#interrupt", "interrupt")
    page.wait_for_selector("#seat-prompt:has-text('You have the floor')", timeout=STEP_GUARD_MS)
    # (4) while she holds the floor, the status says the debate waits for her words
    wait_for(lambda: "waiting for Jenny to speak" in status(page), "the status to say it waits for her")
    wait_for(lambda: "said nothing (the person let it pass)" in transcript(page), "the floor let pass")
    wait_for(lambda: seat_state(page) in ("floor passed", "listening"), "the badge to leave 'won the floor'")
    passed = sentences(page)
    wait_for(lambda: sentences(page) >= passed + 4, "turns after the pass")
    assert seat_state(page) == "listening"
    seen = seat_states_seen(page)
    assert "floor passed" in seen and seen.index("floor passed") > seen.index("won the floor"), seen
    assert "won the floor" not in seen[seen.index("floor passed") :], seen
    said = page.evaluate("() => window.seatNotes['floor passed']")
    assert "Your time ran out before you spoke, so the floor passed" in said
    assert "waiting for Jenny" not in status(page)


def test_4_the_status_says_the_debate_waits_for_the_persons_initial_answer(page):
    seat_and_start(page)
    page.wait_for_selector("#seat-prompt:has-text('Before the debate')", timeout=STEP_GUARD_MS)
    wait_for(lambda: "waiting for Jenny's initial answer" in status(page), "the status to say whom it waits for")
    assert "tokens so far" not in status(page) and "you are Jenny" in status(page)
    Person(page).answer("B")
    wait_for(lambda: sentences(page) >= 1, "the debate to go on")
    assert "waiting for Jenny" not in status(page)


def test_17_play_at_the_last_turn_plays_the_replay_again_from_the_start(browser, app_url, app_db):
    store = Store(app_db)
    short = store.list_debates(text="Short one?")[-1]
    store.close()
    page = open_page(browser, app_url)
    turn = page.locator("#replay-turn input[type=number]")
    play = page.locator("#replay-play input")
    try:
        page.get_by_role("tab", name="Replay").click()
        wait_for(lambda: "Short one?" in page.locator("#replay-list").inner_text(), "the list")
        choose(page, "replay-choice", short.id[:8])
        page.click("#replay-open")
        wait_for(lambda: turn.input_value() == "2", "the debate, opened at its last turn")
        wait_for(lambda: sentences(page, "#replay-transcript") > 0, "the transcript")
        whole = sentences(page, "#replay-transcript")
        play.check()
        wait_for(lambda: sentences(page, "#replay-transcript") < whole, "Play to start again from the beginning")
        wait_for(lambda: turn.input_value() == "2" and not play.is_checked(), "the end, with Play let go")
        wait_for(lambda: sentences(page, "#replay-transcript") == whole, "the whole debate again")
        play.check()  # and again: at the end, Play always starts over
        wait_for(lambda: sentences(page, "#replay-transcript") < whole, "Play to start over a second time")
    finally:
        page.context.close()


def test_11_the_llamacpp_choice_says_it_starts_the_server_then_what_the_model_does(page):
    page.evaluate(STATUS_LOG_JS)
    choose(page, "backend-choice", "embedded SmolLM2-135M on llama.cpp")
    open_more_settings(page)
    set_number(page, "budget-setting", 20)
    set_number(page, "pace", 0)
    page.click("#start")
    try:
        wait_for(lambda: sentences(page) > 0, "the first sentence from llama.cpp", HANG_GUARD_S)
    finally:
        page.evaluate("document.querySelector('#stop:not([disabled])')?.click()")
    statuses = page.evaluate("window.__statuses")
    starting = "starting llama.cpp's server and loading SmolLM2-135M-Instruct (embedded GGUF) into it"
    assert any(s.startswith(starting) for s in statuses), statuses
    assert any("the model is reading its prompt" in s or "tokens so far" in s for s in statuses), statuses
