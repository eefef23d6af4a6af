"""The evaluation's numbers, computed from a debate's events (Sections IV-D and VI).

What it does:

* ``intermediate_answers`` lists every agent's answer at each turn's plans
  (or, for protocols without plans, each time the answers are updated),
  against the public tokens used (the trajectories of Figures 1-8);
* ``effects`` finds the interruption and completion events of a debate and
  classifies each as improved / worsened / unchanged exactly as Section VI-B
  defines them:

  - an **interruption** is an ``Interrupted`` event; its speaker is the
    interrupter; answers *before* are those of the plans that chose the
    interrupter (just before the speaker change); answers *after* are those
    of the plans made when the interrupter's own utterance ended (completed,
    cut off in turn, or cut by the end of the debate);
  - a **completion** is an utterance disclosed to its end
    (``UtteranceCompleted``); *before* is the plans that gave its speaker the
    floor, *after* the plans made once its last unit was public;
  - events where all agents were correct, or all incorrect, just before are
    **excluded**;
  - **improved**: the speaker was correct before and at least one listener
    went from incorrect to correct; **worsened**: the speaker was incorrect
    before and at least one listener went from correct to incorrect;
    otherwise **unchanged**;

* ``token_bin`` puts an event's public-token count into 50-token bins (Fig. 9).

``EffectsFold`` is the event consumer behind ``effects``: it handles every
event type it needs and ignores the others explicitly (a suspended
interruption, a point of information, is not one of Section VI-B's
interruptions).

What it does not do: read the store or draw figures; an accuracy with its interval is the harness's
(``experiments.accuracy``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from debate_core.events import (
    AnswersUpdated,
    DebateEnded,
    Event,
    Interrupted,
    PlansMade,
    SpeakerSelected,
    UtteranceCompleted,
    UtteranceGenerated,
)
from debate_core.events.fold import EventFold

BIN_WIDTH = 50


def intermediate_answers(events: Sequence[Event]) -> list[tuple[int, int, dict[str, str | None]]]:
    """``(turn, public_tokens, {agent: answer})`` at every turn's plans (or answer update)."""
    return [
        (e.turn, e.public_tokens, {a.agent: a.answer for a in e.answers})
        for e in events
        if isinstance(e, PlansMade | AnswersUpdated)
    ]


class Kind(StrEnum):
    INTERRUPTION = "interruption"
    COMPLETION = "completion"


class Outcome(StrEnum):
    IMPROVED = "improved"
    WORSENED = "worsened"
    UNCHANGED = "unchanged"
    EXCLUDED = "excluded"


@dataclass(frozen=True)
class Effect:
    kind: Kind
    speaker: str
    turn: int
    public_tokens: int
    before: dict[str, str | None]
    after: dict[str, str | None]
    speaker_correct: bool
    outcome: Outcome


def classify(
    speaker: str, before: dict[str, str | None], after: dict[str, str | None], correct: str
) -> tuple[bool, Outcome]:
    right_before = {agent: answer == correct for agent, answer in before.items()}
    speaker_correct = right_before[speaker]
    if all(right_before.values()) or not any(right_before.values()):
        return speaker_correct, Outcome.EXCLUDED
    listeners = [agent for agent in before if agent != speaker]
    if speaker_correct and any(not right_before[a] and after.get(a) == correct for a in listeners):
        return True, Outcome.IMPROVED
    if not speaker_correct and any(right_before[a] and after.get(a) != correct for a in listeners):
        return False, Outcome.WORSENED
    return speaker_correct, Outcome.UNCHANGED


class EffectsFold(EventFold):
    """Collects what ``effects`` needs from a debate's events, in one pass."""

    IGNORED = frozenset(
        {
            "debate_started",
            "phase_started",
            "initial_answers",
            "unit_disclosed",
            "silent_turn",
            "utterance_resumed",
            "utterance_revised",
            "utterance_extended",
            "listener_decision",
            "intervention",
            "signals_measured",
        }
    )
    # A protocol plugin's own event types say nothing about Section VI-B's effects.
    PLUGIN_EVENTS = "default"

    def default_for_plugin_event(self, event: Event) -> None:
        return None

    def __init__(self) -> None:
        self.plans_at: dict[int, dict[str, str | None]] = {}
        self.selected_at: dict[int, int] = {}  # utterance id -> turn it was granted the floor
        self.speaker_of: dict[int, str] = {}
        self.ended_at: dict[int, int] = {}  # utterance id -> turn its speaking ended
        self.interruptions: list[Interrupted] = []
        self.completions: list[UtteranceCompleted] = []
        self.pending_selection: int | None = None
        self.last_turn = 0

    def add(self, event: Event) -> None:
        self.last_turn = event.turn
        self.dispatch(event)

    def _plans_made(self, event: PlansMade) -> None:
        self.plans_at[event.turn] = {a.agent: a.answer for a in event.answers}

    def _answers_updated(self, event: AnswersUpdated) -> None:
        self.plans_at[event.turn] = {a.agent: a.answer for a in event.answers}

    def _speaker_selected(self, event: SpeakerSelected) -> None:
        self.pending_selection = event.turn

    def _utterance_generated(self, event: UtteranceGenerated) -> None:
        self.speaker_of[event.utterance_id] = event.speaker
        self.selected_at[event.utterance_id] = (
            self.pending_selection if self.pending_selection is not None else event.turn
        )

    def _interrupted(self, event: Interrupted) -> None:
        if event.suspended:
            return
        self.interruptions.append(event)
        self.ended_at[event.utterance_id] = event.turn

    def _utterance_completed(self, event: UtteranceCompleted) -> None:
        self.completions.append(event)
        self.ended_at[event.utterance_id] = event.turn

    def _debate_ended(self, event: DebateEnded) -> None:
        for utterance_id in self.speaker_of:
            self.ended_at.setdefault(utterance_id, event.turn)


def effects(events: Sequence[Event], correct: str) -> list[Effect]:
    """Every interruption and completion of a debate, classified (Section VI-B)."""
    fold = EffectsFold()
    for event in events:
        fold.add(event)
    plans_at, selected_at, speaker_of, ended_at = fold.plans_at, fold.selected_at, fold.speaker_of, fold.ended_at
    found: list[Effect] = []
    for cut in fold.interruptions:
        own = next(
            (uid for uid, turn in selected_at.items() if speaker_of[uid] == cut.interrupter and turn == cut.turn), None
        )
        if own is None or cut.turn not in plans_at:
            continue
        after_turn = ended_at.get(own, fold.last_turn)
        before, after = plans_at[cut.turn], plans_at.get(after_turn, plans_at[max(plans_at)])
        speaker_correct, outcome = classify(cut.interrupter, before, after, correct)
        found.append(
            Effect(
                Kind.INTERRUPTION, cut.interrupter, cut.turn, cut.public_tokens, before, after, speaker_correct, outcome
            )
        )
    for done in fold.completions:
        start = selected_at.get(done.utterance_id)
        if start is None or start not in plans_at or done.turn not in plans_at:
            continue
        before, after = plans_at[start], plans_at[done.turn]
        speaker_correct, outcome = classify(done.speaker, before, after, correct)
        found.append(
            Effect(Kind.COMPLETION, done.speaker, start, done.public_tokens, before, after, speaker_correct, outcome)
        )
    return sorted(found, key=lambda effect: (effect.turn, effect.kind.value))


def token_bin(public_tokens: int, width: int = BIN_WIDTH) -> tuple[int, int]:
    """The bin ``[low, high]`` of a token count: 0-49, 50-99, ..."""
    low = (public_tokens // width) * width
    return low, low + width - 1
