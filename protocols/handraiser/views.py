"""What a HandRaiser role is shown when it is asked to act, and the public record it is built from.

What it does: ``HandView`` bundles one request's view: the question, the
role and title, the seat's private brief (a side's explanation), the answer
this side argues and the other side's, the public record so far
(``transcript``: one line per statement, a cut statement ending where it was
cut), the side speaking now and the chunks heard so far this round
(``partial``, for the moderator's decision), the round, whether the
speaker was asked to be concise, and the clarifying question the moderator
asked both sides at the end of the last round (``asked``; the sides'
statements answer it). ``record_line`` writes one line of the
record; ``spoken_from_events`` rebuilds the record from a stored debate's
events, so a decision's prompt can be rebuilt at any chunk of any stored
debate (the tree sampler's training examples) exactly as the moderator saw it.

What it does not do: hold anything undisclosed: the record has what was
said in public, and the briefs are each seat's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from debate_core.config import Question
from debate_core.events.codec import Event
from debate_core.events.types import Interrupted, UnitDisclosed, UtteranceGenerated
from debate_core.kernel.chunkers import unit_spans

CUT_MARK = "[cut off by the moderator]"


@dataclass(frozen=True, slots=True)
class HandView:
    """One role's view at one request (see the module docstring)."""

    agent: str
    role: str
    title: str
    question: Question
    persona: str = ""
    brief: str = ""
    position: str = ""
    other_title: str = ""
    other_position: str = ""
    pro_position: str = ""
    con_position: str = ""
    transcript: tuple[str, ...] = ()
    speaker: str = ""
    partial: str = ""
    concise: bool = False
    asked: str = ""
    round: int = 1
    max_rounds: int = 10


def record_line(title: str, text: str, *, cut: bool = False, mark: str = CUT_MARK) -> str:
    """One statement as the record keeps it (a cut statement is marked, by default as the moderator's cut)."""
    return f"{title}: {text.strip()}" + (f" {mark}" if cut else "")


def said_prefix(text: str, units: Sequence[str], disclosed: int) -> str:
    """What was said of ``text`` once its first ``disclosed`` units were out, with its own spacing.

    Units are stripped pieces of the text in order (a token chunk may end inside a word), so
    joining them would lose or invent spaces; the prefix of the text itself keeps them.
    """
    spans = unit_spans(text, units[:disclosed])
    if any(span is None for span in spans):  # not pieces of this text (a person's edited words): join them
        return " ".join(units[:disclosed])
    end = spans[-1][1] if spans and spans[-1] is not None else 0
    return text[:end].strip()


@dataclass
class Spoken:
    """One utterance of a stored debate as the record knows it."""

    speaker: str
    text: str
    units: tuple[str, ...]
    disclosed: int = 0
    cut: bool = False

    @property
    def said(self) -> str:
        return said_prefix(self.text, self.units, self.disclosed)


def spoken_from_events(events: Iterable[Event]) -> dict[int, Spoken]:
    """Every utterance of the events so far, by id, in order: what was disclosed, whether it was cut."""
    spoken: dict[int, Spoken] = {}
    for event in events:
        if isinstance(event, UtteranceGenerated):
            spoken[event.utterance_id] = Spoken(event.speaker, event.text, event.units)
        elif isinstance(event, UnitDisclosed) and event.utterance_id in spoken:
            spoken[event.utterance_id].disclosed = event.index + 1
        elif isinstance(event, Interrupted) and event.utterance_id in spoken:
            spoken[event.utterance_id].cut = True
    return spoken
