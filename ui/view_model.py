"""What the page shows, folded from a debate's events: one model for live view and replay.

What it does: ``DebateView.from_events(events)`` (or ``apply(event)`` one at a
time) turns the engine's events into plain data the renderers draw: the
agents (with their roles) and their colours, the transcript as lines (each
utterance with its disclosed units, its discarded ones, whether it was cut
off, suspended, resumed or revised, and where a unit ends inside a word, so
token chunks are drawn as the text had them; silent turns; phases; points of
information and questions), every agent's latest plan and structured reply,
the urgency history, listener decisions with their probabilities, the answer
trajectories against public tokens, the answers after each round
(``rounds``, from ``AnswersUpdated`` whose cause is ``round N``; a round
answered in steps keeps its latest answers), every agent's signals
(``gauges``, each with the latest phase's round), the budget, and the
result. A live session and a replay feed the very same events through the
very same fold: every built-in event type is handled or ignored explicitly
(``EventFold``); a protocol's own events go to the fold its web plugin
registered (``web_plugins.fold_for``: ACE's analyses and acts, SID's
compressions fill the slots kept here for them), and an event nobody folds
becomes a transcript line drawn by its plugin's renderer or generically.

What it does not do: produce HTML or figures (``render`` and ``charts`` do),
talk to Gradio, or know any protocol's reply shapes (their ``web`` modules do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from debate_core.events import (
    AnswersUpdated,
    DebateEnded,
    DebateStarted,
    Event,
    InitialAnswersGiven,
    Interrupted,
    Intervention,
    ListenerDecision,
    PhaseStarted,
    PlanRecord,
    PlansMade,
    SignalsMeasured,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)
from debate_core.events.fold import EventFold
from debate_core.kernel.chunkers import unit_spans
from debate_core.protocols.registry import uses_budget
from ui import web_plugins

PALETTE = ("#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#dc2626")


@dataclass
class Utterance:
    """One utterance as the audience has seen it so far."""

    id: int
    speaker: str
    turn: int
    kind: str = "speech"
    disclosed: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    interrupting: str | None = None
    interrupted_by: str | None = None
    suspended: bool = False
    resumed: int = 0
    revised: int = 0
    completed: bool = False
    total: int = 0
    error: str | None = None
    checks: dict[int, list[str]] = field(default_factory=dict)  # unit index -> listeners' private decisions
    gaps: list[str] = field(default_factory=list)  # unit index -> what follows it in the text: " ", or "" mid-word

    def gap(self, index: int) -> str:
        """What follows unit ``index`` on the page: nothing where it ends mid-word (a token chunk), a line break
        ("\\n") where the text broke the line, else a space."""
        return self.gaps[index] if 0 <= index < len(self.gaps) else " "


def unit_gaps(text: str, units: tuple[str, ...] | list[str]) -> list[str]:
    """For each unit, what follows it in the text: a space, "\\n" where the whitespace after it breaks the line
    (ACE's one item per line), or "" where it ends mid-word (a token chunk); a space where the text ends.

    Units are stripped pieces of ``text`` in order; a unit that is not found (a person's edited words) gets a space.
    """
    gaps = []
    for span in unit_spans(text, units):
        end = span[1] if span is not None else None
        if end is None or end >= len(text):
            gaps.append(" ")
        elif not text[end].isspace():
            gaps.append("")
        else:
            rest = text[end:]
            gaps.append("\n" if "\n" in rest[: len(rest) - len(rest.lstrip())] and rest.strip() else " ")
    return gaps


@dataclass(frozen=True)
class Pick:
    """An agent's pick of the final answer before the debate ends (None: no usable pick), from a protocol's fold."""

    agent: str
    answer: str | None


@dataclass
class Line:
    """A transcript entry: an utterance, a silent turn, a phase, an intervention, or a protocol's event.

    A protocol's event (``event``) is drawn by the renderer its plugin registered for the event's type
    (``web_plugins.line_renderer``), else generically. ``analysis`` and ``acts`` are the slots a protocol's
    fold fills for an analysis (with ``compared``: each agent's latest structured reply when it was made, so
    it is drawn against what the analyst saw) and for the acts every agent composed in one round.
    """

    turn: int
    utterance: Utterance | None = None
    start: int = 0
    end: int | None = None
    silence: bool = False
    phase: PhaseStarted | None = None
    intervention: Intervention | None = None
    event: Any = None  # a protocol's event, drawn by its registered line renderer or generically
    analysis: Any = None
    compared: dict[str, dict[str, Any]] = field(default_factory=dict)
    acts: list[Any] = field(default_factory=list)


ROUND_CAUSE = re.compile(r"^round (\d+)$")


@dataclass(frozen=True)
class Gauge:
    """One measured reply's signals (SID) and the round it was given in (the latest phase's round)."""

    round: int
    signals: SignalsMeasured


@dataclass
class DebateView(EventFold):
    debate_id: str = ""
    question: str = ""
    options: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    correct_answer: str | None = None
    agents: tuple[str, ...] = ()
    roles: dict[str, str] = field(default_factory=dict)
    humans: tuple[str, ...] = ()
    protocol: str = ""
    condition: str = ""
    model_id: str = ""
    seat_models: dict[str, str] = field(default_factory=dict)  # agent -> its model, when seats differ (live only)
    budget: int = 0
    public_tokens: int = 0
    turn: int = 0
    events: int = 0
    lines: list[Line] = field(default_factory=list)
    utterances: dict[int, Utterance] = field(default_factory=dict)
    initial: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    plans: dict[str, PlanRecord] = field(default_factory=dict)
    plans_turn: int = -1
    floor_holder: str | None = None
    preparing: str | None = None
    urgency_history: list[tuple[int, str, str, int]] = field(default_factory=list)
    trajectory: list[tuple[int, int, dict[str, str | None]]] = field(default_factory=list)
    decisions: list[ListenerDecision] = field(default_factory=list)
    signals: dict[str, SignalsMeasured] = field(default_factory=dict)  # each agent's latest
    gauges: list[Gauge] = field(default_factory=list)  # every SignalsMeasured, in order, with its round
    phase_round: int = 0  # the latest phase's round (0 before any phase with a round)
    # slots the protocols' folds fill (``WebRenderers.folds``): each recipient's latest compression and every
    # one in order, each agent's latest composed acts
    compressed: dict[str, Any] = field(default_factory=dict)
    readings: list[Any] = field(default_factory=list)
    acts: dict[str, Any] = field(default_factory=dict)
    replies: dict[str, dict[str, Any]] = field(default_factory=dict)  # each agent's latest structured reply
    rounds: list[tuple[int, dict[str, str | None]]] = field(default_factory=list)  # answers after round N
    pick: Pick | None = None  # an agent's pick of the final answer, from a protocol's fold
    extra: dict[str, Any] = field(default_factory=dict)  # anything else a protocol's fold keeps
    phase: str = ""
    ended: DebateEnded | None = None
    _segments: dict[int, Line] = field(default_factory=dict, repr=False)

    IGNORED = frozenset()
    # A plugin's event types (debate_core.events.registry) go to ``default_for_plugin_event``: their
    # protocol's web fold or a transcript line; this explicit default keeps the fold exhaustive (test_folds).
    PLUGIN_EVENTS = "default"

    @property
    def shown_answer(self) -> str | None:
        """The correct answer as the page may show it: hidden while a person sits at the table and the
        debate runs (it would give the answer away to them, and to a classroom watching them), shown once
        the debate has ended, in a replay, and always when only models are seated."""
        return None if self.humans and self.ended is None else self.correct_answer

    @classmethod
    def from_events(cls, events: list[Event]) -> DebateView:
        view = cls()
        for event in events:
            view.apply(event)
        return view

    def colour(self, agent: str | None) -> str:
        if agent in self.agents:
            return PALETTE[self.agents.index(agent) % len(PALETTE)]
        return "#6b7280"

    @property
    def tokens_left(self) -> int:
        return max(0, self.budget - self.public_tokens)

    @property
    def started(self) -> bool:
        return bool(self.debate_id)

    def apply(self, event: Event) -> None:
        self.events += 1
        self.turn = event.turn
        self.public_tokens = event.public_tokens
        self.dispatch(event)

    def default_for_plugin_event(self, event: Event) -> None:
        """A protocol's own event (``PLUGIN_EVENTS = "default"``): the fold its web plugin registered
        (``web_plugins.fold_for``), else a transcript line drawn by its plugin's line renderer or generically,
        so a new event never breaks the page."""
        fold = web_plugins.fold_for(event.type)
        if fold is not None:
            fold(self, event)
        else:
            self.lines.append(Line(turn=event.turn, event=event))

    # -- one method per event type --------------------------------------------
    def _debate_started(self, event: DebateStarted) -> None:
        config = event.config
        self.debate_id = event.debate_id
        self.question = config.question.text
        self.options = config.question.options
        self.labels = config.question.labels
        self.correct_answer = config.question.answer
        self.agents = config.agent_names
        self.roles = {a.name: a.role for a in config.agents if a.role}
        self.humans = tuple(a.name for a in config.agents if a.seat.value == "human")
        self.protocol = config.protocol
        self.condition = web_plugins.condition_of(event)
        self.model_id = event.model_id
        self.budget = config.token_budget if uses_budget(config.protocol) else 0

    def _phase_started(self, event: PhaseStarted) -> None:
        self.phase = event.phase if event.round is None else f"{event.phase} {event.round}"
        if event.round is not None:
            self.phase_round = event.round
        self.lines.append(Line(turn=event.turn, phase=event))

    def _initial_answers(self, event: InitialAnswersGiven) -> None:
        self.initial = {a.agent: (a.answer, a.reason) for a in event.answers}
        self.trajectory.append((0, -1, {a.agent: a.answer for a in event.answers}))

    def _plans_made(self, event: PlansMade) -> None:
        self.plans_turn = event.turn
        self.floor_holder = event.floor_holder
        for record in event.plans:
            self.plans[record.agent] = record
            self.urgency_history.append((event.turn, record.agent, record.plan.action.value, record.plan.urgency))
        self.trajectory.append((event.public_tokens, event.turn, {a.agent: a.answer for a in event.answers}))

    def _answers_updated(self, event: AnswersUpdated) -> None:
        answers = {a.agent: a.answer for a in event.answers}
        self.trajectory.append((event.public_tokens, event.turn, answers))
        found = ROUND_CAUSE.match(event.cause)
        if found:  # a protocol that answers in rounds (ACE, SID): a row of the answers-per-round table
            number = int(found.group(1))
            if self.rounds and self.rounds[-1][0] == number:  # a round answered in steps (SID: the gate first)
                self.rounds[-1] = (number, answers)
            else:
                self.rounds.append((number, answers))

    def _speaker_selected(self, event: SpeakerSelected) -> None:
        self.preparing = event.speaker

    def _utterance_generated(self, event: UtteranceGenerated) -> None:
        self.preparing = None
        utterance = Utterance(
            id=event.utterance_id,
            speaker=event.speaker,
            turn=event.turn,
            kind=event.kind,
            interrupting=event.interrupting,
            total=len(event.units),
            error=event.error,
            gaps=unit_gaps(event.text, event.units),
        )
        self.utterances[event.utterance_id] = utterance
        if isinstance(event.structured, dict) and event.structured:
            self.replies[event.speaker] = event.structured
        if not event.units:  # the floor given back with nothing said: shown, with why
            self.lines.append(Line(turn=event.turn, utterance=utterance))

    def _unit_disclosed(self, event: UnitDisclosed) -> None:
        utterance = self.utterances[event.utterance_id]
        last = self._segments.get(utterance.id)
        if last is None or self.lines[-1] is not last:  # its first unit, or resumed after something else
            if last is not None:
                last.end = len(utterance.disclosed)
            line = Line(turn=event.turn, utterance=utterance, start=len(utterance.disclosed))
            self.lines.append(line)
            self._segments[utterance.id] = line
        utterance.disclosed.append(event.text)

    def _interrupted(self, event: Interrupted) -> None:
        utterance = self.utterances[event.utterance_id]
        utterance.interrupted_by = event.interrupter
        utterance.suspended = event.suspended
        if not event.suspended:
            utterance.discarded = [*event.discarded, *([event.unfinished.strip()] if event.unfinished.strip() else [])]

    def _utterance_resumed(self, event: UtteranceResumed) -> None:
        utterance = self.utterances[event.utterance_id]
        utterance.suspended = False
        utterance.interrupted_by = None  # held, not cut: it goes on
        utterance.resumed += 1

    def _utterance_revised(self, event: UtteranceRevised) -> None:
        utterance = self.utterances[event.utterance_id]
        utterance.revised += 1
        utterance.discarded.extend(event.discarded)
        if event.unfinished.strip():
            utterance.discarded.append(event.unfinished.strip())
        del utterance.gaps[len(utterance.disclosed) :]  # the new rest's pieces are not in the text: spaces
        utterance.total = len(utterance.disclosed) + len(event.units)

    def _utterance_extended(self, event: UtteranceExtended) -> None:
        """More of a streamed utterance was generated: its units join those still to come."""
        utterance = self.utterances[event.utterance_id]
        utterance.gaps = utterance.gaps[: utterance.total] + unit_gaps(event.text, event.units)
        utterance.total += len(event.units)
        if event.error and not utterance.error:
            utterance.error = event.error

    def _utterance_completed(self, event: UtteranceCompleted) -> None:
        self.utterances[event.utterance_id].completed = True

    def _silent_turn(self, event: SilentTurn) -> None:
        self.lines.append(Line(turn=event.turn, silence=True))

    def _listener_decision(self, event: ListenerDecision) -> None:
        self.decisions.append(event)
        utterance = self.utterances.get(event.utterance_id)
        if utterance is not None:  # shown after the unit it followed, in the researcher view
            said = "yes" if event.interrupt else "no"
            odds = f", p={event.p_interrupt:.2f}" if event.p_interrupt is not None else ""
            invalid = " (invalid reply)" if not event.valid else ""
            label = f"{event.listener}: {said}{odds}{invalid}"
            utterance.checks.setdefault(event.unit_index, []).append(label)

    def _intervention(self, event: Intervention) -> None:
        self.lines.append(Line(turn=event.turn, intervention=event))

    def _signals_measured(self, event: SignalsMeasured) -> None:
        self.signals[event.agent] = event
        self.gauges.append(Gauge(self.phase_round or 1, event))

    def _debate_ended(self, event: DebateEnded) -> None:
        self.ended = event
        self.preparing = None
