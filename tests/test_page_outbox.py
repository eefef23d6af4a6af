"""A closed page lets go of its debate at once, whatever its stream was doing (``ui.page_outbox``).

Gradio ends a page's stream only when the stream yields, and deletes a closed page's state an hour later: a
stream waiting for a gone page to take its last update (on a busy server, one often has an update in flight
when it closes), or with nothing new to send (a paused debate), used to keep the debate running for that hour
with nobody watching. Here the stream asks the page's outbox and ends, and the debate is stopped after its
grace, as for any page that goes. The outbox reads Gradio's own queue and session records: the first tests
build them with Gradio's classes, so a Gradio that renames what it reads fails here, not in a browser.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from types import SimpleNamespace

import gradio as gr
import pytest
from gradio.queueing import Event
from gradio.state_holder import StateHolder

from protocols.kimura.demo import demo_backend, demo_config
from tests.conftest import HANG_GUARD_S
from ui.live_stream import LiveView, stream
from ui.page_access import open_page
from ui.page_outbox import Outbox, outbox_of
from ui.seat_form import build_seat_form
from ui.session import LiveSession


def _gradio_page(session: str = "page-1"):
    """A Gradio app's queue and session records holding one page's running stream, as a request shows them."""
    with gr.Blocks() as blocks:
        gr.Button().click(lambda: None)
    holder = StateHolder()
    holder.set_blocks(blocks)
    holder[session]  # the page's session state, as Gradio makes it when the page loads
    queue = blocks._queue
    queue.pending_messages_per_session[session] = asyncio.Queue()
    running = Event(session, next(iter(blocks.fns.values())), request=None, username=None)  # type: ignore[arg-type]
    other = Event("another-page", next(iter(blocks.fns.values())), request=None, username=None)  # type: ignore[arg-type]
    queue.active_jobs = [None, [running], [other]]
    request = SimpleNamespace(
        request=SimpleNamespace(app=SimpleNamespace(get_blocks=lambda: blocks, state_holder=holder)),
        session_hash=session,
    )
    return request, queue, holder, running, other


def test_the_outbox_counts_what_gradio_holds_for_the_page():
    request, queue, _, _, _ = _gradio_page()
    outbox = outbox_of(request)
    assert outbox is not None and outbox.unsent() == 0
    queue.pending_messages_per_session["page-1"].put_nowait("an update")
    queue.pending_messages_per_session["page-1"].put_nowait("another")
    assert outbox.unsent() == 2 and not outbox.gone()


def test_a_page_whose_tab_closed_is_gone():
    request, _, holder, _, _ = _gradio_page()
    outbox = outbox_of(request)
    assert outbox is not None and not outbox.gone()
    holder.session_data["page-1"].is_closed = True  # what Gradio does when the page's heartbeat ends
    assert outbox.gone()


def test_a_page_whose_connection_dropped_is_gone_and_another_pages_drop_is_not_its_own():
    request, _, _, running, other = _gradio_page()
    outbox = outbox_of(request)
    assert outbox is not None
    other.alive = False  # another page's connection dropped
    assert not outbox.gone()
    running.alive = False  # what Gradio does to a page's events when it finds the page's connection gone
    assert outbox.gone()


def test_a_gradio_that_keeps_its_queue_elsewhere_gives_no_outbox():
    assert outbox_of(SimpleNamespace(request=None, session_hash="x")) is None


def _view() -> LiveView:
    with gr.Blocks():
        return LiveView(*[gr.HTML() for _ in range(13)], build_seat_form(), *[gr.Button() for _ in range(4)])


def _owned_page(grace_s: float):
    config = demo_config(seed=1, token_budget=300)
    live = LiveSession(config, demo_backend(config), grace_s=grace_s)  # not started: the test bumps it by hand
    return live, open_page(live, {live.debate_id: live.owner_token})


def _stopped(live: LiveSession) -> bool:
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        if live.status == "stopping":
            return True
        time.sleep(0.01)
    return False


def _run(coroutine) -> None:
    # in a thread of its own: a browser test earlier in the same process may leave an event loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coroutine).result(timeout=HANG_GUARD_S)


def test_a_page_that_goes_with_an_update_still_unsent_lets_go_of_its_debate(caplog):
    caplog.set_level(logging.INFO, logger="debate_core")
    live, page = _owned_page(grace_s=0.05)
    unsent, gone = [0], [False]
    view = _view()

    async def watch() -> None:
        updates = stream(page, view, Outbox(lambda: unsent[0], lambda: gone[0]))
        await anext(updates)
        unsent[0] = 1  # Gradio still holds that update: the page is slow, or closing
        pending = asyncio.ensure_future(anext(updates))
        live._bump()  # the debate moved on
        await asyncio.sleep(0.2)
        assert not pending.done(), "an update was sent to a page that had not taken the last one"
        gone[0] = True  # the tab closed: its update will never be taken
        try:
            await asyncio.wait_for(pending, HANG_GUARD_S)
        except StopAsyncIteration:
            return
        raise AssertionError("the stream of a gone page sent another update instead of ending")

    _run(watch())
    assert _stopped(live), "the debate of a closed page was not stopped after its grace"
    said = [record.getMessage() for record in caplog.records]
    assert f"debate {live.debate_id}: a page went away before it took its last update" in said  # --log-level info
    assert f"debate {live.debate_id} has no page with its controls: stopping it" in said


def test_the_apps_log_level_comes_from_the_flag_else_the_environment(monkeypatch):
    from app import options

    monkeypatch.delenv("DEBATE_LOG_LEVEL", raising=False)
    assert options([]).log_level == "warning"
    monkeypatch.setenv("DEBATE_LOG_LEVEL", "info")
    assert options([]).log_level == "info"
    assert options(["--log-level", "DEBUG"]).log_level == "debug"
    with pytest.raises(SystemExit):
        options(["--log-level", "loud"])


def test_a_page_that_goes_while_nothing_happens_lets_go_of_its_debate():
    live, page = _owned_page(grace_s=0.05)
    gone = [False]
    view = _view()

    async def watch() -> None:
        updates = stream(page, view, Outbox(lambda: 0, lambda: gone[0]))
        await anext(updates)
        pending = asyncio.ensure_future(anext(updates))  # a paused debate: nothing to send
        await asyncio.sleep(0.2)
        gone[0] = True
        try:
            update = await asyncio.wait_for(pending, HANG_GUARD_S)
        except StopAsyncIteration:
            return
        # the page's activity line may still be drawn once: then the stream must end at its next look
        assert update is not None
        try:
            await asyncio.wait_for(anext(updates), HANG_GUARD_S)
        except StopAsyncIteration:
            return
        raise AssertionError("the stream of a gone page went on")

    _run(watch())
    assert _stopped(live), "the debate of a closed page was not stopped after its grace"


def test_a_page_that_stays_keeps_its_debate_past_the_grace():
    live, page = _owned_page(grace_s=0.05)
    view = _view()

    async def watch() -> None:
        updates = stream(page, view, Outbox(lambda: 0, lambda: False))
        await anext(updates)
        live._bump()
        await asyncio.wait_for(anext(updates), HANG_GUARD_S)
        pending = asyncio.ensure_future(anext(updates))
        await asyncio.sleep(0.3)  # six times the grace
        assert live.status == "starting", "the debate of a page still watching was stopped"
        page.close()  # the page moves on to another debate: its stream ends
        pending.cancel()
        await updates.aclose()

    _run(watch())
