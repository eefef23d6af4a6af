"""Seats belong to whoever took them: a second browser on the live address watches and cannot act.

The person who starts a debate (seated as Jenny in the scripted demo) holds its secret token in their
browser's storage; a second browser context opening the same ``?live=`` address sees the debate, no
control, and a status that says it watches. A forged request, sent to the control endpoints by a raw
HTTP client whose session watches the debate (as any watcher's does), with the debate's id and no or a
wrong token, gets a refusal and changes nothing. A reload in the first browser keeps its controls.
"""

from __future__ import annotations

import json
import uuid
from urllib.parse import parse_qs, urlparse

import httpx

from debate_core.events import Interrupted, PlansMade
from storage import Store
from tests.browser.conftest import open_page
from tests.browser.pages import (
    STEP_GUARD_MS,
    STEP_GUARD_S,
    Person,
    address,
    seat_and_start,
    sentences,
    status,
    wait_for,
)
from ui.page_access import WATCHING

CONTROLS = ("#live-seat", "#pause", "#resume", "#step", "#stop", "#interrupt", "#raise-hand", "#seat")
# the words form's slots as the page sends them: three choices, two integers, three texts, three yes/no
WORDS = (None, None, None, 0, 0, "B", "", "", False, False, False)
PACE_S = 1.5  # seconds per sentence: the debate outlasts the test on a busy machine


class ForgedClient:
    """A raw HTTP client with a Gradio session of its own: it opens ``?live=ID`` (so its session holds the
    debate, as any watcher's does) and calls the control endpoints with tokens of its choosing."""

    def __init__(self, url: str, debate_id: str) -> None:
        self.url, self.debate_id = url, debate_id
        self.session_hash = uuid.uuid4().hex[:11]
        self.http = httpx.Client(timeout=30)
        config = self.http.get(f"{url}config").json()
        self.fns = {d["api_name"]: d["id"] for d in config["dependencies"] if d.get("api_name")}
        self.call("reattach", [{}])  # the page load: ?live=ID, holding no token

    def call(self, api_name: str, data: list[object]) -> list[object]:
        """Join the queue for ``api_name`` with ``data`` and read the outcome from the session's event stream."""
        body = {"data": data, "fn_index": self.fns[api_name], "session_hash": self.session_hash, "event_data": None}
        joined = self.http.post(f"{self.url}gradio_api/queue/join?live={self.debate_id}", json=body)
        joined.raise_for_status()
        event_id = joined.json()["event_id"]
        events = {"session_hash": self.session_hash}
        with self.http.stream("GET", f"{self.url}gradio_api/queue/data", params=events) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("event_id") == event_id and message.get("msg") == "process_completed":
                    assert message.get("success"), message
                    return list(message["output"]["data"])
        raise AssertionError(f"no outcome for {api_name}")

    def control(self, api_name: str, tokens: object, *values: object) -> str:
        """A control with ``tokens`` as the browser's storage would send them; what the page would be told."""
        return " ".join(str(part) for part in self.call(api_name, [None, tokens, *values]) if part)


def shown(page, selector: str) -> bool:
    return page.locator(selector).first.is_visible() if page.locator(selector).count() else False


def test_a_second_browser_on_the_live_address_watches_and_cannot_act_and_a_reload_keeps_the_controls(
    browser, app_url, app_db
):
    owner = open_page(browser, app_url)
    watcher = None
    try:
        person = Person(owner)
        seat_and_start(owner, pace=PACE_S)
        person.answer("B")
        wait_for(lambda: sentences(owner) >= 1, "the first sentence")
        live_address = address(owner)
        debate_id = parse_qs(urlparse(live_address).query)["live"][0]

        # The second browser (its own context: its own storage) sees the debate and watches.
        watcher = open_page(browser, live_address)
        wait_for(lambda: WATCHING in status(watcher), "the watching status")
        assert "a person is Jenny" in status(watcher) and debate_id[:8] in status(watcher)
        seen = sentences(watcher)
        wait_for(lambda: sentences(watcher) > seen, "the debate to go on in the watcher's page")
        wait_for(lambda: not any(shown(watcher, s) for s in CONTROLS), "the watcher's page without controls")
        for key in ("i", "h"):  # the keyboard shortcuts find no control to press
            watcher.locator("body").focus()
            watcher.keyboard.press(key)

        # Forged requests: a session that watches, the debate's id, no token or a wrong one.
        forger = ForgedClient(app_url, debate_id)
        for tokens in ({}, {debate_id: "forged-" + "x" * 40}, None):
            for name, values in (("interrupt", (9,)), ("raise_hand", (9,)), ("pause", ()), ("stop", ())):
                said = forger.control(name, tokens, *values)
                assert "You are watching" in said, (name, said)
        assert "Not sent: You are watching" in forger.control("submit_words", {}, *WORDS)

        # Nothing changed: the owner's seat listens, the debate runs on, unpaused.
        assert "you are Jenny" in status(owner) and WATCHING not in status(owner)
        assert owner.locator("#seat-state .seat-state").get_attribute("data-state") == "listening"
        count = sentences(owner)
        wait_for(lambda: sentences(owner) > count, "the debate to go on after the forged requests")
        assert "paused" not in status(owner) and "stopp" not in status(owner)

        # A reload in the owner's browser keeps the controls, and they act (the watcher sees it).
        owner.reload()
        wait_for(lambda: "you are Jenny" in status(owner), "the owner's page re-attached")
        owner.wait_for_selector("#pause:not([disabled])", timeout=STEP_GUARD_MS)
        assert shown(owner, "#live-seat") and shown(owner, "#interrupt") and WATCHING not in status(owner)
        owner.click("#pause")
        wait_for(lambda: "paused" in status(owner) and "paused" in status(watcher), "the pause on both pages")
        assert "You are watching" in forger.control("resume", {debate_id: "guess"})
        held = sentences(watcher)
        owner.wait_for_timeout(3 * PACE_S * 1000)
        assert sentences(watcher) == held and "paused" in status(owner)  # the forged resume changed nothing
        owner.click("#stop")
        wait_for(lambda: "ended (stopped)" in status(watcher), "the owner's stop, seen by the watcher")
    finally:
        owner.evaluate("document.querySelector('#stop:not([disabled])')?.click()")
        owner.context.close()
        if watcher is not None:
            watcher.context.close()

    store = Store(app_db)
    try:
        wait_for(lambda: store.debate(debate_id).status != "running", "the stored end", STEP_GUARD_S)
        events = store.events(debate_id)
    finally:
        store.close()
    # The seat never asked for the floor: no plan of Jenny's wanted it, and she cut nobody off.
    plans = [r.plan for e in events if isinstance(e, PlansMade) for r in e.plans if r.agent == "Jenny"]
    assert plans and not any(plan.wants_floor for plan in plans)
    assert not [e for e in events if isinstance(e, Interrupted) and e.interrupter == "Jenny"]
