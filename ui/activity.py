"""What a live debate is busy with, in words for its status line.

What it does: ``Activity`` keeps the clocks the words need and says, for
``LiveSession.activity``: waiting for a seated person (for whom and for
what: "waiting for Jenny's initial answer", ``waiting_words``; ``asked``
names everyone the debate waits for), the model
reading its prompt (no new token for ``QUIET_S`` while the debate works out
its next event: how long), or generating (tokens so far). ``loading_words``
says what loading a backend does before the debate starts (its own
``loading_words``, such as llama.cpp's server starting, else a model
converted on its first use).

What it does not do: hold the session's state or its lock (``session``
does, and calls these under it), or draw the status line (``live_stream``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from debate_core import HumanChannel
from debate_core.backends.base import Backend

QUIET_S = 2.0  # no new token this long while the debate works: the model is said to read its prompt
ASKED = {"initial_answer": "'s initial answer", "utterance": " to speak (they hold the floor)"}  # else the kind


def waiting_words(person: str, kind: str) -> str:
    """The status words for a debate that waits for ``person``'s reply of request kind ``kind``."""
    asked = ASKED.get(kind)
    return f"waiting for {person}{asked}" if asked else f"waiting for {person}'s {kind.replace('_', ' ')}"


def loading_words(backend: Backend) -> str:
    """What loading ``backend`` does, for the status: its own ``loading_words``, else a first-use conversion."""
    words = getattr(backend, "loading_words", None)
    if isinstance(words, str) and words:
        return words
    return f"loading {backend.model_id} (the first use converts it, about 20 s)"


def asked(seated: Iterable[tuple[str, HumanChannel | None]], now: float) -> str:
    """What the debate waits for from the people seated (their agent, their channel) right now: each open
    request not past its deadline, in seat order (empty when nothing)."""
    said = []
    for person, channel in seated:
        request = channel.pending(timeout_s=0) if channel is not None else None
        if request is not None and (request.deadline is None or request.deadline > now):
            said.append(waiting_words(person, request.kind))
    return "; ".join(said)


@dataclass
class Activity:
    """The clocks of a running debate: since when it works out its next event, since when no token came."""

    working_since: float | None = None  # None: pacing, paused, not started or ended
    tokens_seen: int = 0
    quiet_since: float = field(default_factory=time.monotonic)

    def working(self, now: float | None = None) -> None:
        """The debate works out its next event from now (an event just came, or the pacing is over)."""
        self.working_since = self.quiet_since = time.monotonic() if now is None else now

    def idle(self) -> None:
        """The debate paces, is paused or has ended: no model is asked."""
        self.working_since = None

    def words(self, now: float, tokens: int, generated: int, person: str) -> str:
        """The activity: ``person`` (what the debate waits for from them) first, then the model's quiet or
        its tokens; ``tokens`` the debate's running count, ``generated`` those since the last event."""
        if tokens != self.tokens_seen:
            self.tokens_seen, self.quiet_since = tokens, now
        if person:
            self.quiet_since = now  # the models' clock starts again once the person has answered
            return person
        quiet = now - max(self.quiet_since, self.working_since or now)
        if self.working_since is not None and quiet >= QUIET_S:
            if generated <= 0:
                return f"the model is reading its prompt, {quiet:.0f} s"
            return f"generating, {generated} tokens so far, none for {quiet:.0f} s"
        return f"generating, {generated} tokens so far" if generated > 0 else ""
