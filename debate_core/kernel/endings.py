"""How debates end: composable end conditions, and pluggable final decisions.

What it does:

* End conditions are functions of the table (of what ``state.TableState``
  names: they import no ``Table``) returning an ``EndReason`` or None:
  ``budget_spent``, ``silence_streak``, ``turn_limit``, ``stop_requested``,
  and ``first_of(*conditions)`` which checks them in order. A protocol
  composes the ones its paper uses (Kimura: budget, then silence, then turns,
  then stop) and adds its own (a verdict, an early exit).
* A ``FinalDecision`` is the answer a debate ends with and how it was
  decided. ``majority`` counts answers (free-form answers compared
  case-insensitively, ignoring surrounding spaces and a final period; agents
  without an answer do not vote; a tie is broken by the debate's seeded random
  generator, ``ties="draw"``, or with ``ties="first"`` goes to the tied answer
  given first in the answers' (seat) order, the agent who gave it recorded as
  ``decided_by``, as ``Counter.most_common`` does in SID's authors' code;
  either way the tied answers are recorded);
  ``single`` takes one agent's answer (Parliament's prover); ``verdict`` a
  judge's (HandRaiser's moderator, ACE's observer); ``consensus`` the answer
  every agent gives, or None when one differs or has none (ACE's agreed
  answer).
* ``is_correct`` compares a final answer with the question's known answer:
  labels exactly, free-form answers case-insensitively (spaces and a final
  period aside), and answers that are plain numbers by value (``"$1,200"``
  is ``"1200"``, ``"18.0"`` is ``"18"``); never by containment.

What it does not do: end anything itself (the table's ``finish`` does, when a
protocol calls it).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from debate_core.events.records import AgentAnswer, EndReason, Vote
from debate_core.kernel.state import TableState

EndCondition = Callable[[TableState], EndReason | None]


def budget_spent(table: TableState) -> EndReason | None:
    """The public-token budget (``config.token_budget``) is reached."""
    return EndReason.BUDGET if table.public_tokens >= table.config.token_budget else None


def silence_streak(table: TableState) -> EndReason | None:
    """``config.max_silent_turns`` silent turns in a row (a stall guard; None: never)."""
    limit = table.config.max_silent_turns
    return EndReason.SILENCE if limit is not None and table.silent_streak >= limit else None


def turn_limit(table: TableState) -> EndReason | None:
    """``config.max_turns`` turns (a stall guard; None: never)."""
    limit = table.config.max_turns
    return EndReason.MAX_TURNS if limit is not None and table.turn >= limit else None


def stop_requested(table: TableState) -> EndReason | None:
    """Someone called ``stop()``."""
    return EndReason.STOPPED if table.stop_requested else None


def first_of(*conditions: EndCondition) -> EndCondition:
    """An end condition that is the first of ``conditions`` to hold, in the order given."""

    def check(table: TableState) -> EndReason | None:
        for condition in conditions:
            reason = condition(table)
            if reason is not None:
                return reason
        return None

    return check


@dataclass(frozen=True, slots=True)
class FinalDecision:
    """The answer a debate ends with, how it was decided, and the answers it was decided from."""

    answer: str | None
    rule: str
    answers: tuple[AgentAnswer, ...] = ()
    votes: tuple[Vote, ...] = ()
    tie: tuple[str, ...] = ()
    decided_by: str | None = None


def answer_key(answer: str) -> str:
    return answer.strip().rstrip(".").strip().casefold()


Ties = Literal["draw", "first"]
"""How a tie for the most votes is broken: the debate's seeded draw, or the answer given first."""


def count_votes(
    answers: Iterable[str | None], rng: random.Random, ties: Ties = "draw"
) -> tuple[str | None, tuple[Vote, ...], tuple[str, ...]]:
    """``(winner, votes, tied_answers)``; ``tied_answers`` is empty without a tie, which ``ties`` breaks: a seeded
    draw (``draw``) or the tied answer that came first in ``answers`` (``first``)."""
    spelling: dict[str, str] = {}
    counts: Counter[str] = Counter()
    for answer in answers:
        if answer is None or not answer.strip():
            continue
        key = answer_key(answer)
        spelling.setdefault(key, answer.strip())
        counts[key] += 1
    if not counts:
        return None, (), ()
    votes = tuple(
        Vote(answer=spelling[key], count=count)
        for key, count in sorted(counts.items(), key=lambda item: (-item[1], spelling[item[0]]))
    )
    top = votes[0].count
    tied = tuple(vote.answer for vote in votes if vote.count == top)
    if len(tied) == 1:
        return tied[0], votes, ()
    if ties == "first":  # the counter's insertion order is the order the answers came in
        first = next(key for key in counts if counts[key] == top)
        return spelling[first], votes, tied
    return rng.choice(tied), votes, tied


def majority(answers: Sequence[AgentAnswer], rng: random.Random, ties: Ties = "draw") -> FinalDecision:
    """The most supported answer among ``answers`` (see the module docstring for ties)."""
    winner, votes, tie = count_votes((a.answer for a in answers), rng, ties)
    by = None
    if tie and ties == "first" and winner is not None:
        key = answer_key(winner)
        by = next(a.agent for a in answers if a.answer is not None and a.answer.strip() and answer_key(a.answer) == key)
    return FinalDecision(winner, "majority", tuple(answers), votes, tie, decided_by=by)


def consensus(answers: Sequence[AgentAnswer]) -> FinalDecision | None:
    """The answer every one of ``answers`` gives (spelling aside), or None when one differs or is missing."""
    keys = {answer_key(a.answer) if a.answer is not None and a.answer.strip() else None for a in answers}
    if not answers or len(keys) != 1 or None in keys:
        return None
    agreed = (answers[0].answer or "").strip()
    return FinalDecision(agreed, "consensus", tuple(answers), (Vote(answer=agreed, count=len(answers)),))


def single(agent: str, answer: str | None, answers: Sequence[AgentAnswer] = ()) -> FinalDecision:
    """One agent's answer is the debate's answer."""
    return FinalDecision(answer, "single", tuple(answers), decided_by=agent)


def verdict(judge: str, answer: str | None, answers: Sequence[AgentAnswer] = ()) -> FinalDecision:
    """A judge's verdict is the debate's answer."""
    return FinalDecision(answer, "judge", tuple(answers), decided_by=judge)


def is_correct(final_answer: str | None, expected: str | None) -> bool | None:
    """None when the correct answer is unknown; otherwise whether they match."""
    if expected is None:
        return None
    if final_answer is None:
        return False
    if answer_key(final_answer) == answer_key(expected):
        return True
    said, wanted = as_number(final_answer), as_number(expected)
    return said is not None and wanted is not None and said == wanted


_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?")


def as_number(answer: str) -> Decimal | None:
    """A free-form answer that is a number and nothing else, as a number; None otherwise.

    A currency sign, thousands commas and a final period are allowed (``"$1,200."`` is 1200, ``"18.0"``
    is 18); ``"18 apples"`` or ``"18 or 19"`` is no number (never containment).
    """
    text = answer.strip().replace("\u2212", "-").rstrip(".").strip()
    negative = text.startswith("-")
    text = text.lstrip("-").strip().removeprefix("$").strip()
    if not _NUMBER.fullmatch(text):
        return None
    return Decimal(("-" if negative else "") + text.replace(",", ""))
