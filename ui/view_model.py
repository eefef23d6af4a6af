"""What the page shows, folded from a debate's events: one model for live view and replay.

What it does: ``DebateView.from_events(events)`` (or ``apply(event)`` one at a
time) turns the engine's events into plain data the renderers draw: the
agents and their colours, the transcript as lines (each utterance with its
disclosed sentences, its discarded ones and whether it was cut off; silent
turns), every agent's latest plan, the urgency history, the answer
trajectories against public tokens, the budget, and the result. A live
session and a replay feed the very same events through the very same fold.

What it does not do: produce HTML or figures (``render`` and ``charts`` do),
or talk to Gradio.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from debate_core.events import (
    DebateEnded,
    DebateStarted,
    Event,
    InitialAnswersGiven,
    Interrupted,
    PlanRecord,
    PlansMade,
    SentenceDisclosed,
    SilentTurn,
    SpeakerSelected,
    UtteranceCompleted,
    UtteranceGenerated,
)

PALETTE = ("#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#dc2626")


@dataclass
class Utterance:
    """One utterance as the audience has seen it so far."""

    id: int
    speaker: str
    turn: int
    disclosed: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    interrupting: str | None = None
    interrupted_by: str | None = None
    completed: bool = False
    total: int = 0
    error: str | None = None


@dataclass
class Line:
    """A transcript entry: an utterance, or a silent turn."""

    turn: int
    utterance: Utterance | None = None
    silence: bool = False


@dataclass
class DebateView:
    debate_id: str = ""
    question: str = ""
    options: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    correct_answer: str | None = None
    agents: tuple[str, ...] = ()
    humans: tuple[str, ...] = ()
    condition: str = ""
    model_id: str = ""
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
    ended: DebateEnded | None = None

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
        handler = getattr(self, f"_{event.type}", None)
        if handler is not None:
            handler(event)

    # -- one method per event type --------------------------------------------
    def _debate_started(self, event: DebateStarted) -> None:
        config = event.config
        self.debate_id = event.debate_id
        self.question = config.question.text
        self.options = config.question.options
        self.labels = config.question.labels
        self.correct_answer = config.question.answer
        self.agents = config.agent_names
        self.humans = tuple(a.name for a in config.agents if a.seat.value == "human")
        self.condition = config.condition.value
        self.model_id = event.model_id
        self.budget = config.token_budget

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

    def _speaker_selected(self, event: SpeakerSelected) -> None:
        self.preparing = event.speaker

    def _utterance_generated(self, event: UtteranceGenerated) -> None:
        self.preparing = None
        utterance = Utterance(
            id=event.utterance_id,
            speaker=event.speaker,
            turn=event.turn,
            interrupting=event.interrupting,
            total=len(event.units),
            error=event.error,
        )
        self.utterances[event.utterance_id] = utterance

    def _sentence_disclosed(self, event: SentenceDisclosed) -> None:
        utterance = self.utterances[event.utterance_id]
        if not utterance.disclosed:
            self.lines.append(Line(turn=event.turn, utterance=utterance))
        utterance.disclosed.append(event.text)

    def _interrupted(self, event: Interrupted) -> None:
        utterance = self.utterances[event.utterance_id]
        utterance.discarded = list(event.discarded)
        utterance.interrupted_by = event.interrupter

    def _utterance_completed(self, event: UtteranceCompleted) -> None:
        self.utterances[event.utterance_id].completed = True

    def _silent_turn(self, event: SilentTurn) -> None:
        self.lines.append(Line(turn=event.turn, silence=True))

    def _debate_ended(self, event: DebateEnded) -> None:
        self.ended = event
        self.preparing = None
