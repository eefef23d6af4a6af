"""A class in one debate, in browsers of their own: a host, two students in two seats, and a watcher who votes.

The host starts the scripted demo and its page shows the join code, link and QR code; the host opens two
seats; two students open the join link in their own browser contexts, each takes a seat under a display name,
and each one's key acts on their own seat only. A third context on the live link watches, joins the audience
and votes; it has no seat's controls, and forged requests (the Gradio endpoints called directly, with no
token or a made-up one) are refused and change nothing. A reload of a student's page re-attaches to their
seat; the host frees a seat and a model takes it; the poll's tally and who held which seat are stored and
drawn in the replay. A server with a host password starts debates only for who types it; joining needs none.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from tests.browser.conftest import open_page, running_app, screenshot
from tests.browser.pages import (
    STEP_GUARD_MS,
    Person,
    address,
    choose,
    notice,
    open_more_settings,
    record_seat_states,
    seat_states_seen,
    set_number,
    wait_for,
)
from tests.browser.pages import status as status_of
from tests.browser.test_seat_access import ForgedClient, shown

PACE_S = 3.0  # seconds per sentence: the debate outlasts the class joining on a busy machine


def tokens_kept(page) -> bool:
    """Whether this browser's storage holds a token (Gradio writes it after the handler returns)."""
    return bool(page.evaluate("() => (localStorage.getItem('debate-control-tokens') || '').length > 4"))


def take_seat(page, name: str, seat: str) -> None:
    page.wait_for_selector("#classroom-join", state="visible", timeout=STEP_GUARD_MS)
    page.locator("#join-name textarea, #join-name input").first.fill(name)
    choose(page, "join-seat-pick", seat)
    page.click("#take-seat")
    wait_for(lambda: f"you are {seat}" in status_of(page), f"{name}'s page holding {seat}'s seat")
    wait_for(lambda: tokens_kept(page), f"{name}'s browser keeping their token")


def host_opens(host, seat: str) -> None:
    choose(host, "host-seat-pick", seat)
    host.click("#open-seat")
    wait_for(lambda: "open" in roster_row(host, seat), f"{seat}'s seat open in the roster")


def start_paused(host) -> str:
    """The host starts a debate at ``PACE_S`` and pauses it while the class joins; its join code."""
    open_more_settings(host)
    set_number(host, "pace", PACE_S)
    host.click("#start")
    host.wait_for_selector("#pause:not([disabled])", timeout=STEP_GUARD_MS)
    host.click("#pause")  # held while the class joins
    wait_for(lambda: "paused" in status_of(host), "the debate paused")
    host.wait_for_selector("#join-code", timeout=STEP_GUARD_MS)
    return host.locator("#join-code").inner_text().strip()


def roster_row(host, seat: str) -> str:
    row = host.locator(f"#roster-table tr[data-seat='{seat}']")
    return row.inner_text() if row.count() else ""


def test_a_host_two_students_and_a_voting_watcher_each_act_only_as_themselves(browser, app_url):
    host = open_page(browser, app_url)
    pages = [host]
    try:
        code = start_paused(host)
        link = str(host.locator("#join-link").get_attribute("href"))
        assert len(code) == 6 and link.endswith(f"?join={code}") and host.locator("#join-qr svg").count() == 1
        debate_id = parse_qs(urlparse(address(host)).query)["live"][0]
        screenshot(host, "classroom-host")
        host_opens(host, "Alex")
        host_opens(host, "Chris")

        # Two students join from their own browsers with the link's code and take two different seats.
        sam = open_page(browser, f"{app_url}?join={code}")
        kim = open_page(browser, f"{app_url}?join={code}")
        pages += [sam, kim]
        take_seat(sam, "Sam", "Alex")
        take_seat(kim, "Kim", "Chris")
        wait_for(lambda: "Sam" in roster_row(host, "Alex") and "Kim" in roster_row(host, "Chris"), "the roster")
        assert "connected" in roster_row(host, "Alex")
        # the host's roster may show her before her own page has drawn her seat's controls
        wait_for(lambda: shown(sam, "#interrupt"), "Sam's seat controls on her page")
        assert not shown(sam, "#pause") and not shown(sam, "#classroom-host")

        # A third browser on the live link watches; it joins the audience and votes.
        watcher = open_page(browser, address(host))
        pages.append(watcher)
        wait_for(lambda: "watching" in status_of(watcher), "the watcher's page")
        watcher.wait_for_selector("#classroom-join", state="visible", timeout=STEP_GUARD_MS)
        watcher.locator("#join-name textarea, #join-name input").first.fill("Lee")
        watcher.click("#join-audience")
        watcher.wait_for_selector("#classroom-audience", state="visible", timeout=STEP_GUARD_MS)
        watcher.locator("#vote-pick label:has-text('B')").first.click()
        watcher.click("#vote")
        wait_for(lambda: "1 vote)" in host.locator("#poll-tally").inner_text(), "the watcher's vote in the tally")
        assert not shown(watcher, "#live-seat") and not shown(watcher, "#interrupt")

        # Forged requests from a session that watches: no token, or a made-up one. Refused; nothing changes.
        forger = ForgedClient(app_url, debate_id)
        for tokens in ({}, {debate_id: "forged-" + "x" * 40}):
            assert "cannot" in forger.control("interrupt", tokens, 9)
            assert "cannot" in forger.control("classroom_free_seat", tokens, "Alex", "model")
            assert "cannot" in forger.control("classroom_open_seat", tokens, "Jenny", "model")
            assert "cannot" in forger.control("resume", tokens)
        assert "taken" in forger.control("classroom_take_seat", {}, "Mallory", "Alex")
        assert "Sam" in roster_row(host, "Alex") and "paused" in status_of(host)

        # Each student's key acts on their own seat only.
        for student in (sam, kim):
            record_seat_states(student)
        host.click("#resume")
        Person(sam).key("i", "interrupt")
        wait_for(lambda: "armed" in seat_states_seen(sam), "Sam's seat armed")
        Person(kim).key("h", "raise hand")
        wait_for(lambda: "hand raised" in seat_states_seen(kim), "Kim's hand up")
        # each press showed on its own seat only (Sam's cut may end Kim's turn: that is the debate, not her press)
        assert "armed" not in seat_states_seen(kim) and "hand raised" not in seat_states_seen(sam)
        sam.wait_for_selector("#seat-prompt:has-text('You have the floor')", timeout=STEP_GUARD_MS)
        Person(sam).say("Sam speaks for Alex now.")
        wait_for(lambda: "Sam speaks for Alex now." in host.locator("#transcript").inner_text(), "Sam's words")

        # A reload of Sam's page re-attaches to Alex's seat, with its controls.
        sam.reload()
        wait_for(lambda: "you are Alex" in status_of(sam), "Sam's page re-attached to Alex's seat")
        sam.wait_for_selector("#interrupt", state="visible", timeout=STEP_GUARD_MS)

        # The host frees Alex's seat: a model takes it, and Sam's page no longer holds it.
        choose(host, "host-seat-pick", "Alex")
        host.locator("#host-fallback label:has-text('a model takes its turns')").click()
        host.click("#free-seat")
        wait_for(lambda: "a model" in roster_row(host, "Alex") and "Sam" not in roster_row(host, "Alex"), "freed")
        wait_for(lambda: "you are Alex" not in status_of(sam), "Sam's page without the seat")
        wait_for(lambda: not shown(sam, "#interrupt"), "Sam's controls gone")
        screenshot(host, "classroom-host-after")

        host.locator("#stop").click(force=True)  # the roster redraws each second: the button never stands still
        wait_for(lambda: status_of(host).startswith("ended"), "the end")

        # The replay draws who held which seat and the poll's tally, from the store.
        replay = open_page(browser, f"{app_url}?debate={debate_id}", ready="#replay-classroom")
        pages.append(replay)
        wait_for(lambda: "Sam held Alex" in replay.locator("#replay-classroom").inner_text(), "the replayed class")
        kept = replay.locator("#replay-classroom").inner_text()
        assert "Kim held Chris" in kept and "1 vote)" in kept
    finally:
        host.evaluate("document.querySelector('#stop:not([disabled])')?.click()")
        for page in pages:
            page.context.close()


def test_with_a_host_password_only_who_types_it_starts_a_debate_and_joining_needs_none(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_HOST_PASSWORD", "a long phrase")
    with running_app(tmp_path / "gated.sqlite3", tmp_path / "gated-app.log") as url:
        host = open_page(browser, url)
        student = None
        try:
            host.click("#start")
            wait_for(lambda: "host password" in notice(host), "the refusal")
            assert host.locator("#status .status[data-debate]").count() == 0  # nothing started
            host.locator("#host-password input").fill("a long phrase")
            open_more_settings(host)
            set_number(host, "pace", 5)  # slow: the debate runs on while a student joins (an ended one shows no code)
            host.click("#start")
            host.wait_for_selector("#join-code", timeout=STEP_GUARD_MS)
            code = host.locator("#join-code").inner_text().strip()
            student = open_page(browser, f"{url}?join={code}")
            student.wait_for_selector("#classroom-join", state="visible", timeout=STEP_GUARD_MS)
            student.locator("#join-name textarea, #join-name input").first.fill("Ana")
            student.click("#join-audience")  # no password asked
            student.wait_for_selector("#classroom-audience", state="visible", timeout=STEP_GUARD_MS)
            student.click("#demo")  # but starting a debate of her own is refused
            wait_for(lambda: "host password" in notice(student), "the student's refusal")
        finally:
            host.evaluate("document.querySelector('#stop:not([disabled])')?.click()")
            host.context.close()
            if student is not None:
                student.context.close()
