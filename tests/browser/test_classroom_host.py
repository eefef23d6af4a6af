"""The host's moves in a class, in browsers of their own: closing the poll early, giving a seat to someone in the
audience by name, and granting a raised hand the seat it asks for.

The host starts the scripted demo and holds it; two students join the audience from the join link in their own
browser contexts. Lee votes; Kim raises her hand asking for Chris's seat, and the host's list of hands says so.
Forged requests to the host's endpoints (no token, a made-up one, a student's) are refused and change nothing.
The host closes the poll: the tally is frozen and Lee's vote button says the poll has closed. The host picks Lee
from the audience by name and gives him Alex's seat, and grants Kim's hand, which gets Chris's seat although
the host's seat picker shows another: each page finds its own seat's controls with the key its browser has kept
since joining, and nothing is written to the host's browser.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from tests.browser.conftest import open_page, screenshot
from tests.browser.pages import STEP_GUARD_MS, address, choose, wait_for
from tests.browser.pages import status as status_of
from tests.browser.test_classroom import roster_row, start_paused, tokens_kept
from tests.browser.test_seat_access import ForgedClient, shown


def stored(page) -> str:
    """What this browser's storage holds of the debates' keys (as Gradio keeps it: sealed, so compared whole)."""
    return str(page.evaluate("() => localStorage.getItem('debate-control-tokens') || ''"))


def join_audience(page, name: str) -> None:
    page.wait_for_selector("#classroom-join", state="visible", timeout=STEP_GUARD_MS)
    page.locator("#join-name textarea, #join-name input").first.fill(name)
    page.click("#join-audience")
    page.wait_for_selector("#classroom-audience", state="visible", timeout=STEP_GUARD_MS)
    wait_for(lambda: tokens_kept(page), f"{name}'s browser keeping their key")


def hands_offered(host) -> str:
    """The host's list of raised hands, as its dropdown offers them."""
    host.locator("#hand-pick input").click()
    offered = " | ".join(host.get_by_role("option").all_inner_texts())
    host.keyboard.press("Escape")
    return offered


def test_the_host_closes_the_poll_gives_a_seat_by_name_and_grants_a_hand_its_seat(browser, app_url):
    host = open_page(browser, app_url)
    pages = [host]
    try:
        code = start_paused(host)
        debate_id = parse_qs(urlparse(address(host)).query)["live"][0]

        lee = open_page(browser, f"{app_url}?join={code}")
        kim = open_page(browser, f"{app_url}?join={code}")
        pages += [lee, kim]
        join_audience(lee, "Lee")
        join_audience(kim, "Kim")
        lee.locator("#vote-pick label:has-text('B')").first.click()
        lee.click("#vote")
        wait_for(lambda: "1 vote)" in host.locator("#poll-tally").inner_text(), "Lee's vote in the tally")

        # Kim's hand asks for Chris's seat; the host sees which seat it asks for.
        choose(kim, "hand-seat-pick", "Chris")
        kim.click("#audience-raise-hand")
        wait_for(lambda: "asks for Chris" in host.locator("#roster-members").inner_text(), "Kim's hand in the roster")
        assert "Kim (asks for Chris)" in hands_offered(host)

        # Nobody but the host closes the poll or gives a seat (the endpoints called directly): refused, no change.
        forger = ForgedClient(app_url, debate_id)
        for tokens in ({}, {debate_id: "forged-" + "x" * 40}):
            for api, values in (("classroom_close_poll", ()), ("classroom_give_seat", ("Alex", "anyone"))):
                said = forger.control(api, tokens, *values)
                assert "bad" in said and ("cannot" in said or "Only the host" in said), (api, said)
        assert host.locator("#poll-tally").get_attribute("data-state") == "open"
        assert "Lee" not in roster_row(host, "Alex")

        # The host closes the poll early: its tally is frozen, and Lee's vote button says it has closed.
        host.wait_for_selector("#close-poll:not([disabled])", timeout=STEP_GUARD_MS)
        host.click("#close-poll")
        wait_for(lambda: host.locator("#poll-tally").get_attribute("data-state") == "closed", "the poll closed")
        assert "1 vote)" in host.locator("#poll-tally").inner_text()
        wait_for(lambda: "The poll has closed" in lee.locator("#vote").inner_text(), "Lee's vote button")
        assert lee.locator("#vote").is_disabled()
        screenshot(lee, "classroom-poll-closed")

        kept = {"host": stored(host), "lee": stored(lee), "kim": stored(kim)}
        # The host picks Lee from the audience by name and gives him Alex's seat: Lee's own page gets its controls.
        choose(host, "host-seat-pick", "Alex")
        choose(host, "member-pick", "Lee")
        host.click("#give-seat")
        wait_for(lambda: "Lee" in roster_row(host, "Alex"), "Lee in Alex's seat in the roster")
        wait_for(lambda: "you are Alex" in status_of(lee), "Lee's page holding Alex's seat")
        lee.wait_for_selector("#interrupt", state="visible", timeout=STEP_GUARD_MS)
        assert not shown(kim, "#interrupt")

        # The host grants Kim's hand with Jenny picked: the hand asked for Chris, so Chris's seat is hers.
        choose(host, "host-seat-pick", "Jenny")
        choose(host, "hand-pick", "Kim")
        host.click("#assign-seat")
        wait_for(lambda: "Kim" in roster_row(host, "Chris"), "Kim in Chris's seat in the roster")
        wait_for(lambda: "you are Chris" in status_of(kim), "Kim's page holding Chris's seat")
        kim.wait_for_selector("#interrupt", state="visible", timeout=STEP_GUARD_MS)
        assert "Kim" not in roster_row(host, "Jenny")
        screenshot(host, "classroom-host-gave-seats")

        # No key travelled: each student's own key, kept in their browser since they joined, holds their seat, and
        # nothing was written to the host's browser.
        assert {"host": stored(host), "lee": stored(lee), "kim": stored(kim)} == kept
    finally:
        host.evaluate("document.querySelector('#stop:not([disabled])')?.click()")
        for page in pages:
            page.context.close()
