"""The paper's cost of a HandRaiser debate, folded from its events.

What it does: ``debate_cost(events)`` returns a ``Cost``: every token the
agents generated until the end, counting a speaker's message (a debate's
statement, Text Pictionary's description: ``SPEAKER_KINDS``) that was cut
off only up to the cut (the tokens of its disclosed chunks: a streamed
speaker would have stopped there), likewise one the game ended in the middle
of (a description that revealed the secret), and one token per listener
decision, whatever the policy (the random policy calls no model, yet the
paper charges each decision one token). A message heard out counts the
tokens its generation produced (a person's words count the tokens of what
they said). The listener's own words (the moderator's votes and the
clarifying questions it asks when it waits, the guesser's guesses and
questions) are ``moderator_tokens``: the paper sums "generation tokens from
all agents in the system" (§4.2), the listener's included. It also carries what the paper
does not count but a user pays for: the tokens the backends actually
generated (whole statements, decisions), the prompt tokens computed (not
served from a prefix cache), and the wall time; and the shape of the debate:
statements said, rounds, and the chunk (1-based) of each interruption.

Live view, replay and the study report fold the same events, so they agree.

What it does not do: count tokens itself (the events carry the counts) or
judge success (``DebateEnded.correct`` does).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from debate_core.events.acts import ListenerDecision
from debate_core.events.codec import Event
from debate_core.events.records import Source
from debate_core.events.types import DebateEnded, Interrupted, PhaseStarted, UnitDisclosed, UtteranceGenerated

SPEAKER_KINDS = ("statement", "description")


@dataclass
class _Utterance:
    kind: str
    model: bool
    generated: int
    units: int = 0
    disclosed: int = 0
    disclosed_tokens: int = 0
    cut: bool = False

    def tokens(self, ended: bool) -> int:
        """What the paper counts of it: the whole generation, unless it was cut or the debate ended mid-way."""
        unfinished = ended and 0 < self.disclosed < self.units
        whole = self.model and not self.cut and not unfinished and self.generated
        return self.generated if whole else self.disclosed_tokens


@dataclass(frozen=True)
class Cost:
    """One debate's cost as the paper defines it, and what else it cost (see the module docstring)."""

    statement_tokens: int = 0
    moderator_tokens: int = 0
    decision_tokens: int = 0
    generated_tokens: int = 0
    prompt_tokens_computed: int = 0
    wall_time_s: float = 0.0
    statements: int = 0
    rounds: int = 0
    interrupt_chunks: tuple[int, ...] = field(default=())
    ended: bool = False

    @property
    def total(self) -> int:
        """The paper's cost: speakers' messages up to their cuts, the listener's words, one token per decision."""
        return self.statement_tokens + self.moderator_tokens + self.decision_tokens

    @property
    def interruptions(self) -> int:
        return len(self.interrupt_chunks)


def debate_cost(events: Iterable[Event]) -> Cost:
    """The cost of the debate whose events these are (so far, if it has not ended)."""
    spoken: dict[int, _Utterance] = {}
    decisions = 0
    chunks: list[int] = []
    rounds = 0
    end: DebateEnded | None = None
    for event in events:
        if isinstance(event, UtteranceGenerated):
            model = event.source is Source.MODEL
            generated = event.generation.completion_tokens
            spoken[event.utterance_id] = _Utterance(event.kind, model, generated, len(event.units))
        elif isinstance(event, UnitDisclosed) and event.utterance_id in spoken:
            spoken[event.utterance_id].disclosed += 1
            spoken[event.utterance_id].disclosed_tokens += event.tokens
        elif isinstance(event, Interrupted) and event.utterance_id in spoken:
            spoken[event.utterance_id].cut = True
        elif isinstance(event, ListenerDecision):
            decisions += 1
            if event.interrupt:
                chunks.append(event.unit_index + 1)
        elif isinstance(event, PhaseStarted) and event.phase == "round" and event.round is not None:
            rounds = max(rounds, event.round)
        elif isinstance(event, DebateEnded):
            end = event
    statement = moderator = 0
    for item in spoken.values():
        tokens = item.tokens(end is not None)
        if item.kind in SPEAKER_KINDS:
            statement += tokens
        else:
            moderator += tokens
    stats = end.stats if end is not None else None
    return Cost(
        statement_tokens=statement,
        moderator_tokens=moderator,
        decision_tokens=decisions,
        generated_tokens=stats.generated_tokens if stats else 0,
        prompt_tokens_computed=(stats.prompt_tokens - stats.cached_prompt_tokens) if stats else 0,
        wall_time_s=stats.wall_time_s if stats else 0.0,
        statements=sum(1 for item in spoken.values() if item.kind in SPEAKER_KINDS and item.disclosed_tokens),
        rounds=rounds,
        interrupt_chunks=tuple(chunks),
        ended=end is not None,
    )
