"""The web app in a real browser: live view, what a person types stays text, replay, analysis, the embedded model."""

from __future__ import annotations

import itertools
import time

from storage import Store
from tests.browser.conftest import screenshot
from tests.browser.pages import (
    STEP_GUARD_S,
    Person,
    choose,
    interrupt_first_speaker,
    notice,
    open_more_settings,
    sentences,
    set_number,
    status,
    wait_for,
)
from tests.conftest import HANG_GUARD_S


def test_a_scripted_debate_arrives_one_sentence_at_a_time_and_ends(page):
    assert "scripted demo" in page.locator("#backend-choice input").input_value()  # the default for newcomers
    open_more_settings(page)
    set_number(page, "pace", 1.0)
    set_number(page, "budget-setting", 150)
    page.click("#start")
    seen = []
    deadline = time.monotonic() + STEP_GUARD_S
    while time.monotonic() < deadline and not page.locator("#result .final").count():
        seen.append(sentences(page))
        time.sleep(0.25)
    assert page.locator("#result .final").count(), "the debate never ended"
    counts = sorted(set(seen))
    assert len(counts) >= 5, f"sentences did not arrive progressively: {counts}"
    steps = [b - a for a, b in itertools.pairwise(seen) if b != a]
    # A page that falls behind gets the latest state merged (#30's defect 1), so on a loaded machine an update
    # may carry a few sentences (the first after Start, or one after the machine stalled for a few seconds:
    # [1, 3, 2, 1, ...] with the other part of `make test` starting a model); most come one at a time.
    assert max(steps[1:]) <= 3, f"several sentences appeared at once: {steps}"
    assert steps.count(1) >= 0.75 * len(steps), f"sentences did not come one at a time: {steps}"
    assert "Final answer" in page.locator("#result").inner_text()
    assert page.locator("#transcript .cut").count() >= 1  # an interruption is visibly cut
    assert page.locator("#transcript .silence").count() >= 1
    page.check("#show-discarded input")
    wait_for(lambda: page.locator("#transcript .discarded").count() > 0, "discarded sentences")
    screenshot(page, "live-scripted")


def test_a_person_s_words_are_shown_as_text_and_nothing_they_type_runs(page):
    person = Person(page)
    interrupt_first_speaker(page, person)
    page.click("#seat-submit")  # an empty message is refused politely
    wait_for(lambda: "empty" in page.locator("#seat-message").inner_text(), "the empty-message refusal")
    hostile = (
        "Wait, that is wrong. <script>window.__xss = 1</script> Nitrogen is 78 percent. "
        '<img src=x onerror="window.__xss = 2"> So it is B.'
    )
    person.say(hostile)
    wait_for(lambda: "cut off by Alex" in page.locator("#transcript").inner_text(), "the person to be cut off")
    page.check("#show-discarded input")
    wait_for(lambda: "window.__xss = 2" in page.locator("#transcript").inner_text(), "the discarded sentences")
    text = page.locator("#transcript").inner_text()
    assert "<script>window.__xss = 1</script>" in text  # shown as text
    assert 'onerror="window.__xss = 2"' in text
    assert page.evaluate("window.__xss") is None  # and nothing ran
    assert page.locator("#transcript img").count() == 0
    assert "cut off by Jenny" in text
    screenshot(page, "live-human-seat")
    page.click("#stop")


def test_replay_opens_a_stored_debate_and_plays_it_back(page, app_db):
    store = Store(app_db)
    demo = store.list_debates(text="largest share")[-1]  # the stored demo debate (not whichever ran last)
    store.close()
    page.get_by_role("tab", name="Replay").click()
    choose(page, "replay-status", "finished")
    page.click("#replay-refresh")

    def only_finished() -> bool:  # the refreshed list, not the one the tab opened with
        listed = page.locator("#replay-list").inner_text()
        return listed.count("finished") >= 1 and "aborted" not in listed

    wait_for(only_finished, "the debate list filtered to finished debates")  # the status filter applies
    choose(page, "replay-choice", demo.id[:8])
    page.click("#replay-open")
    wait_for(lambda: page.locator("#replay-transcript .sentence").count() > 5, "the replayed transcript")
    full = page.locator("#replay-transcript .sentence").count()
    assert "Final answer" in page.locator("#replay-result").inner_text()
    set_number(page, "replay-turn", 4)
    wait_for(lambda: 0 < page.locator("#replay-transcript .sentence").count() < full, "an earlier turn")
    page.check("#replay-play input")  # Play advances the turn on its own
    turn = page.locator("#replay-turn input[type=number]")
    wait_for(lambda: int(float(turn.input_value())) > 5, "the replay playing on")
    page.uncheck("#replay-play input")
    screenshot(page, "replay")
    page.click("#replay-export-json")
    wait_for(lambda: ".json" in page.locator("#replay-files").inner_text(), "the JSON download")


def test_the_analysis_tab_shows_a_studys_tables_and_figures(page):
    page.get_by_role("tab", name="Analysis").click()
    wait_for(lambda: "browser-study" in page.locator("#analysis-choice input").input_value(), "the experiment")
    page.click("#analysis-show")
    wait_for(lambda: "Tables V and VI" in page.locator("#analysis-summary").inner_text(), "the tables")
    summary = page.locator("#analysis-summary").inner_text()
    assert "Fixed order" in summary and "95% CI" in summary and "scripted-study" in summary
    wait_for(lambda: page.locator(".js-plotly-plot").count() >= 11, "the figures")
    assert page.get_by_text("Figure 9.", exact=False).count() >= 1
    table = page.locator("#analysis-debates")
    wait_for(lambda: table.inner_text().count("Proposed (interruptible)") == 2 * 2, "the debate list")
    assert table.inner_text().count("Fixed order") == 2 * 2  # two questions x two settings
    screenshot(page, "analysis")
    page.click("#analysis-download")
    wait_for(lambda: ".zip" in page.locator("#analysis-files").inner_text(), "the report download")


def test_the_analysis_tab_shows_a_comparison_of_protocols(page):
    page.get_by_role("tab", name="Analysis").click()
    wait_for(lambda: "browser-study" in page.locator("#analysis-choice input").input_value(), "the list")
    choose(page, "analysis-choice", "browser-compare · scripted-demo")
    wait_for(lambda: "Comparison study" in page.locator("#analysis-summary").inner_text(), "the comparison")
    summary = page.locator("#analysis-summary").inner_text()
    assert all(system in summary for system in ("parliament/cot", "parliament/british", "parliament/socratic"))
    assert "95% CI" in summary and "Against the CoT control" in summary
    assert "Paired comparison on the same questions" in summary and "McNemar exact p" in summary
    table = page.locator("#analysis-debates")
    wait_for(lambda: table.inner_text().count("parliament/") == 2 * 4, "its eight debates")
    page.click("#analysis-download")
    wait_for(lambda: ".zip" in page.locator("#analysis-files").inner_text(), "the comparison's report")


def run_a_short_debate(page, what: str, budget: int = 30) -> None:
    """Budget 30 (or ``budget``), no pace, 24 tokens per utterance; Start, and wait for the end (Stop if it
    never comes, so that no model keeps running in the app for the tests that follow)."""
    set_number(page, "budget-setting", budget)
    set_number(page, "pace", 0)
    set_number(page, "utterance-tokens", 24)
    page.click("#start")
    try:
        wait_for(lambda: page.locator("#result .final").count() > 0, f"{what} to end", HANG_GUARD_S)
    except AssertionError:
        page.click("#stop")
        raise


def test_a_short_debate_on_the_embedded_model(page):
    choose(page, "backend-choice", "embedded SmolLM2-135M (CPU)")  # in process, not llama.cpp
    assert "s per turn" in page.locator("#backend-choice input").input_value()  # the cost, said next to the choice
    open_more_settings(page)
    # choosing the embedded model sets short debates: a small budget and small caps
    assert float(page.locator("#budget-setting input[type=number]").input_value()) <= 150
    assert float(page.locator("#utterance-tokens input[type=number]").input_value()) <= 48
    run_a_short_debate(page, "the embedded model's debate", budget=20)  # the slider's least: two or three sentences
    assert "SmolLM2-135M" in page.locator("#question").inner_text()
    assert "Final answer" in page.locator("#result").inner_text()
    assert "invalid plan" not in page.locator("#plans").inner_text()
    screenshot(page, "live-embedded")


def test_a_short_debate_on_the_embedded_model_served_by_llamacpp(page):
    choose(page, "backend-choice", "embedded SmolLM2-135M on llama.cpp")
    assert "s per turn" in page.locator("#backend-choice input").input_value()
    open_more_settings(page)
    assert float(page.locator("#budget-setting input[type=number]").input_value()) <= 150  # short settings too
    run_a_short_debate(page, "the llama.cpp debate")
    assert "llama.cpp" in page.locator("#question").inner_text()  # the model as the debate recorded it
    assert "Final answer" in page.locator("#result").inner_text()
    assert "invalid plan" not in page.locator("#plans").inner_text()


def test_a_debate_on_an_openai_compatible_server_and_a_clear_refusal_when_none_answers(page):
    from debate_core.backends.openai import LlamaCppServer

    choose(page, "backend-choice", "an OpenAI-compatible server")
    address = page.locator("#model-id textarea, #model-id input").first
    address.fill("http://127.0.0.1:9/v1 nothing")
    page.click("#start")
    wait_for(lambda: "Cannot start" in notice(page), "the refusal")
    assert "no OpenAI-compatible server answers at http://127.0.0.1:9/v1" in notice(page)
    server = LlamaCppServer(None, parallel=4)  # a server somebody runs; the app only reaches it
    try:
        address.fill(f"{server.url} {server.alias}")
        open_more_settings(page)
        set_number(page, "pace", 0)
        set_number(page, "utterance-tokens", 24)
        page.click("#start")
        # The debate on the server is under way once its first sentence is on the page; the rest of a debate
        # on llama.cpp's server runs to its end in the app's own llama.cpp choice (the test above), so this one
        # stops here: the app reached a server it did not start, recorded it, and leaves it running.
        try:
            wait_for(lambda: sentences(page) > 0, "the server's first sentence", HANG_GUARD_S)
        finally:
            page.click("#stop")
        wait_for(lambda: status(page).startswith("ended (stopped)"), "the stop", HANG_GUARD_S)
        assert "(llamacpp)" in page.locator("#question").inner_text()  # the server, as the debate recorded it
        assert server.process.poll() is None  # the app does not stop a server it did not start
    finally:
        server.stop()
