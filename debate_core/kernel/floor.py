"""The floor: one speaker's utterance, cut into units, and how much of it is public.

What it does: a ``Floor`` holds an utterance's units (chunked when it was
said), how many have been disclosed, whom it interrupts, and whether it is
suspended (cut off by a point of information, waiting to be resumed). An
utterance generated as it streams is ``open`` while its generation goes on:
more units may join the queue, ``pending`` holds the text generated past its
last unit, and ``generation`` the generation in progress (the kernel's,
``streaming.Generation``). The kernel's moves change it; protocols read it.

What it does not do: disclose, cut, generate or emit anything (``table``
does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class Floor:
    """The current speaker's utterance and how much of it is public."""

    speaker: str
    utterance_id: int
    units: tuple[str, ...]
    interrupting: str | None
    disclosed: int = 0
    suspended: bool = False
    kind: str = "speech"
    open: bool = False
    pending: str = ""
    generation: Any = None

    @property
    def held(self) -> bool:
        """Units are still queued or being generated (and the floor is not suspended)."""
        return not self.suspended and (self.disclosed < len(self.units) or self.open)

    @property
    def queued(self) -> bool:
        """Units are ready to disclose (and the floor is not suspended)."""
        return not self.suspended and self.disclosed < len(self.units)

    @property
    def remaining(self) -> tuple[str, ...]:
        return self.units[self.disclosed :]

    @property
    def said(self) -> str:
        return " ".join(self.units[: self.disclosed])

    @property
    def done(self) -> bool:
        return not self.open and self.disclosed >= len(self.units)
