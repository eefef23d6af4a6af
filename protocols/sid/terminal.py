"""SID's terminal rendering: a line for each compression of the others' messages.

What it does: ``RENDERING`` tells ``console.terminal.TerminalRenderer`` how to
print SID's own event (``ContextCompressed``: who saw how much of the others'
text, in which round). It is a front-end module: only ``plugin``'s
``register_terminal_renderers`` hook imports it, inside the hook.

What it does not do: compress anything (``compression``) or render the
built-in events (``SignalsMeasured`` is printed by the terminal itself).
"""

from __future__ import annotations

from console.terminal import TerminalRenderer, TerminalRendering
from protocols.sid.events import ContextCompressed


def context_compressed(renderer: TerminalRenderer, event: ContextCompressed) -> None:
    renderer.note(f"{event.agent} sees {100 * event.ratio:.0f}% of the others' text (round {event.round})")


RENDERING = TerminalRendering(events={"context_compressed": context_compressed})
