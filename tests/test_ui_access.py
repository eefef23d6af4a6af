"""Who may act on a live debate, without a browser: the owner's token, checked by the page's handlers.

A page that opens a debate's live address without the token watches; every control's handler refuses a
request without the debate's token (none, a wrong one, another debate's) and nothing changes; only the
pages that hold the controls keep a debate from its orphan stop.
"""

from __future__ import annotations

import html
import time

import gradio as gr
import pytest

from debate_core import AgentSpec, DebateConfig
from tests.conftest import QUESTION
from ui import live_panel
from ui.live_panel import CONTROLS, control, raise_point, reattach_page, submit_words
from ui.live_stream import Drawn, LiveView, updates
from ui.page_access import KEPT_TOKENS, WATCHING, Page, Refused, guard, open_page, remember
from ui.seat_form import build_seat_form
from ui.session import SCRIPTED, LiveSession, backend_for

SEATED = "Jenny"


def wait(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def live():
    """A debate with a person seated as Jenny; it waits for her initial answer, so it runs until stopped."""
    agents = tuple(AgentSpec(name=n, seat="human" if n == SEATED else "model") for n in ("Alex", "Chris", SEATED))
    config = DebateConfig(question=QUESTION, agents=agents)
    session = LiveSession(config, backend_for(SCRIPTED, config), human=SEATED, grace_s=0.2).start()
    assert session.channel is not None
    assert session.channel.pending(timeout_s=20) is not None, "the debate never asked for the initial answer"
    yield session
    session.stop()


def test_the_owner_token_is_secret_per_debate_and_compared_exactly(live):
    other = LiveSession(live.config, backend_for(SCRIPTED, live.config), human=SEATED)  # never started
    assert len(live.owner_token) >= 43 and live.owner_token != other.owner_token
    assert live.owned_by(live.owner_token)
    for forged in (None, "", other.owner_token, live.owner_token[:-1], live.owner_token + "x", "é" * 43, 42):
        assert not live.owned_by(forged)


def test_every_control_refuses_a_request_without_the_debates_token_and_nothing_changes(live):
    watcher = open_page(live, {})
    assert not watcher.owner
    other = LiveSession(live.config, backend_for(SCRIPTED, live.config), human=SEATED)  # never started
    values = {"pace": (5.0,), "interrupt": (9,), "raise_hand": (9,), "choose_answer": ("A",)}
    for tokens in ({}, None, {live.debate_id: "forged"}, {live.debate_id: other.owner_token}, "not a map"):
        for name, (what, act) in CONTROLS.items():
            said = html.unescape(control(what, act)(watcher, tokens, *values.get(name, ())))
            assert "You are watching" in said and f"cannot {what}" in said, name
    assert live.status == "running" and live.pace_s == 0.0
    assert live.seat_state == "listening" and live.channel is not None
    assert live.channel.stance() == {}  # no intent, no urgency, no answer, no point set by anyone
    assert "You are watching" in raise_point(watcher, {}, "A point of mine.")[1]
    request = live.channel.pending(timeout_s=0)
    assert "Not sent: You are watching" in submit_words(watcher, {}, "B", *[None] * 10)
    assert live.channel.pending(timeout_s=0) is request  # still waiting for the seated person's own answer
    with pytest.raises(Refused, match="No debate"):
        guard(None, {live.debate_id: live.owner_token}, "pause it")


def test_the_owners_token_acts_even_from_a_page_that_attached_without_it(live):
    tokens = remember({}, live)
    for page in (open_page(live, tokens), Page(live, owner=False)):  # the request's token is what counts
        assert control(*CONTROLS["pause"])(page, tokens) is not None  # gr.skip(): nothing to say
        assert live.status == "paused"
        control(*CONTROLS["resume"])(page, tokens)
        assert live.status == "running"
    control(*CONTROLS["interrupt"])(Page(live, owner=True), tokens, 7)
    assert live.seat_state == "armed" and live.stance_urgency == 7


def test_the_owners_odd_values_are_refused_with_words_or_bounded_and_the_debate_goes_on(live):
    tokens = remember({}, live)
    page = open_page(live, tokens)
    notice = control(*CONTROLS["choose_answer"])(page, tokens, "B" * 5_000)  # over the channel's 2,000 characters
    assert isinstance(notice, str) and "answer" in html.unescape(notice) and 'class="notice bad"' in notice
    assert live.channel is not None and "answer" not in live.channel.stance()
    for urgency in ("loud", "9" * 5_000, None, -3, 10**40):  # what a forged request may send: never an error
        control(*CONTROLS["interrupt"])(page, tokens, urgency)
        assert live.seat_state == "armed" and 0 <= live.stance_urgency <= 9
    assert live.status == "running"


def test_a_live_address_opens_with_controls_only_in_the_browser_holding_the_token(live):
    owner = reattach_page(live.debate_id, remember({"older": "x"}, live))
    watcher = reattach_page(live.debate_id, {live.debate_id: "guessed"})
    assert owner is not None and owner.owner and watcher is not None and not watcher.owner
    assert reattach_page("no-such-debate", {}) is None and reattach_page(None, {}) is None


def test_the_watchers_page_shows_no_control_and_says_it_watches(live):
    with gr.Blocks():
        view = LiveView(*[gr.HTML() for _ in range(13)], build_seat_form(), *[gr.Button() for _ in range(4)])
    by_page = {}
    for page in (open_page(live, remember({}, live)), open_page(live, {})):
        by_page[page.owner] = dict(zip(view.outputs(), updates(live, Drawn(), view, page=page), strict=True))
    owner, watcher = by_page[True], by_page[False]
    assert "you are Jenny" in owner[view.status] and WATCHING not in owner[view.status]
    assert WATCHING in watcher[view.status] and "a person is Jenny" in watcher[view.status]
    assert owner[view.controls]["visible"] and not watcher[view.controls]["visible"]
    for button in (view.pause, view.resume, view.step, view.stop):
        assert owner[button]["visible"] and not watcher[button]["visible"]
    # the words form for the initial answer the debate waits for: opened on the owner's page only
    assert owner[view.form.box]["visible"] and watcher[view.form.box].get("visible") is not True
    assert "s left" not in str(watcher[view.countdown])


def test_a_watchers_display_is_its_own(live):
    owner, watcher = open_page(live, remember({}, live)), open_page(live, {})
    live_panel._toggle("audience", watcher, True)
    live_panel._toggle("discarded", watcher, True)
    assert watcher.audience and watcher.discarded and not owner.audience and not owner.discarded


def test_only_pages_with_the_controls_keep_a_debate_from_its_orphan_stop(live):
    owner = open_page(live, remember({}, live))
    watcher = open_page(live, {})
    watcher.close()  # a watcher leaving stops nothing
    time.sleep(4 * live.grace_s)
    assert not live.done
    owner.close()  # the owner's page is gone; it comes back (a reload) within the grace period
    back = open_page(live, remember({}, live))
    time.sleep(4 * live.grace_s)
    assert not live.done and back.owner
    still_watching = open_page(live, {})
    back.close()  # the owner is gone for good: a watcher does not keep the debate running
    assert wait(lambda: live.done), "the debate without a controlling page was never stopped"
    assert not still_watching.closed  # the watcher's page stays; it shows the stopped debate


def test_a_browser_keeps_the_newest_tokens_and_drops_what_is_not_a_token(live):
    held: dict[str, str] = {f"debate-{i}": f"token-{i}" for i in range(KEPT_TOKENS)}
    kept = remember({**held, "junk": 5, 7: "x"}, live)
    assert len(kept) == KEPT_TOKENS and list(kept)[-1] == live.debate_id and kept[live.debate_id] == live.owner_token
    assert "debate-0" not in kept and "junk" not in kept
    assert remember("not a map", live) == {live.debate_id: live.owner_token}


def test_the_words_form_is_shown_once_more_without_values_so_a_quick_hide_and_show_cannot_leave_it_hidden(
    live, monkeypatch
):
    from ui import live_stream

    with gr.Blocks():
        view = LiveView(*[gr.HTML() for _ in range(13)], build_seat_form(), *[gr.Button() for _ in range(4)])
    page, drawn = open_page(live, remember({}, live)), Drawn()
    now = [1000.0]
    monkeypatch.setattr(live_stream.time, "monotonic", lambda: now[0])
    first = dict(zip(view.outputs(), updates(live, drawn, view, page=page), strict=True))
    assert first[view.form.box]["visible"] and "Before the debate" in first[view.form.prompt]
    now[0] += live_stream.FORM_AGAIN_S / 2
    soon = dict(zip(view.outputs(), updates(live, drawn, view, page=page), strict=True))
    assert soon[view.form.box] == gr.skip()
    now[0] += live_stream.FORM_AGAIN_S
    again = dict(zip(view.outputs(), updates(live, drawn, view, page=page), strict=True))
    assert again[view.form.box]["visible"] is True  # the box again, and each field it shows
    shown = [slot for slot in view.form.inputs() if first[slot]["visible"]]
    assert shown and all(again[slot]["visible"] is True for slot in shown)
    assert all(again[slot]["label"] == first[slot]["label"] for slot in shown)
    assert all("value" not in again[slot] for slot in shown)  # what the person has entered stays
    assert all(again[slot] == gr.skip() for slot in view.form.inputs() if slot not in shown)
    assert again[view.form.prompt] == gr.skip()
    later = dict(zip(view.outputs(), updates(live, drawn, view, page=page), strict=True))
    assert later[view.form.box] == gr.skip()  # once
