"""The kernel's moves on the floor: who speaks, what is disclosed, cutting off, resuming, revising.

What it does: ``FloorMoves`` is the part of ``Table`` that handles speech
(``Table`` inherits it; protocols call these moves on their table):
``give_floor``; ``say`` (an utterance cut into units by a chunker, holding the
floor; one over ``MAX_UTTERANCE_CHARS`` is cut there first, and the cut
recorded on the event); ``disclose`` (the next unit made public, public tokens counted, the
history line appended, ``UtteranceCompleted`` after the last); ``disclose_rest``
(every queued unit, in one turn or one per turn, with the listeners' moves
between units where a protocol has them);
``silent_turn``; ``cut`` (discard the queue, or suspend it); ``resume``
(continue the queue, or regenerate the rest from a new reply); ``revise``
(replace the undisclosed rest). An utterance generated as it streams
(``streaming``) is disclosed by the same moves: ``disclose_rest`` generates
its next units whenever its queue is empty (``extend``), and ``cut`` and
``revise`` stop its generation, recording the text generated past its last
unit (``unfinished``).

What it does not do: decide who speaks or when (protocols do), or keep the
table's state (``Table`` does).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Literal

from debate_core.backends.router import BackendRouter
from debate_core.events.codec import Event
from debate_core.events.records import Candidate
from debate_core.events.types import (
    Interrupted,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)
from debate_core.kernel.chunkers import Chunker
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import FormResult
from debate_core.kernel.history import HistoryLine, LineKind

MAX_UTTERANCE_CHARS = 20_000
"""An utterance longer than this (about 5,000 tokens, far past any debate's turn) is cut, and the cut recorded."""


class FloorMoves:
    """Speech moves of the table (see the module docstring)."""

    router: BackendRouter
    sentences: Chunker
    turn: int
    public_tokens: int
    silent_streak: int
    history: list[HistoryLine]
    floor: Floor | None
    _utterance_ids: int

    def emit(self, cls: Any, **fields: Any) -> Any:  # provided by Table
        raise NotImplementedError

    def count(self, statistic: str, by: int = 1) -> None:  # provided by Table
        raise NotImplementedError

    def tick(self) -> int:  # provided by Table
        raise NotImplementedError

    def extend(self, floor: Floor) -> Generator[Event, None, None]:  # provided by streaming.StreamMoves
        raise NotImplementedError

    def give_floor(
        self,
        speaker: str,
        *,
        rule: str,
        urgency: int | None = None,
        candidates: tuple[Candidate, ...] = (),
        tie: tuple[str, ...] = (),
        interrupts: str | None = None,
    ) -> SpeakerSelected:
        return self.emit(
            SpeakerSelected,
            speaker=speaker,
            rule=rule,
            urgency=urgency,
            candidates=candidates,
            tie=tie,
            interrupts=interrupts,
        )

    def say(
        self,
        speaker: str,
        reply: FormResult[str],
        *,
        chunker: Chunker,
        interrupting: str | None = None,
        kind: str = "speech",
        role: str | None = None,
        structured: dict[str, Any] | None = None,
    ) -> UtteranceGenerated:
        """The speaker's utterance cut into units; it holds the floor if it has any."""
        text = reply.value or ""
        error = reply.error
        if len(text) > MAX_UTTERANCE_CHARS:
            text = text[:MAX_UTTERANCE_CHARS]
            error = f"the utterance was cut to its first {MAX_UTTERANCE_CHARS:,} characters"
        units = chunker.split(text) if text else ()
        self._utterance_ids += 1
        if text and not units:
            error = "the utterance has nothing to disclose (no letter or digit)"
        if not units and error is None:
            error = reply.note  # why the floor is given back (a person who let it pass)
        if units:
            self.count("utterances")
            self.floor = Floor(speaker, self._utterance_ids, units, interrupting, kind=kind)
        return self.emit(
            UtteranceGenerated,
            speaker=speaker,
            utterance_id=self._utterance_ids,
            text=text,
            units=units,
            interrupting=interrupting,
            source=reply.source,
            error=error,
            raw=reply.raw,
            generation=reply.generation,
            role=role,
            kind=kind,
            structured=structured,
        )

    def disclose(self, floor: Floor | None = None) -> list[UnitDisclosed | UtteranceCompleted]:
        """The floor's next unit made public this turn (and ``UtteranceCompleted`` after the last)."""
        floor = floor or self.floor
        if floor is None or not floor.queued:
            raise RuntimeError("disclose() needs a floor with queued units")
        index = floor.disclosed
        unit = floor.units[index]
        floor.disclosed += 1
        tokens = self.router.count_tokens(unit)
        self.public_tokens += tokens
        self.silent_streak = 0
        self.count("units_disclosed")
        interrupting = floor.interrupting if index == 0 else None
        self.history.append(
            HistoryLine(self.turn, LineKind.SPEECH, floor.speaker, unit, interrupting, finished=floor.done)
        )
        events: list[UnitDisclosed | UtteranceCompleted] = [
            self.emit(
                UnitDisclosed,
                speaker=floor.speaker,
                utterance_id=floor.utterance_id,
                index=index,
                total=len(floor.units),
                text=unit,
                tokens=tokens,
                interrupting=interrupting,
            )
        ]
        if floor.done:
            events.append(self._complete(floor))
        return events

    def disclose_rest(
        self,
        floor: Floor | None = None,
        *,
        one_per_turn: bool = False,
        listen: Callable[[Floor], Generator[Event, None, bool]] | None = None,
    ) -> Generator[Event, None, bool]:
        """Disclose ``floor``'s queued units until the floor is free; whether ``listen`` stopped it.

        ``one_per_turn``: a new turn (``tick``) before every unit but the first. ``listen``: after each
        unit that leaves the floor held (units queued, or a generation going on), what the listeners do (its
        events are yielded) and whether the speaker was cut off (True stops disclosing). A floor that a
        listener suspends and resumes is disclosed on to its end; an utterance generated as it streams is
        generated on (``extend``) whenever nothing is queued; without a floor, or with an empty or suspended
        one, nothing happens.
        """
        floor = floor or self.floor
        first = True
        while floor is not None and floor.held:
            if not floor.queued:
                yield from self.extend(floor)
                continue
            if one_per_turn and not first:
                self.tick()
            first = False
            yield from self.disclose(floor)
            if listen is not None and floor.held and (yield from listen(floor)):
                return True
        return False

    def _complete(self, floor: Floor) -> UtteranceCompleted:
        self.count("completions")
        if self.floor is floor:
            self.floor = None
        return self.emit(
            UtteranceCompleted, speaker=floor.speaker, utterance_id=floor.utterance_id, units=len(floor.units)
        )

    def silent_turn(self) -> SilentTurn:
        """Nobody holds the floor this turn."""
        self.silent_streak += 1
        self.count("silent_turns")
        self.history.append(HistoryLine(turn=self.turn, kind=LineKind.SILENCE))
        return self.emit(SilentTurn, consecutive=self.silent_streak)

    def cut(
        self, by: str, *, keep: Literal["discard", "suspend"] = "discard", floor: Floor | None = None
    ) -> Interrupted:
        """Cut the speaker off: its queue (and generation) is discarded, or suspended until ``resume``."""
        floor = floor or self.floor
        if floor is None or not floor.held:
            raise RuntimeError("cut() needs a floor with queued units")
        self.count("interruptions")
        event = self.emit(
            Interrupted,
            interrupter=by,
            interrupted=floor.speaker,
            utterance_id=floor.utterance_id,
            disclosed_count=floor.disclosed,
            discarded=floor.remaining,
            suspended=keep == "suspend",
            unfinished=floor.pending,
        )
        floor.suspended = keep == "suspend"
        if keep == "discard":
            floor.units = floor.units[: floor.disclosed]
            floor.open, floor.pending, floor.generation = False, "", None
        if self.floor is floor:
            self.floor = None
        return event

    def resume(
        self, floor: Floor, *, reply: FormResult[str] | None = None, chunker: Chunker | None = None
    ) -> list[UtteranceResumed | UtteranceRevised | UtteranceCompleted]:
        """A suspended utterance goes on: its queue as it was, or regenerated from ``reply``."""
        if not floor.suspended:
            raise RuntimeError("resume() needs a suspended floor")
        floor.suspended = False
        self.floor = floor
        self.count("resumptions")
        mode: Literal["continue", "regenerate"] = "continue" if reply is None else "regenerate"
        events: list[UtteranceResumed | UtteranceRevised | UtteranceCompleted] = [
            self.emit(UtteranceResumed, speaker=floor.speaker, utterance_id=floor.utterance_id, mode=mode)
        ]
        if reply is not None:
            events.extend(
                self.revise(floor, reply, chunker=chunker or self.sentences, reason="regenerated on resuming")
            )
        elif floor.done:
            events.append(self._complete(floor))
        return events

    def revise(
        self, floor: Floor, reply: FormResult[str], *, chunker: Chunker, reason: str
    ) -> list[UtteranceRevised | UtteranceCompleted]:
        """Replace the undisclosed rest of ``floor`` (and its generation, if it streams) by ``reply`` cut into units."""
        units = chunker.split(reply.value) if reply.value else ()
        discarded, unfinished = floor.remaining, floor.pending
        floor.units = floor.units[: floor.disclosed] + units
        floor.open, floor.pending, floor.generation = False, "", None
        self.count("revisions")
        events: list[UtteranceRevised | UtteranceCompleted] = [
            self.emit(
                UtteranceRevised,
                speaker=floor.speaker,
                utterance_id=floor.utterance_id,
                discarded=discarded,
                units=units,
                reason=reason,
                unfinished=unfinished,
                **reply.record(),
            )
        ]
        if floor.done and not floor.suspended:
            events.append(self._complete(floor))
        return events
