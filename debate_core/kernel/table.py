"""The table: the running debate that every protocol drives and none re-implements.

What it does: a ``Table`` holds the kernel's state of one debate (turn, public
tokens, the public history, the floor, every agent's current answer, the
statistics) and offers the moves protocols are built from. Each move updates
the state and returns the event(s) to yield:

* ``ask(form, who, view)``: one request kind to several seats; every model
  seat's request goes to its backend in ONE batch per backend, people answer
  through their channels (or time out); invalid replies fall back as the form
  documents (each result says so);
* ``say(speaker, reply, chunker=...)``: an utterance cut into units, holding
  the floor; ``disclose()``: its next unit made public (public tokens
  counted, the history line appended); ``disclose_rest()``: every queued
  unit, one per turn if asked, with the listeners' moves between units;
  ``silent_turn()``;
* ``give_floor``, ``cut(by, keep="discard" | "suspend")``,
  ``resume(floor[, reply])`` (continue the queue, or regenerate the rest),
  ``revise(floor, reply)`` (replace the undisclosed rest);
* ``say_streaming(speaker, Streamed(...))``: an utterance generated as it is
  disclosed, in steps of a few tokens (``disclose_rest`` generates on when
  its queue is empty; ``resume_streaming`` and ``revise_streaming`` replace
  its rest by a new generation);
* ``decide(listeners, floor, policy, view)``: listener yes/no decisions;
  ``intervene``: a point of information or a question;
* ``update_answers``, ``phase``, ``tick`` (next turn), ``finish(reason,
  decision)`` (the ``DebateEnded`` event, with the statistics);
* ``snapshot()`` / ``restore()``: the kernel's state at a moment. To branch a
  debate, run it again with the same configuration (sampling is seeded per
  agent, turn and request kind, so the replay is identical) and ``forced``
  decisions at chosen ``(listener, utterance_id, unit_index)`` points: the
  branch equals the original up to the first forced point. With a
  ``fork_salt``, everything sampled after the last forced point (generations,
  random policies) is seeded differently per salt: several rollouts of one
  branch share the prefix and differ after it (the tree sampler's rollouts).

``stop()`` (from any thread) cancels generations in flight, unblocks people's
seats, and makes the next ``ask`` raise ``DebateStopped``: no model work
starts after a stop. The debate then ends with reason ``stopped``.

A ``Table`` is the ``state.TableState`` that end conditions and policies
read (they import that interface, not this module).

What it does not do: decide anything. Who is asked, what an interruption
leads to, when the debate ends and with which answer: protocols decide, and
call these moves.
"""

from __future__ import annotations

import copy
import dataclasses
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from debate_core.backends.base import CancelToken
from debate_core.backends.router import BackendRouter
from debate_core.config import DebateConfig
from debate_core.errors import DebateError
from debate_core.events.records import AgentAnswer, DebateStats, EndReason
from debate_core.events.types import (
    AnswersUpdated,
    DebateEnded,
    PhaseStarted,
)
from debate_core.kernel.batching import BatchCost, run_batch
from debate_core.kernel.chunkers import Chunker
from debate_core.kernel.endings import FinalDecision, is_correct
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.history import HistoryLine
from debate_core.kernel.listening import ListenerMoves
from debate_core.kernel.seats import Seat
from debate_core.kernel.streaming import StreamMoves

E = TypeVar("E", bound=BaseModel)
T = TypeVar("T")


class DebateStopped(DebateError):
    """Raised inside a protocol's loop when the debate was stopped; the debate then ends ``stopped``."""


class Replies(dict[str, FormResult[T]]):
    """The seats' results of one ``ask``, by agent, and how long the step took."""

    latency_s: float = 0.0


@dataclass(frozen=True)
class TableSnapshot:
    """The kernel's state at one moment (protocols keep their own state)."""

    turn: int
    public_tokens: int
    history: tuple[HistoryLine, ...]
    floor: Floor | None
    answers: Mapping[str, str | None]
    stats: Mapping[str, Any]
    cost: BatchCost
    seq: int
    utterance_ids: int
    silent_streak: int
    rng_state: Any


class Table(StreamMoves, ListenerMoves):
    """The kernel's state of one debate, and the moves protocols make on it (speech: ``speech``, speech
    generated as it streams: ``streaming``, listening: ``listening``)."""

    def __init__(
        self,
        config: DebateConfig,
        router: BackendRouter,
        seats: Mapping[str, Seat],
        *,
        debate_id: str,
        sentences: Chunker,
        roles: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.time,
        forced: Mapping[tuple[str, int, int], bool] | None = None,
        fork_salt: int = 0,
    ) -> None:
        self.config = config
        self.router = router
        self.seats = dict(seats)
        self.debate_id = debate_id
        self.sentences = sentences
        self.roles = dict(roles or {})
        self.forced = dict(forced or {})
        self.forced_left = set(self.forced)
        self.fork_salt = fork_salt
        self.names = config.agent_names
        self.rng = random.Random(config.seed)
        self.turn = 0
        self.public_tokens = 0
        self.silent_streak = 0
        self.history: list[HistoryLine] = []
        self.floor: Floor | None = None
        self.answers: dict[str, str | None] = {name: None for name in self.names}
        self.stats: dict[str, Any] = DebateStats().model_dump()
        self.cost = BatchCost()
        self.cancel = CancelToken()
        self._clock = clock
        self._stop = threading.Event()
        self._seq = 0
        self._utterance_ids = 0
        self._t0 = time.perf_counter()

    # -- who is at the table ---------------------------------------------------------------
    def role_of(self, agent: str) -> str | None:
        return self.roles.get(agent)

    def with_role(self, role: str) -> tuple[str, ...]:
        """The agents holding ``role``, in seat order."""
        return tuple(name for name in self.names if self.roles.get(name) == role)

    @property
    def holder(self) -> Floor | None:
        """The floor while its speaker still has queued units, else None."""
        return self.floor if self.floor is not None and self.floor.held else None

    @property
    def last_line(self) -> HistoryLine | None:
        return self.history[-1] if self.history else None

    @property
    def salt(self) -> int:
        """The fork salt once every forced decision has been taken (0 before, and without forcing)."""
        return self.fork_salt if self.forced and not self.forced_left else 0

    # -- stopping ----------------------------------------------------------------------------
    def stop(self) -> None:
        """Stop the debate (thread-safe): cancel generations in flight, unblock waiting people."""
        self._stop.set()
        self.cancel.cancel()
        for seat in self.seats.values():
            seat.cancel()

    @property
    def stop_requested(self) -> bool:
        return self._stop.is_set()

    # -- events --------------------------------------------------------------------------------
    def emit(self, cls: type[E], **fields: Any) -> E:
        """An event of ``cls`` stamped with the next seq, the turn, the public tokens and the time."""
        event = cls(
            seq=self._seq, turn=self.turn, public_tokens=self.public_tokens, at=round(self._clock(), 6), **fields
        )
        self._seq += 1
        return event

    def count(self, statistic: str, by: int = 1) -> None:
        """Add to one of the debate's statistics (``DebateStats`` names them)."""
        self.stats[statistic] += by

    # -- asking -----------------------------------------------------------------------------------
    def ask(self, form: Form[Any, T], who: Sequence[str], view: Callable[[str], Any], *, nonce: int = 0) -> Replies[T]:
        """Ask ``who`` one request kind: one backend batch for the model seats, people in parallel."""
        if self.stop_requested:
            raise DebateStopped("the debate was stopped")
        views = {name: view(name) for name in who}
        nonce += self.salt * 15_485_863
        started = time.perf_counter()
        results = run_batch(
            lambda name: self.router.backend_for(name, self.roles.get(name)),
            list(who),
            lambda name: self.seats[name].ask(form, views[name], turn=self.turn, nonce=nonce, cancel=self.cancel),
            lambda name, done: self.seats[name].receive(form, views[name], done),
            self.cost,
        )
        replies: Replies[T] = Replies(results)
        replies.latency_s = time.perf_counter() - started
        if any(r.completion is not None and r.completion.finish_reason == "cancelled" for r in replies.values()):
            raise DebateStopped("the debate was stopped during a generation")
        return replies

    # -- answers, phases, turns, the end -------------------------------------------------------------
    def answer_list(self, carried: Sequence[str] = ()) -> tuple[AgentAnswer, ...]:
        """Every agent's current answer; those in ``carried`` kept it from before."""
        return tuple(AgentAnswer(agent=n, answer=self.answers[n], carried=n in carried) for n in self.names)

    def update_answers(self, updates: Mapping[str, str | None], cause: str) -> AnswersUpdated:
        self.answers.update(updates)
        return self.emit(AnswersUpdated, answers=self.answer_list(), cause=cause)

    def phase(self, name: str, round: int | None = None, detail: str = "") -> PhaseStarted:
        return self.emit(PhaseStarted, phase=name, round=round, detail=detail)

    def tick(self) -> int:
        """The next turn begins."""
        self.turn += 1
        return self.turn

    def finish(
        self,
        reason: EndReason,
        decision: FinalDecision,
        *,
        error: str | None = None,
        score: Callable[[str | None, str | None], bool | None] = is_correct,
    ) -> DebateEnded:
        """The ``DebateEnded`` event: the decision, what was left unsaid, and the statistics."""
        holder = self.holder
        self.stats.update(dataclasses.asdict(self.cost))
        self.stats["turns"] = self.turn
        self.stats["wall_time_s"] = round(time.perf_counter() - self._t0, 6)
        return self.emit(
            DebateEnded,
            reason=reason,
            final_answer=decision.answer,
            votes=decision.votes,
            answers=decision.answers,
            tie=decision.tie,
            correct=score(decision.answer, self.config.question.answer),
            undisclosed=holder.remaining if holder else (),
            error=error,
            stats=DebateStats(**self.stats),
            rule=decision.rule,
            decided_by=decision.decided_by,
        )

    # -- branching ------------------------------------------------------------------------------------
    def snapshot(self) -> TableSnapshot:
        return TableSnapshot(
            turn=self.turn,
            public_tokens=self.public_tokens,
            history=tuple(self.history),
            floor=copy.copy(self.floor),
            answers=dict(self.answers),
            stats=dict(self.stats),
            cost=copy.copy(self.cost),
            seq=self._seq,
            utterance_ids=self._utterance_ids,
            silent_streak=self.silent_streak,
            rng_state=self.rng.getstate(),
        )

    def restore(self, snapshot: TableSnapshot) -> None:
        self.turn, self.public_tokens = snapshot.turn, snapshot.public_tokens
        self.history = list(snapshot.history)
        self.floor = copy.copy(snapshot.floor)
        self.answers, self.stats = dict(snapshot.answers), dict(snapshot.stats)
        self.cost = copy.copy(snapshot.cost)
        self._seq, self._utterance_ids = snapshot.seq, snapshot.utterance_ids
        self.silent_streak = snapshot.silent_streak
        self.rng.setstate(snapshot.rng_state)
