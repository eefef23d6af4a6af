"""Parallel debate (Du et al. 2023): rounds in which every debater answers at once; the majority of the last answers.

What it does: ``parallel_debate`` drives the multi-agent debate that several papers run as their baseline or
build on (the baselines family's ``parallel`` and DMAD, ACE's PAR, SID's MAD), one implementation for all:

* **round 1**: a phase and a new turn; every debater answers alone, all asked in one batch (``ask``), then
  the replies are published (``publish``);
* **rounds 2..rounds**: a phase and a new turn; every debater is asked again in one batch and revises after
  reading the others' last answers. The whole round is asked before any reply of it is published, so a
  debater reads what the others said before this round, never this round's answers;
* **the end**: the majority of the answers the debaters hold after the last round
  (``kernel.endings.majority``; a debater whose last reply named no answer still holds its earlier one, as
  the protocols' readers keep it, one without any casts no vote, a tie is the debate's seeded draw, or with
  ``ties="first"`` the tied answer of the earliest seat), after an optional ``decision`` phase; the end reason
  is ``rounds``.

What differs between the papers stays with the protocol, passed in as functions: what a round asks (its
forms and views: its prompt set and the way its replies are read), how a round's replies are published
(the chunker, the turns, the answers updated, anything measured), the phases' names (``Phases``), events a
revision round yields before its batch (``before``: SID's attention probes), and an opening inside round 1
(``opening``: SID's gate, the first debater alone and perhaps an early exit).

What it does not do: word, read or remember anything. The protocol's run state keeps the last replies it
published and builds each debater's view from them; this module only fixes the order of the moves.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.endings import Ties, majority
from debate_core.kernel.forms import FormResult

if TYPE_CHECKING:
    from debate_core.kernel.table import Table

Ask = Callable[[int, Sequence[str]], Mapping[str, FormResult[Any]]]
"""``ask(round, who)``: the replies of ``who`` to the round's request, asked in one batch."""
Publish = Callable[[int, Mapping[str, FormResult[Any]]], Iterator[Event]]
"""``publish(round, replies)``: the replies said, disclosed and recorded (the debaters' answers updated)."""
Opening = Callable[[], Generator[Event, None, Sequence[str] | None]]
"""``opening()``: runs in round 1 after its phase and turn begin; returns the debaters it has already had
answer (the round's batch asks the others), or None when it ended the debate (its last event the finish)."""


@dataclass(frozen=True)
class Phases:
    """The names of a parallel debate's phases; each protocol's stream keeps its own."""

    answer: str = "answer"
    revise: str = "revise"
    decision: str | None = "decision"  # None: no phase between the last round and the end


PHASES = Phases()


def parallel_debate(
    table: Table,
    debaters: Sequence[str],
    rounds: int,
    ask: Ask,
    publish: Publish,
    *,
    phases: Phases = PHASES,
    before: Callable[[int], Iterator[Event]] | None = None,
    opening: Opening | None = None,
    ties: Ties = "draw",
) -> Iterator[Event]:
    """``rounds`` rounds of ``debaters`` (seat order), each asked in one batch, then their majority (see the module
    docstring); ``before(round)`` yields a revision round's events before its batch is asked; ``ties`` breaks a
    tie for the most votes (``endings.majority``)."""
    last = 1
    for round_ in range(1, rounds + 1):
        last = round_
        first = round_ == 1
        yield table.phase(phases.answer if first else phases.revise, round_)
        table.tick()
        who = list(debaters)
        if first and opening is not None:
            answered = yield from opening()
            if answered is None:
                return
            who = [name for name in who if name not in answered]
        if not first and before is not None:
            yield from before(round_)
        if who:
            yield from publish(round_, ask(round_, who))
    if phases.decision is not None:
        yield table.phase(phases.decision, last)
    voters = set(debaters)
    answers = tuple(answer for answer in table.answer_list() if answer.agent in voters)
    yield table.finish(EndReason.ROUNDS, majority(answers, table.rng, ties))


__all__ = ["PHASES", "Ask", "Opening", "Phases", "Publish", "parallel_debate"]
