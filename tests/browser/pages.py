"""What the browser tests do to the page, named as a person would say it."""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field

# Every wait returns as soon as its condition holds; its limit only guards against a hang
# (a busy machine makes the page slower, not wrong). Model work is bounded by tokens.
STEP_GUARD_S = 300
STEP_GUARD_MS = STEP_GUARD_S * 1000


def wait_for(predicate, what: str, guard: float = STEP_GUARD_S) -> None:
    deadline = time.monotonic() + guard
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def set_number(page, elem_id: str, value: float) -> None:
    box = page.locator(f"#{elem_id} input[type=number]")
    box.fill(str(value))
    box.press("Enter")


def choose(page, elem_id: str, option: str) -> None:
    """Pick the dropdown option whose label starts with ``option``."""
    page.locator(f"#{elem_id} input").click()
    page.get_by_role("option", name=re.compile("^" + re.escape(option))).first.click()


def open_more_settings(page) -> None:
    page.get_by_text("More settings").click()
    page.wait_for_selector("#pace input[type=number]")


def sentences(page, where: str = "#transcript") -> int:
    return page.locator(f"{where} .sentence").count()


def transcript(page) -> str:
    return page.locator("#transcript").inner_text()


def seat_state(page) -> str:
    found = page.locator("#seat-state .seat-state")
    return found.inner_text() if found.count() else ""


def record_seat_states(page) -> None:
    """Keep every state the seat badge shows, however briefly, in ``window.seatStates``.

    A state can last less than one poll on a busy machine (a raised hand is answered at the
    very next boundary), so tests that need to see it read the record instead.
    """
    page.evaluate(
        """() => {
            window.seatStates = [];
            const note = () => {
                const badge = document.querySelector('#seat-state .seat-state');
                const state = badge ? badge.dataset.state : '';
                if (state && window.seatStates[window.seatStates.length - 1] !== state) window.seatStates.push(state);
            };
            new MutationObserver(note).observe(document.body, {childList: true, subtree: true, characterData: true});
            note();
        }"""
    )


def seat_states_seen(page) -> list[str]:
    return page.evaluate("() => window.seatStates || []")


def status(page) -> str:
    return page.locator("#status").inner_text()


def stop_if_running(page) -> None:
    """Stop the debate at the end of a test that only needed it running: a scripted demo may reach its end
    first on a loaded machine (Stop is then disabled), which is fine; closing the page stops it otherwise."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    stop = page.locator("#stop")
    try:
        if stop.is_enabled():
            stop.click(timeout=5_000)
    except PlaywrightTimeout:
        assert status(page).startswith("ended"), f"Stop stayed disabled while the debate ran: {status(page)}"


def address(page) -> str:
    """The page's address as the page has it now (``page.url`` is only refreshed while Playwright is called)."""
    return str(page.evaluate("location.href"))


def notice(page) -> str:
    """What Start and Demo said (a refusal, a question)."""
    return page.locator("#notice").inner_text()


@dataclass
class Person:
    """A person at the page who counts what they do: every click, key press and message is one action."""

    page: object
    actions: Counter[str] = field(default_factory=Counter)

    def act(self, kind: str) -> None:
        self.actions[kind] += 1

    def key(self, key: str, kind: str) -> None:
        self.page.locator("body").focus()
        self.page.keyboard.press(key)
        self.act(kind)

    def click(self, selector: str, kind: str) -> None:
        self.page.click(selector)
        self.act(kind)

    def say(self, text: str) -> None:
        """Type into the words form (it opens focused) and send: one action, the person's own words."""
        self.page.wait_for_selector("#seat-text-0 textarea", timeout=STEP_GUARD_MS)
        self.page.locator("#seat-text-0 textarea").fill(text)
        self.page.click("#seat-submit")
        self.act("own words")

    def answer(self, label: str) -> None:
        """The initial answer: choose the option and send it (the person's own words, one action)."""
        self.page.wait_for_selector("#seat-prompt:has-text('Before the debate')", timeout=STEP_GUARD_MS)
        self.page.locator(f"#seat-choice-0 label:has-text('{label}')").click()
        self.page.click("#seat-submit")
        self.act("own words")

    @property
    def total(self) -> int:
        return sum(self.actions.values())


def seat_and_start(page, name: str = "Jenny", *, pace: float | None = None, timer_s: int | None = None) -> None:
    """Take a seat in the scripted demo (the default model) and press Start."""
    choose(page, "human-seat", name)
    if pace is not None or timer_s is not None:
        open_more_settings(page)
    if pace is not None:
        set_number(page, "pace", pace)
    if timer_s is not None:
        page.locator("#human-pacing label:has-text('advance on a timer')").click()
        set_number(page, "human-seconds", timer_s)
    page.click("#start")


INTERRUPT_PACE_S = 1.5
"""Seconds per sentence while a test interrupts the first speaker: time enough to press ``i`` mid-utterance
on a busy machine (Alex's first utterance has three sentences; at 0.5 s a fully loaded two-core machine
let the whole utterance pass before the key press reached the debate)."""


def interrupt_first_speaker(page, person: Person) -> None:
    """Seat Jenny, answer B, press ``i`` during Alex's first utterance, and wait until she holds the floor."""
    seat_and_start(page, pace=INTERRUPT_PACE_S)
    person.answer("B")
    wait_for(lambda: sentences(page) >= 1, "the first sentence")
    person.key("i", "interrupt")
    page.wait_for_selector("#seat-prompt:has-text('You have the floor')", timeout=STEP_GUARD_MS)
