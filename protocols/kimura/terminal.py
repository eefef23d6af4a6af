"""Kimura's terminal rendering: the set-up panel names the debate by its condition.

What it does: ``RENDERING`` tells ``console.terminal.TerminalRenderer`` to
title a Kimura debate by the paper's condition (``interruptible``,
``dynamic``, ``fixed``: ``DebateStarted.protocol``) rather than by its
``kimura/<variant>`` label. It is a front-end module: only ``plugin``'s
``register_terminal_renderers`` hook imports it, inside the hook.

What it does not do: render the built-in events (plans, silences and the
rest are printed by the terminal itself).
"""

from __future__ import annotations

from console.terminal import TerminalRendering
from debate_core.events import DebateStarted


def title(event: DebateStarted) -> str:
    return event.protocol


RENDERING = TerminalRendering(protocol="kimura", title=title)
