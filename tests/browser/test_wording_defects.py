"""Words, validation, committed studies, the budget and the scripted demo, as a walk-through in a real browser found
them (issue #30, items 12-16, 18), each shown fixed. The pure parts: ``tests/test_ui_wording_defects.py`` and
``tests/test_ui_studies.py``.
"""

from __future__ import annotations

from tests.browser.conftest import screenshot
from tests.browser.pages import (
    STEP_GUARD_MS,
    Person,
    choose,
    notice,
    open_more_settings,
    seat_and_start,
    sentences,
    set_number,
    status,
    wait_for,
)
from tests.conftest import HANG_GUARD_S

# Every text a message box ever shows, however briefly (Gradio's "processing | 0.1s" lasts a moment).
MESSAGES_LOG_JS = """
window.__messages = [];
new MutationObserver(() => {
  for (const id of ['seat-message', 'notice', 'status']) {
    const node = document.getElementById(id);
    const text = node ? node.innerText.trim() : '';
    if (text && !window.__messages.includes(text)) window.__messages.push(text);
  }
}).observe(document.body, {subtree: true, childList: true, characterData: true});
"""


def messages(page) -> list[str]:
    return list(page.evaluate("window.__messages || []"))


def labels(page) -> list[str]:
    found = page.evaluate("[...document.querySelectorAll('label, [data-testid=block-info]')].map(n => n.innerText)")
    return list(found)


def start_refused(page, what: str) -> str:
    page.click("#start")
    wait_for(lambda: "Cannot start" in notice(page), what)
    return notice(page)


def test_a_seated_person_reads_what_was_sent_in_words_and_never_processing(page):
    page.evaluate(MESSAGES_LOG_JS)
    person = Person(page)
    seat_and_start(page, pace=0.3)
    person.answer("B")
    message = page.locator("#seat-message")
    wait_for(lambda: message.inner_text().startswith("Sent"), "the note that the answer went")
    assert message.inner_text() == "Sent: an answer and a short reason, before the debate."
    wait_for(lambda: sentences(page) >= 2, "the debate going on")
    seen = messages(page)
    assert not [text for text in seen if "processing" in text.lower()], seen
    assert not [label for label in labels(page) if "(optional) (optional)" in label]


def test_the_set_up_names_the_field_that_is_wrong(page):
    agents = page.locator("#setup-agents textarea, #setup-agents input").first
    agents.fill("Alex; Chris; Jenny")  # the personas still name Alex, Chris and Jenny: they are not to blame
    said = start_refused(page, "the refusal of the agents")
    assert "Cannot start: Agents: 'Alex; Chris; Jenny' is not a name; the field takes 1 to 6 names" in said
    assert "persona" not in said.lower()
    agents.fill("Alex, Chris, Jenny")
    page.locator("#setup-question textarea").first.fill("")
    page.click("#start")
    wait_for(lambda: "the question is empty" in notice(page), "the refusal of the empty question")
    assert "Cannot start: the question is empty" in notice(page) and "question: is" not in notice(page)


def test_the_model_box_is_bounded_on_the_server_and_a_missing_model_is_one_sentence(page):
    choose(page, "backend-choice", "a model id or path")
    box = page.locator("#model-id textarea, #model-id input").first
    assert box.get_attribute("maxlength") == "300"
    # a page can send what its own box would not take: the server refuses it where it enters
    box.evaluate("b => { b.removeAttribute('maxlength'); }")
    box.fill("org/" + "x" * 10_000)
    said = start_refused(page, "the refusal of a 10,004-character model id")
    assert "Cannot start: Model id: 10,004 characters; the box takes a model id" in said
    box.fill("no-such-org/no-such-model")
    page.click("#start")
    wait_for(lambda: status(page).startswith("failed"), "the failed load", HANG_GUARD_S)
    line = page.locator("#status").inner_text()
    assert "could not load model 'no-such-org/no-such-model': it is not in this machine's Hugging Face cache" in line
    assert "https://" not in line and "\n" not in line.strip() and "Traceback" not in line


def test_the_budget_says_what_it_means_and_why_the_count_passes_it(page):
    assert "that sentence is said whole" in page.locator("#budget-setting").inner_text()
    open_more_settings(page)
    set_number(page, "pace", 0)
    set_number(page, "budget-setting", 30)
    page.click("#start")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
    bar, result = page.locator("#budget").inner_text(), page.locator("#result").inner_text()
    spent = int(bar.split("public tokens")[1].split("/")[0])
    assert spent > 30 and "budget reached (the sentence that reached it is said whole)" in bar
    assert f"{spent}/30 (the sentence that reached it is said whole) public tokens" in result
    title = page.locator("#budget .budget").get_attribute("title") or ""
    assert "the budget, and the sentence that reached it is said whole" in title


def test_the_demo_speakers_never_repeat_each_others_lines(page):
    open_more_settings(page)
    set_number(page, "pace", 0)
    set_number(page, "budget-setting", 600)
    page.click("#start")
    wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the demo")
    lines = page.evaluate(
        """[...document.querySelectorAll('#transcript .line.speech')].map(line => [
             line.querySelector('.agent').innerText,
             [...line.querySelectorAll('.sentence')].map(s => s.innerText)])"""
    )
    said: dict[str, set[str]] = {}
    for speaker, sentences_ in lines:
        said.setdefault(speaker, set()).update(sentences_)
    assert len(said) == 3 and sum(map(len, said.values())) > 25
    for speaker, mine in said.items():
        others = set().union(*(theirs for other, theirs in said.items() if other != speaker))
        assert not mine & others, f"{speaker} says another speaker's line: {sorted(mine & others)}"


def test_a_committed_study_opens_read_only_in_the_analysis_tab_and_its_debates_replay(page):
    page.get_by_role("tab", name="Analysis").click()
    choose(page, "analysis-source", "committed study parliament-smollm2")
    wait_for(lambda: "Committed study" in page.locator("#analysis-study").inner_text(), "the study's note")
    summary = page.locator("#analysis-summary")
    wait_for(lambda: "Comparison study parliament-smollm2" in summary.inner_text(), "the committed report")
    assert page.locator("#analysis-choice input").input_value().startswith("parliament-smollm2")
    page.click("#analysis-show")
    table = page.locator("#analysis-debates")
    wait_for(lambda: "parliament/" in table.inner_text(), "the study's debates")
    screenshot(page, "analysis-committed-study")
    page.click("#analysis-replay")
    wait_for(lambda: page.locator("#replay-source input").input_value().startswith("committed study"), "the source")
    wait_for(lambda: "parliament/" in page.locator("#replay-list").inner_text(), "its debates in the Replay tab")
    assert page.locator("#replay-choice input").input_value()  # one of them chosen, to open
    page.click("#replay-open")
    page.wait_for_selector("#replay-transcript .line.speech .sentence", timeout=STEP_GUARD_MS)
    assert page.locator("#replay-result").inner_text().startswith("Final answer")
    screenshot(page, "replay-committed-study")
