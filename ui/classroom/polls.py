"""The audience's polls of one classroom debate: one per round or phase, one vote per member, a tally.

What it does: ``Polls`` keeps a room's polls by key (the protocol's round or
phase: ``poll_key`` words it, "round 2", "opening"), in the order they
opened. At most one is open at a time: opening the next closes the one
before. A member's vote (by the member's public id) counts once per poll and
can be changed until the poll closes; a vote for a closed or unknown poll,
or for a choice the poll does not offer, is refused (``Conflict``,
``Invalid``). ``result`` gives a poll as a ``PollResult`` record (counts in
the order of its choices, never who voted for what).

What it does not do: check who may vote (``Room.vote`` does, then calls
``vote`` here) or lock: every method is called under the room's lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ui.classroom.records import MAX_CHOICE_CHARS, MAX_CHOICES, MAX_KEY_CHARS, PollResult
from ui.classroom.roles import Conflict, Invalid

MAX_POLLS = 500  # a debate has far fewer rounds and phases; a runaway caller stops here


def poll_key(phase: str | None, round: int | None = None) -> str:
    """The key of the poll of a phase and round, as the protocol names them ("round 2", "rebuttal, round 1")."""
    phase = " ".join(str(phase or "").split())[:64]
    if round is None:
        return phase or "debate"
    return f"{phase}, round {round}" if phase and phase != "round" else f"round {round}"


@dataclass
class _Poll:
    key: str
    label: str
    choices: tuple[str, ...]
    from_turn: int
    opened_at: float
    votes: dict[str, int] = field(default_factory=dict)  # member id -> index of the chosen choice
    to_turn: int | None = None
    closed_at: float | None = None

    def result(self) -> PollResult:
        counts = Counter(self.votes.values())
        return PollResult(
            key=self.key,
            label=self.label,
            choices=self.choices,
            counts=tuple(counts.get(i, 0) for i in range(len(self.choices))),
            from_turn=self.from_turn,
            opened_at=self.opened_at,
            to_turn=self.to_turn,
            closed_at=self.closed_at,
        )


def _choices(choices: Sequence[str]) -> tuple[str, ...]:
    kept = tuple(dict.fromkeys(" ".join(str(c).split()) for c in choices))
    if not kept or len(kept) > MAX_CHOICES or any(not c or len(c) > MAX_CHOICE_CHARS for c in kept):
        raise Invalid(f"A poll offers 1 to {MAX_CHOICES} choices of at most {MAX_CHOICE_CHARS} characters.")
    return kept


class Polls:
    """A room's polls; not thread-safe on its own (the room holds its lock around every call)."""

    def __init__(self) -> None:
        self._polls: dict[str, _Poll] = {}
        self.current: str | None = None

    def open(self, key: str, choices: Sequence[str], *, label: str, turn: int, at: float) -> PollResult:
        """Open the poll ``key`` (closing the one open before); a key already used is refused."""
        key = " ".join(str(key).split())
        if not key or len(key) > MAX_KEY_CHARS:
            raise Invalid(f"A poll's key is 1 to {MAX_KEY_CHARS} characters.")
        if key in self._polls:
            raise Conflict(f"The poll {key!r} was already held.")
        if len(self._polls) >= MAX_POLLS:
            raise Conflict("This debate has held as many polls as it may.")
        kept = _choices(choices)
        self.close(None, turn=turn, at=at)
        self._polls[key] = _Poll(key, " ".join(str(label).split())[:MAX_KEY_CHARS], kept, turn, at)
        self.current = key
        return self._polls[key].result()

    def close(self, key: str | None, *, turn: int, at: float) -> PollResult | None:
        """Close the poll ``key`` (None: the open one); its result, or None when there was nothing to close."""
        key = self.current if key is None else key
        if key is None:
            return None
        poll = self._find(key)
        if poll.closed_at is None:
            poll.to_turn, poll.closed_at = turn, at
        if self.current == key:
            self.current = None
        return poll.result()

    def vote(self, member: str, key: str, choice: object) -> PollResult:
        """Count ``member``'s vote for ``choice`` in the open poll ``key`` (replacing the member's earlier one)."""
        poll = self._find(key)
        if poll.closed_at is not None:
            raise Conflict("That poll has closed.")
        index = self._index(poll, choice)
        poll.votes[member] = index
        return poll.result()

    def vote_of(self, member: str, key: str) -> str | None:
        poll = self._polls.get(key)
        if poll is None or member not in poll.votes:
            return None
        return poll.choices[poll.votes[member]]

    def result(self, key: str) -> PollResult:
        return self._find(key).result()

    def results(self) -> tuple[PollResult, ...]:
        return tuple(poll.result() for poll in self._polls.values())

    def _find(self, key: object) -> _Poll:
        poll = self._polls.get(key) if isinstance(key, str) else None
        if poll is None:
            raise Invalid("There is no such poll.")
        return poll

    @staticmethod
    def _index(poll: _Poll, choice: object) -> int:
        if isinstance(choice, str) and len(choice) <= MAX_CHOICE_CHARS:
            said = " ".join(choice.split())
            for exact in (True, False):
                for i, offered in enumerate(poll.choices):
                    if said == offered if exact else said.casefold() == offered.casefold():
                        return i
        raise Invalid("That poll does not offer this choice.")
