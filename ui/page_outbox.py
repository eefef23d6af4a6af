"""What Gradio still holds for one page, and whether that page is gone: read from Gradio's queue.

What it does: ``outbox_of(request)`` gives a live stream (``live_stream.stream``) two questions about the page
behind ``request``: how many updates Gradio holds for it, sent by the stream but not yet written to its
connection (``Outbox.unsent``: the stream merges what changes meanwhile into one update), and whether the page
is gone (``Outbox.gone``: its tab closed or its connection lost, so the stream ends and the page lets go of its
debate, see ``session.LiveSession.detach``).

Why the stream must ask: Gradio ends a generator only when it yields and Gradio finds its client gone, and it
deletes a closed page's state (whose ``delete_callback`` would detach it) an hour later. A stream that waits
for a gone page to take its last update, or that has nothing new to send, would never yield: the debate of a
closed tab would run on for that hour.

Both answers read Gradio's private queue and session records (``Queue.pending_messages_per_session``,
``Queue.active_jobs``, ``StateHolder.session_data``). Where this Gradio keeps them elsewhere, ``outbox_of``
gives None (nothing is merged, the page is sent every update) or ``gone`` answers False (a closed page then lets
go of its debate only when Gradio deletes its state): an optimisation and an early release are lost, nothing
else.

What it does not do: wait, send or decide anything (``live_stream``), or know about debates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def _never() -> bool:
    return False


@dataclass(frozen=True)
class Outbox:
    """One page's hold in Gradio: ``unsent()`` updates not yet written to it; ``gone()`` once it has closed."""

    unsent: Callable[[], int]
    gone: Callable[[], bool] = _never


def outbox_of(request: Any) -> Outbox | None:
    """The outbox of ``request``'s page (a ``gr.Request`` of the stream's own event); None where this Gradio
    keeps its queue elsewhere."""
    try:
        app = request.request.app
        queue = app.get_blocks()._queue
        session = str(request.session_hash)
        queue.pending_messages_per_session.get(session)
    except Exception:  # another Gradio's internals: merging is an optimisation, the stream works without it
        return None

    def unsent() -> int:
        messages = queue.pending_messages_per_session.get(session)
        return int(messages.qsize()) if messages is not None else 0

    def gone() -> bool:
        try:
            return _closed(app, session) or _cut_off(queue, session)
        except Exception:  # another Gradio's internals: the page lets go when Gradio deletes its state
            return False

    return Outbox(unsent, gone)


def _closed(app: Any, session: str) -> bool:
    """The page's heartbeat connection ended (a closed tab or a lost connection; Gradio runs its unload events)."""
    state = app.state_holder.session_data.get(session)
    return bool(state is not None and state.is_closed)


def _cut_off(queue: Any, session: str) -> bool:
    """Gradio found the page's data connection gone and marked every running event of the page dead (it drops
    their next output)."""
    events = [event for job in queue.active_jobs if job for event in job if event.session_hash == session]
    return bool(events) and not any(event.alive for event in events)
