"""A debate's status, one spelling for the engine, the store, the web app and the studies.

What it does: ``DebateStatus`` names where a debate stands (running, finished,
failed, aborted, incomplete), and ``status_for(reason)`` maps a
``DebateEnded`` reason to the status it gives: ``stopped`` is ``aborted``,
``error`` is ``failed``, every other reason (a budget spent, rounds done, a
verdict, an early exit, ...) is ``finished``.

What it does not do: store anything; ``incomplete`` is given by the store to
debates whose recording process died or whose transcript ends early.
"""

from __future__ import annotations

from enum import StrEnum

from debate_core.events.records import EndReason


class DebateStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    ABORTED = "aborted"
    INCOMPLETE = "incomplete"


def status_for(reason: EndReason) -> DebateStatus:
    """The status a debate has once it ended for ``reason``."""
    if reason is EndReason.STOPPED:
        return DebateStatus.ABORTED
    if reason is EndReason.ERROR:
        return DebateStatus.FAILED
    return DebateStatus.FINISHED
