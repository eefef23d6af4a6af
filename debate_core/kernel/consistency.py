"""What can have happened: a fold over a recorded event stream that names the first impossible event.

What it does: ``StreamChecker(started, rules)`` takes a debate's events one at
a time (``feed``) and raises ``ImpossibleEvent`` (its seq, its type and why)
at the first one the kernel's moves cannot have produced. The kernel is the
only thing that moves the floor and the counts, so every protocol's stream
obeys its rules:

* every agent an event names (nested answers, plans, candidates and ties
  included) is one of the debate's agents;
* public tokens move only when a unit is disclosed, by that unit's tokens,
  and a unit has at most ``MAX_TOKENS_PER_BYTE`` tokens per byte of its text
  (plus as many again): one token per byte is the most a byte-level
  tokenizer gives; turns never go back;
* utterances are numbered 1, 2, 3, ...; their units are non-empty pieces of
  their text, in order; a unit is disclosed by its utterance's speaker, while
  the utterance holds the floor (not suspended, cut off or completed), once,
  in order, with the text that was generated (or revised in); an utterance
  generated as it streams is extended only while its generation goes on;
  an utterance completes after its last unit (and the end of its
  generation), is cut off with exactly its undisclosed units, resumed only
  when suspended, revised only while it is not over;
* listener decisions and interventions follow the unit they name (the last
  one disclosed); silent turns count up from the last disclosure;
* answers updated name every agent once, in seat order; every answer to a
  multiple-choice question is an option label (or none);
* the end: the final answer is an option (or none), ``correct`` is what
  ``is_correct`` says of it, a majority's votes recount the answers and the
  final answer has the most of them (a tie that went to the answer given
  first names the agent who gave it first), a single agent's or a judge's answer is
  that agent's, the undisclosed units are the floor's, an error is given
  exactly when the debate ended on one, and the statistics count what the
  stream shows (turns, utterances, units, interruptions, completions,
  silent turns, decisions, interventions, resumptions, revisions).

A protocol adds its own rules (who may speak, what ends it) through a
``StreamRules`` (see ``Protocol.stream_rules`` and ``stream_rules``, which
also holds the state they read and ``RoleRules``, the common rules as data):
``rules.begin(config)`` checks the set-up, ``rules.check(event, stream)``
sees each later event after the kernel's checks pass and before the state
takes it in.

What it does not do: resolve the protocol (``protocols.consistency`` does,
from the ``DebateStarted`` configuration), validate shapes and values (the
event models do), or check what cannot be recounted from the stream (model
calls, prompt tokens, wall time).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from debate_core.errors import ImpossibleEvent
from debate_core.events.acts import Intervention, ListenerDecision
from debate_core.events.codec import Event
from debate_core.events.records import AgentAnswer, EndReason
from debate_core.events.types import (
    AnswersUpdated,
    DebateEnded,
    DebateStarted,
    InitialAnswersGiven,
    Interrupted,
    PlansMade,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)
from debate_core.kernel.endings import answer_key, is_correct
from debate_core.kernel.speech import MAX_UTTERANCE_CHARS
from debate_core.kernel.stream_rules import FRAME, RoleRules, StreamRules, StreamState, Utterance

__all__ = ["FRAME", "MAX_TOKENS_PER_BYTE", "RoleRules", "StreamChecker", "StreamRules", "StreamState", "Utterance"]

MAX_TOKENS_PER_BYTE = 4
"""A unit's tokens are at most this many per byte of its UTF-8 text, plus this many (room for normalising
tokenizers; a byte-level tokenizer gives at most one per byte)."""

_NAMING = ("speaker", "interrupter", "interrupted", "listener", "author", "target", "agent", "analyst")
_NAMING_OR_NONE = ("interrupting", "interrupts", "floor_holder", "decided_by")
_STATISTICS = (
    "utterances",
    "units_disclosed",
    "interruptions",
    "completions",
    "silent_turns",
    "decisions",
    "interventions",
    "resumptions",
    "revisions",
)


class StreamChecker:
    """Feed a debate's events in order; ``ImpossibleEvent`` names the first that cannot have happened."""

    def __init__(self, started: DebateStarted, rules: StreamRules | None = None) -> None:
        self.rules = rules or StreamRules()
        self.state = StreamState(started.config, started)
        self._agents = frozenset(started.config.agent_names)
        self._labels = started.config.question.labels
        self._fed = 0

    def check(self, events: Iterable[Event]) -> None:
        """Feed every event (the first must be the ``DebateStarted`` given)."""
        for event in events:
            self.feed(event)

    def feed(self, event: Event) -> None:
        if not self._fed:
            why = self._why_start(event)
        else:
            why = self._why(event)
            if why is None:
                why = self.rules.check(event, self.state)
        if why is not None:
            raise ImpossibleEvent(event.seq, event.type, why)
        self._take(event)
        self._fed += 1

    # -- the kernel's rules ------------------------------------------------------------------------------
    def _why_start(self, event: Event) -> str | None:
        if not isinstance(event, DebateStarted):
            return f"a debate begins with debate_started, not {event.type}"
        if event.turn or event.public_tokens:
            return "a debate begins at turn 0 with no public tokens"
        return self.rules.begin(event.config)

    def _why(self, event: Event) -> str | None:
        state, previous = self.state, self.state.previous
        if isinstance(event, DebateStarted):
            return "a debate starts once"
        if isinstance(previous, DebateEnded):
            return "the debate had already ended"
        why = self._names(event)
        if why is not None:
            return why
        if event.turn < previous.turn:
            return f"turn {event.turn} comes after turn {previous.turn}"
        gained = event.tokens if isinstance(event, UnitDisclosed) else 0
        if event.public_tokens != previous.public_tokens + gained:
            moved = "" if not gained else f" + {gained} disclosed"
            return f"public tokens go from {previous.public_tokens}{moved} to {event.public_tokens}"
        why = self._answers(event)
        if why is not None:
            return why
        if isinstance(event, UtteranceGenerated):
            return self._generated(event)
        if isinstance(event, UnitDisclosed):
            return self._disclosed(event)
        if isinstance(event, UtteranceCompleted | Interrupted | UtteranceResumed | UtteranceRevised):
            return self._floor_move(event)
        if isinstance(event, UtteranceExtended):
            return self._extended(event)
        if isinstance(event, ListenerDecision | Intervention):
            return self._after_unit(event)
        if isinstance(event, SilentTurn) and event.consecutive != state.silent_streak + 1:
            return f"silent turn {event.consecutive} in a row follows {state.silent_streak}"
        if isinstance(event, DebateEnded):
            return self._ended(event)
        return None

    def _names(self, event: Event) -> str | None:
        named: list[str] = []
        for name in _NAMING:
            value = getattr(event, name, None)
            if isinstance(value, str):
                named.append(value)
        for name in _NAMING_OR_NONE:
            value = getattr(event, name, None)
            if isinstance(value, str):
                named.append(value)
        for name in ("answers", "plans", "candidates"):
            named.extend(item.agent for item in getattr(event, name, ()) if hasattr(item, "agent"))
        if isinstance(event, SpeakerSelected):
            named.extend(event.tie)
        stranger = next((who for who in named if who not in self._agents), None)
        return None if stranger is None else f"it names {stranger!r}, who is not one of the debate's agents"

    def _answers(self, event: Event) -> str | None:
        lists: list[tuple[AgentAnswer, ...]] = []
        if isinstance(event, AnswersUpdated | PlansMade):
            lists.append(event.answers)
            if tuple(a.agent for a in event.answers) != self.state.agents:
                return "its answers do not list every agent once, in seat order"
        answers: list[str | None] = [a.answer for items in lists for a in items]
        if isinstance(event, InitialAnswersGiven):
            agents = [a.agent for a in event.answers]
            if len(set(agents)) != len(agents):
                return "an agent gives two initial answers"
            answers.extend(a.answer for a in event.answers)
        if isinstance(event, PlansMade):
            agents = [p.agent for p in event.plans]
            if len(set(agents)) != len(agents):
                return "an agent makes two plans in one turn"
            answers.extend(p.plan.answer for p in event.plans)
        if isinstance(event, DebateEnded):
            answers.extend(a.answer for a in event.answers)
        if self._labels:
            wrong = next((a for a in answers if a is not None and a not in self._labels), None)
            if wrong is not None:
                return f"the answer {wrong[:80]!r} is not one of the options {', '.join(self._labels)}"
        return None

    def _generated(self, event: UtteranceGenerated) -> str | None:
        expected = len(self.state.utterances) + 1
        if event.utterance_id != expected:
            return f"utterance {event.utterance_id} is generated where utterance {expected} comes next"
        if len(event.text) > MAX_UTTERANCE_CHARS:
            return f"an utterance of {len(event.text):,} characters (the kernel cuts at {MAX_UTTERANCE_CHARS:,})"
        start = 0
        for index, unit in enumerate(event.units):
            found = event.text.find(unit.strip(), start) if unit.strip() else -1
            if found < 0:
                return f"unit {index} is not the next part of the utterance's text"
            start = found + len(unit.strip())
        return None

    def _utterance(self, utterance_id: int, speaker: str | None) -> tuple[Utterance | None, str | None]:
        utterance = self.state.utterances.get(utterance_id)
        if utterance is None:
            return None, f"utterance {utterance_id} was never generated"
        if speaker is not None and speaker != utterance.speaker:
            return None, f"utterance {utterance_id} is {utterance.speaker}'s, not {speaker}'s"
        return utterance, None

    def _disclosed(self, event: UnitDisclosed) -> str | None:
        utterance, why = self._utterance(event.utterance_id, event.speaker)
        if utterance is None:
            return why
        if utterance.over or utterance.suspended:
            state = "completed" if utterance.completed else "cut off" if utterance.cut else "suspended"
            return f"utterance {event.utterance_id} no longer holds the floor (it was {state})"
        if event.index != utterance.disclosed:
            number, next_unit = event.utterance_id, utterance.disclosed
            return f"unit {event.index} of utterance {number} is disclosed where unit {next_unit} comes next"
        if event.total != len(utterance.units):
            return f"utterance {event.utterance_id} has {len(utterance.units)} units, not {event.total}"
        if event.text != utterance.units[event.index]:
            return f"unit {event.index} of utterance {event.utterance_id} is not the text that was generated"
        expected = utterance.interrupting if event.index == 0 else None
        if event.interrupting != expected:
            return f"unit {event.index} of utterance {event.utterance_id} does not interrupt as its utterance does"
        ceiling = MAX_TOKENS_PER_BYTE * (len(event.text.encode("utf-8", "surrogatepass")) + 1)
        if event.tokens > ceiling:
            return f"{event.tokens:,} tokens for a unit of {len(event.text):,} characters"
        return None

    def _floor_move(self, event: UtteranceCompleted | Interrupted | UtteranceResumed | UtteranceRevised) -> str | None:
        speaker = event.interrupted if isinstance(event, Interrupted) else event.speaker
        utterance, why = self._utterance(event.utterance_id, speaker)
        if utterance is None:
            return why
        number = event.utterance_id
        if isinstance(event, UtteranceCompleted):
            if utterance.over or utterance.suspended or utterance.disclosed != len(utterance.units):
                return f"utterance {number} is not fully disclosed, or already over"
            if utterance.streaming:
                return f"utterance {number} is still being generated"
            if event.units != len(utterance.units):
                return f"utterance {number} has {len(utterance.units)} units, not {event.units}"
        elif isinstance(event, Interrupted):
            if not utterance.held:
                return f"utterance {number} does not hold the floor"
            if event.disclosed_count != utterance.disclosed or event.discarded != utterance.remaining:
                return f"what is cut off is not utterance {number}'s undisclosed units"
        elif isinstance(event, UtteranceResumed):
            if not utterance.suspended:
                return f"utterance {number} was not suspended"
        elif utterance.over:
            return f"utterance {number} is already over"
        elif event.discarded != utterance.remaining:
            return f"what is discarded is not utterance {number}'s undisclosed units"
        return None

    def _extended(self, event: UtteranceExtended) -> str | None:
        utterance, why = self._utterance(event.utterance_id, event.speaker)
        if utterance is None:
            return why
        if utterance.over or not utterance.streaming:
            return f"utterance {event.utterance_id} is not being generated"
        if any(not unit.strip() for unit in event.units):
            return f"utterance {event.utterance_id} is extended by an empty unit"
        return None

    def _after_unit(self, event: ListenerDecision | Intervention) -> str | None:
        if event.utterance_id is None:
            return None if event.unit_index is None else "it names a unit of no utterance"
        speaker = event.speaker if isinstance(event, ListenerDecision) else None
        utterance, why = self._utterance(event.utterance_id, speaker)
        if utterance is None:
            return why
        if event.unit_index != utterance.disclosed - 1:
            return f"unit {event.unit_index} of utterance {event.utterance_id} is not the last one disclosed"
        return None

    def _ended(self, event: DebateEnded) -> str | None:
        state, question = self.state, self.state.config.question
        if self._labels and event.final_answer is not None and event.final_answer not in self._labels:
            return f"the final answer {event.final_answer[:80]!r} is not one of the options"
        if event.correct != is_correct(event.final_answer, question.answer):
            return f"correct is {event.correct}, but the final answer {event.final_answer!r} scores otherwise"
        why = self._decision(event)
        if why is not None:
            return why
        holder = state.holder
        if event.undisclosed != (holder.remaining if holder is not None else ()):
            return "its undisclosed units are not what the floor still held"
        if (event.reason is EndReason.ERROR) != (event.error is not None):
            return "an error is given exactly when a debate ends on one"
        stats = event.stats
        if stats.turns != event.turn:
            return f"its statistics count {stats.turns} turns, the stream {event.turn}"
        for name in _STATISTICS:
            if getattr(stats, name) != state.counts[name]:
                return f"its statistics count {getattr(stats, name)} {name}, the stream {state.counts[name]}"
        return None

    def _decision(self, event: DebateEnded) -> str | None:
        final = event.final_answer
        if event.rule == "majority":
            counts = Counter(answer_key(a.answer) for a in event.answers if a.answer is not None and a.answer.strip())
            votes = Counter({answer_key(v.answer): v.count for v in event.votes})
            if counts != votes or len(votes) != len(event.votes):
                return "its votes do not count its answers"
            top = max(counts.values(), default=0)
            leaders = {key for key, count in counts.items() if count == top}
            if (final is None) != (not leaders) or (final is not None and answer_key(final) not in leaders):
                return f"the final answer {final!r} does not have the most votes"
            if {answer_key(t) for t in event.tie} != (leaders if len(leaders) > 1 else set()):
                return "its tie is not the answers that share the most votes"
            if event.decided_by is not None:  # a tie that went to the answer given first (ties="first")
                voted = [a for a in event.answers if a.answer is not None and a.answer.strip()]
                first = next((a for a in voted if answer_key(a.answer or "") in leaders), None)
                if not event.tie or first is None or first.agent != event.decided_by:
                    return f"a majority decided by {event.decided_by} is no tie that went to the first tied answer"
        elif event.rule in ("single", "judge"):
            if event.decided_by is None:
                return f"a {event.rule} decision names no agent"
            given = [a.answer for a in event.answers if a.agent == event.decided_by]
            if given and given[0] != final:
                return f"the final answer {final!r} is not {event.decided_by}'s answer {given[0]!r}"
        return None

    # -- taking an event in ------------------------------------------------------------------------------
    def _take(self, event: Event) -> None:
        state = self.state
        state.previous = event
        if isinstance(event, UtteranceGenerated):
            utterance = Utterance(event.speaker, event.utterance_id, event.units, event.interrupting)
            utterance.streaming = event.streaming
            state.utterances[event.utterance_id] = utterance
            if event.units:
                state.counts["utterances"] += 1
                state.floor = utterance
        elif isinstance(event, UtteranceExtended):
            utterance = state.utterances[event.utterance_id]
            utterance.units += event.units
            utterance.streaming = not event.ended
        elif isinstance(event, UnitDisclosed):
            state.utterances[event.utterance_id].disclosed += 1
            state.silent_streak = 0
            state.counts["units_disclosed"] += 1
        elif isinstance(event, UtteranceCompleted):
            self._over(state.utterances[event.utterance_id], completed=True)
            state.counts["completions"] += 1
        elif isinstance(event, Interrupted):
            utterance = state.utterances[event.utterance_id]
            if event.suspended:
                utterance.suspended = True
                if state.floor is utterance:
                    state.floor = None
            else:
                utterance.units = utterance.units[: utterance.disclosed]
                utterance.streaming = False
                self._over(utterance, completed=False)
            state.counts["interruptions"] += 1
        elif isinstance(event, UtteranceResumed):
            utterance = state.utterances[event.utterance_id]
            utterance.suspended = False
            state.floor = utterance
            state.counts["resumptions"] += 1
        elif isinstance(event, UtteranceRevised):
            utterance = state.utterances[event.utterance_id]
            utterance.units = utterance.units[: utterance.disclosed] + event.units
            utterance.streaming = event.streaming
            state.counts["revisions"] += 1
        elif isinstance(event, SilentTurn):
            state.silent_streak += 1
            state.counts["silent_turns"] += 1
        elif isinstance(event, ListenerDecision):
            state.counts["decisions"] += 1
        elif isinstance(event, Intervention):
            state.counts["interventions"] += 1
        if isinstance(event, AnswersUpdated | PlansMade):
            state.answers.update((a.agent, a.answer) for a in event.answers)

    def _over(self, utterance: Utterance, *, completed: bool) -> None:
        utterance.completed, utterance.cut = completed, not completed
        if self.state.floor is utterance:
            self.state.floor = None
