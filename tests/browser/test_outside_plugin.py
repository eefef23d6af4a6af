"""The example outside plugin in a real browser: the web app offers ``round-robin`` with a person's seat.

The app runs with ``examples/round_robin`` loaded the development way (``DEBATE_PLUGINS``), nothing else
changed. A person takes Chris's seat, states a case and answers through the forms the protocol
declares; the tally (the plugin's own event, with no web renderer) shows in the generic rendering, live
and again in the replay.
"""

from __future__ import annotations

import os
from pathlib import Path

from debate_core.plugins import ENV_VAR
from tests.browser.conftest import LOG, open_page, running_app, screenshot
from tests.browser.pages import STEP_GUARD_MS, Person, choose, open_more_settings, set_number, wait_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "round_robin"
WORDS = "Iron feels heavier, but a kilogram is a kilogram."


def test_a_person_takes_a_seat_in_the_outside_plugins_protocol(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(EXAMPLE), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv(ENV_VAR, "round_robin.plugin")
    with running_app(tmp_path / "plugin.sqlite3", LOG.with_name("browser-plugin-app.log")) as url:
        page = open_page(browser, url)
        try:
            person = Person(page)
            choose(page, "protocol-choice", "round-robin")
            wait_for(lambda: page.locator("#variant-choice label:has-text('short')").count() == 1, "its variants")
            page.locator("#variant-choice label:has-text('short')").click()
            choose(page, "human-seat", "Chris")
            open_more_settings(page)
            set_number(page, "pace", 0.1)
            page.click("#start")
            person.say(WORDS)
            page.wait_for_selector("#seat-choice-0 label:has-text('B')", timeout=STEP_GUARD_MS)
            page.locator("#seat-choice-0 label:has-text('B')").click()
            person.click("#seat-submit", "answer")
            wait_for(lambda: page.locator("#result .final").count() == 1, "the end of the debate")
            assert "Final answer: B" in page.locator("#result").inner_text()
            said = page.locator("#transcript").inner_text()
            assert WORDS in said and "Alex" in said and "Jenny" in said
            tally = page.locator("#transcript .line.generic[data-event='round_robin_tally']")
            assert tally.count() == 1 and "counts" in tally.inner_text()
            screenshot(page, "outside-plugin-seat")
            assert dict(person.actions) == {"own words": 1, "answer": 1}
            debate = page.locator("#status .status[data-debate]").get_attribute("data-debate")
            page.goto(f"{url}?debate={debate}")
            replayed = page.locator("#replay-transcript .line.generic[data-event='round_robin_tally']")
            wait_for(lambda: replayed.count() == 1, "the tally in the replay")
        finally:
            page.context.close()
