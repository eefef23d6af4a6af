"""The public record of a debate: what everyone has seen, line by line.

What it does: ``HistoryLine`` is one public thing that happened in a turn: a
disclosed unit of speech (with who spoke, whom it interrupts, and whether it
finished the utterance), or a silence. The kernel appends a line for every
disclosed unit and every silent turn; protocols build their agents' views
from these lines only, so no view can contain a queued or discarded unit.

What it does not do: window or render the history (protocols do, for their
prompts).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class LineKind(StrEnum):
    START = "start"
    SPEECH = "speech"
    SILENCE = "silence"


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One turn of public history: a disclosed unit, or a silence."""

    turn: int
    kind: LineKind
    speaker: str | None = None
    text: str = ""
    interrupting: str | None = None
    finished: bool = False


START_LINE = HistoryLine(turn=0, kind=LineKind.START)
