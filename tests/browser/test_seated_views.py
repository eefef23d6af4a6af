"""The seated view at a desk and on a phone, in light and dark mode: it fits, and it is photographed.

The screenshots land in ``artifacts/screenshots/seat-{width}-{light|dark}.png``; the ones in
``docs/screenshots/`` are copies of them.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import open_page, screenshot
from tests.browser.pages import Person, interrupt_first_speaker, seat_state, sentences, wait_for


@pytest.mark.parametrize(("width", "dark"), [(1400, False), (1400, True), (400, False), (400, True)])
def test_the_seated_view_fits_and_reads_at_a_desk_and_on_a_phone(browser, app_url, width, dark):
    page = open_page(browser, app_url, width=width, height=1000 if width > 500 else 860, dark=dark)
    try:
        person = Person(page)
        interrupt_first_speaker(page, person)
        person.say("Wait, that is wrong. Nitrogen is 78 percent of the air.")
        wait_for(lambda: seat_state(page) == "cut off by Alex", "the person to be cut off")
        wait_for(lambda: sentences(page) >= 4, "the debate to go on")
        page.click("#pause")
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width
        for control in ("#interrupt", "#raise-hand", "#lower-hand"):
            box = page.locator(control).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, control
        screenshot(page, f"seat-{width}-{'dark' if dark else 'light'}")
        page.click("#stop")
    except Exception:
        screenshot(page, f"failed-seat-{width}-{'dark' if dark else 'light'}")  # what the page showed
        raise
    finally:
        page.context.close()
