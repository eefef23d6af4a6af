"""What an ACE seat is shown when it is asked, and the records a round leaves behind.

What it does: ``Stance`` is one debater's public reply (answer, explanation
items, a comment to the other debater); ``PairFindings`` is the observer's
analysis of one pair of debaters (do the answers agree, are the explanations
similar, which items match and which differ, by 1-based item numbers);
``AceView`` bundles what one request gives one seat: the question, the
debater's own last reply and the other debaters' (or, for the observer, every
debater's), the analysis about this debater's pair (empty when there is
none: the ``no_analyze`` ablation, or round 1), the act library, the action
it composed (for Execute), every earlier round's replies (for the parallel
baseline's conversation on Du et al.'s prompts), and the limits the prompt
and the schema state (the round cap None when only the observer ends it).
The prompts and a person's form read the same object.

What it does not do: hold anything private to another seat: a debater sees
the others' public replies and the observer's analysis, never another
debater's composed action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from debate_core.config import Question
from protocols.ace.library import ActLibrary, load_library


@dataclass(frozen=True, slots=True)
class Stance:
    """A debater's public reply: its answer, its explanation items, its comment to the others."""

    agent: str
    answer: str | None
    explanation: tuple[str, ...] = ()
    comments: str = ""

    def structured(self) -> dict[str, Any]:
        return {"answer": self.answer, "explanation": list(self.explanation), "comments": self.comments}


@dataclass(frozen=True, slots=True)
class PairFindings:
    """The observer's analysis of debaters ``first`` and ``second`` (item numbers are 1-based)."""

    first: str
    second: str
    answers_agree: bool
    explanations_similar: bool
    similar: tuple[tuple[int, int], ...] = ()
    dissimilar: tuple[tuple[int, int], ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "second": self.second,
            "answers_agree": self.answers_agree,
            "explanations_similar": self.explanations_similar,
            "similar": [list(pair) for pair in self.similar],
            "dissimilar": [list(pair) for pair in self.dissimilar],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PairFindings:
        """The findings an ``AnalysisMade`` event holds (see ``as_dict``)."""

        def pairs(key: str) -> tuple[tuple[int, int], ...]:
            found = data.get(key) or []
            return tuple((int(p[0]), int(p[1])) for p in found if isinstance(p, list | tuple) and len(p) == 2)

        return cls(
            str(data.get("first", "")),
            str(data.get("second", "")),
            bool(data.get("answers_agree")),
            bool(data.get("explanations_similar")),
            pairs("similar"),
            pairs("dissimilar"),
        )

    def seen_by(self, agent: str) -> PairFindings:
        """The same findings with ``agent`` first (its items numbered first in each pair)."""
        if agent != self.second:
            return self
        swap = lambda pairs: tuple((b, a) for a, b in pairs)  # noqa: E731
        return PairFindings(
            self.second,
            self.first,
            self.answers_agree,
            self.explanations_similar,
            swap(self.similar),
            swap(self.dissimilar),
        )


@dataclass(frozen=True, slots=True)
class AceView:
    """One seat's view at one request (see the module docstring)."""

    agent: str
    role: str
    question: Question
    persona: str = ""
    brief: str = ""
    round: int = 1
    max_rounds: int | None = 4  # the rounds a debater is told of; None: no cap (the observer ends the debate)
    items: int = 4
    item_chars: int = 240
    token_cap: int = 1024
    own: Stance | None = None
    peers: tuple[Stance, ...] = ()
    findings: PairFindings | None = None
    library: ActLibrary = field(default_factory=load_library)
    acts: tuple[str, ...] = ()
    action: str = ""
    comments: tuple[tuple[str, str], ...] = ()
    history: tuple[tuple[Stance, ...], ...] = ()  # every earlier round's replies, seat order (Du et al.'s talk)

    @property
    def peer_names(self) -> tuple[str, ...]:
        return tuple(stance.agent for stance in self.peers)
