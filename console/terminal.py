"""Shows a debate's events in a terminal, as they arrive, with rich.

What it does: ``TerminalRenderer.show(event)`` prints one event as a few
coloured lines: the set-up, initial answers, each disclosed unit with the
public token count, interruptions (with the discarded units when asked),
suspensions and resumptions, points of information and questions, listener
decisions that interrupt, phases, answers, signals and analyses, silent
turns, a compact line of plans per turn, and the final result. It handles
every event type or ignores it explicitly (``EventFold``). All text written
by models or humans goes through ``rich.text.Text``, never through markup, so
nothing in a message can restyle or break the output. Live runs and
``python -m storage show`` (replay) use this same renderer.

What it does not do: run the debate or read input (see ``cli``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

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
    PlansMade,
    SignalsMeasured,
    SilentTurn,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)
from debate_core.events import registry as event_registry
from debate_core.events.fold import EventFold
from debate_core.protocols.registry import uses_budget

PALETTE = ("cyan", "magenta", "green", "yellow", "blue", "red")
PIPED_WIDTH = 160
GENERIC_VALUE_CHARS = 120
# What every event carries, or every reply: left out of the generic line (``valid``/``error`` are shown apart).
_FRAME_FIELDS = frozenset(
    {"type", "seq", "turn", "public_tokens", "at", "source", "valid", "error", "note", "raw", "generation"}
)

EventRenderer = Callable[["TerminalRenderer", Any], None]
"""Prints one event of a plugin's type: ``(renderer, event)``; it writes through ``renderer.console``."""


@dataclass(frozen=True)
class TerminalRendering:
    """A protocol's terminal rendering, contributed through the ``register_terminal_renderers`` hook.

    ``events``: a renderer for each of the protocol's own event types (a
    built-in type is rendered here, whatever a plugin says). ``protocol`` and
    ``title``: the name the set-up panel shows for a debate of that protocol
    (by default its ``protocol/variant`` label).
    """

    events: Mapping[str, EventRenderer] = field(default_factory=dict)
    protocol: str | None = None
    title: Callable[[DebateStarted], str] | None = None


@dataclass(frozen=True)
class _Renderings:
    manager: object
    events: dict[str, EventRenderer]
    titles: dict[str, Callable[[DebateStarted], str]]


_LOCK = threading.Lock()
_RENDERINGS: _Renderings | None = None


def renderings() -> _Renderings:
    """The plugins' terminal renderings, collected once per plugin manager; a plugin's mistake is recorded."""
    global _RENDERINGS
    from debate_core.plugins.manager import collect, plugin_manager, record_problem

    manager = plugin_manager()
    with _LOCK:
        if _RENDERINGS is not None and _RENDERINGS.manager is manager:
            return _RENDERINGS
    plugin_types = event_registry.plugin_types()
    events: dict[str, EventRenderer] = {}
    titles: dict[str, Callable[[DebateStarted], str]] = {}
    for registration in collect("register_terminal_renderers"):
        item, where = registration.item, f"plugin {registration.plugin} ({registration.source})"
        if not isinstance(item, TerminalRendering):
            record_problem(f"{where} registered {item!r} as a terminal rendering: not a TerminalRendering")
            continue
        for kind, render in item.events.items():
            if kind not in plugin_types or kind in events or not callable(render):
                why = "taken" if kind in events else "not a plugin's event type" if callable(render) else "not callable"
                record_problem(f"{where}: its terminal renderer for {kind!r} is left out ({why})")
                continue
            events[kind] = render
        if item.title is not None and item.protocol:
            titles.setdefault(item.protocol, item.title)
    found = _Renderings(manager, events, titles)
    with _LOCK:
        _RENDERINGS = found
    return found


def make_console() -> Console:
    """A console for the terminal; piped into a file or a program, lines are not folded at 80 columns."""
    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, width=PIPED_WIDTH)


class TerminalRenderer(EventFold):
    """Prints events; ``show_plans`` and ``show_discarded`` add detail.

    A protocol plugin's own events are printed by its renderer
    (``TerminalRendering``), or, when it registered none, by a generic
    readable line (``generic``): never a failure.
    """

    IGNORED = frozenset({"utterance_completed"})  # (a streamed utterance's extensions: see _utterance_extended)
    PLUGIN_EVENTS = "default"

    def __init__(
        self,
        console: Console | None = None,
        *,
        show_plans: bool = True,
        show_thoughts: bool = False,
        show_discarded: bool = True,
    ) -> None:
        self.console = console or Console(highlight=False)
        self.show_plans = show_plans
        self.show_thoughts = show_thoughts
        self.show_discarded = show_discarded
        self.colours: dict[str, str] = {}
        self.budget = 0
        self.held_answer: str | None = None  # the correct answer, held back while a person is seated

    def colour(self, agent: str | None) -> str:
        return self.colours.get(agent or "", "white")

    def show(self, event: Event) -> None:
        self.dispatch(event)

    def default_for_plugin_event(self, event: Event) -> None:
        render = renderings().events.get(event.type)
        if render is None:
            self.generic(event)
            return
        render(self, event)

    def generic(self, event: Event) -> None:
        """One readable line for an event nobody renders: its type in words, then its own fields."""
        data = event.model_dump(mode="json", exclude=set(_FRAME_FIELDS))
        line = Text("    • ", style="dim")
        line.append(event.type.replace("_", " "), style="bold")
        parts = [(key, value) for key, value in data.items() if value not in (None, "", [], {})]
        if parts:
            line.append(": ")
        for i, (key, value) in enumerate(parts):
            if i:
                line.append(", ", style="dim")
            line.append(f"{key}=", style="dim")
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            if len(shown) > GENERIC_VALUE_CHARS:
                shown = shown[: GENERIC_VALUE_CHARS - 1] + "…"
            line.append(shown, style=self.colour(value) if isinstance(value, str) and value in self.colours else "")
        if getattr(event, "valid", True) is False:
            line.append(f" (invalid: {getattr(event, 'error', None) or 'no reason given'})", style="red")
        self.console.print(line)

    # -- one method per event type -----------------------------------------
    def _debate_started(self, event: DebateStarted) -> None:
        config = event.config
        self.budget = config.token_budget if uses_budget(config.protocol) else 0
        self.colours = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(config.agent_names)}
        body = Text(config.question.render())
        # the correct answer would give itself away to a person at the table: shown when the debate ends
        self.held_answer = config.question.answer if any(a.seat.value == "human" for a in config.agents) else None
        if config.question.answer and self.held_answer is None:
            body.append(f"\n(correct answer: {config.question.answer})", style="dim")
        elif self.held_answer:
            body.append("\n(correct answer: shown when the debate ends)", style="dim")
        budget = f" · budget {config.token_budget} tokens" if self.budget else ""
        named = renderings().titles.get(config.protocol)
        name = named(event) if named is not None else config.label
        title = f"{name}{budget} · seed {config.seed} · model {event.model_id}"
        self.console.print(Panel(body, title=Text(title), title_align="left"))
        agents = Text("Agents: ")
        for i, agent in enumerate(config.agents):
            if i:
                agents.append(", ")
            agents.append(agent.name, style=f"bold {self.colour(agent.name)}")
            if agent.role:
                agents.append(f" ({agent.role})", style="dim")
            if agent.seat.value == "human":
                agents.append(" (human)", style="dim")
        self.console.print(agents)

    def _initial_answers(self, event: InitialAnswersGiven) -> None:
        table = Table(title="Initial answers", title_justify="left", show_edge=False)
        table.add_column("agent")
        table.add_column("answer")
        table.add_column("reason", overflow="fold")
        for item in event.answers:
            answer = Text(item.answer or "-")
            if not item.valid:
                answer.append(f"  invalid: {item.error}", style="red")
            table.add_row(Text(item.agent, style=self.colour(item.agent)), answer, Text(item.reason))
        self.console.print(table)

    def prefix(self, event: Event) -> Text:
        budget = f"/{self.budget}" if self.budget else ""
        return Text(f"[t{event.turn:>3} {event.public_tokens:>4}{budget}] ", style="dim")

    def note(self, text: str, style: str = "dim") -> None:
        self.console.print(Text(f"    {text}", style=style))

    def _unit_disclosed(self, event: UnitDisclosed) -> None:
        line = self.prefix(event)
        line.append(event.speaker, style=f"bold {self.colour(event.speaker)}")
        if event.interrupting:
            line.append(f" (interrupting {event.interrupting})", style="bold red")
        line.append(": ")
        line.append(event.text)
        if event.total > 1:
            line.append(f"  [{event.index + 1}/{event.total}]", style="dim")
        self.console.print(line)

    def _silent_turn(self, event: SilentTurn) -> None:
        line = self.prefix(event)
        line.append("… silence", style="italic dim")
        if event.consecutive > 1:
            line.append(f" ({event.consecutive} in a row)", style="dim")
        self.console.print(line)

    def _interrupted(self, event: Interrupted) -> None:
        line = Text("    ✂ ", style="bold red")
        line.append(event.interrupter, style=f"bold {self.colour(event.interrupter)}")
        line.append(" cuts off ")
        line.append(event.interrupted, style=f"bold {self.colour(event.interrupted)}")
        count = len(event.discarded)
        what = "held until resumed" if event.suspended else "discarded"
        unfinished = " and an unfinished one" if event.unfinished.strip() else ""
        line.append(f"; {count} undisclosed unit{'s' if count != 1 else ''}{unfinished} {what}", style="red")
        self.console.print(line)
        if event.suspended:
            return
        if self.show_discarded:
            for sentence in event.discarded:
                self.console.print(Text(f"      ✗ {sentence}", style="dim strike"))
            if event.unfinished.strip():
                self.console.print(Text(f"      ✗ {event.unfinished.strip()}", style="dim strike"))

    def _speaker_selected(self, event: SpeakerSelected) -> None:
        if event.interrupts:
            return
        line = Text("    → ", style="dim")
        line.append(event.speaker, style=self.colour(event.speaker))
        why = f"urgency {event.urgency}" if event.urgency is not None else event.rule.replace("_", " ")
        if event.tie:
            why += f", tie among {', '.join(event.tie)} broken by the seeded RNG"
        line.append(f" takes the floor ({why})", style="dim")
        self.console.print(line)

    def _utterance_generated(self, event: UtteranceGenerated) -> None:
        if event.error:
            line = Text(f"    ! {event.speaker}: {event.error}", style="yellow")
            self.console.print(line)

    def _utterance_extended(self, event: UtteranceExtended) -> None:
        """More of a streamed utterance was generated: its units are shown as they are disclosed; only a mistake."""
        if event.error:
            self.console.print(Text(f"    ! {event.speaker}: {event.error}", style="yellow"))

    def _utterance_resumed(self, event: UtteranceResumed) -> None:
        self.note(f"↻ {event.speaker} resumes ({event.mode})")

    def _utterance_revised(self, event: UtteranceRevised) -> None:
        self.note(f"✎ {event.speaker} revises the rest of its speech ({event.reason})")
        if self.show_discarded:
            for unit in event.discarded:
                self.console.print(Text(f"      ✗ {unit}", style="dim strike"))
            if event.unfinished.strip():
                self.console.print(Text(f"      ✗ {event.unfinished.strip()}", style="dim strike"))

    def _phase_started(self, event: PhaseStarted) -> None:
        round_ = f" {event.round}" if event.round is not None else ""
        detail = f": {event.detail}" if event.detail else ""
        self.console.print(Text(f"── {event.phase}{round_}{detail} ──", style="bold dim"))

    def _answers_updated(self, event: AnswersUpdated) -> None:
        line = Text(f"      answers ({event.cause}): ", style="dim")
        for i, item in enumerate(event.answers):
            if i:
                line.append(" | ", style="dim")
            line.append(item.agent, style=self.colour(item.agent))
            line.append(f" {item.answer or '-'}", style="dim")
        self.console.print(line)

    def _listener_decision(self, event: ListenerDecision) -> None:
        if not (event.interrupt or self.show_plans):
            return
        p = f" p={event.p_interrupt:.2f}" if event.p_interrupt is not None else ""
        verdict = "interrupts" if event.interrupt else "listens"
        style = "bold" if event.interrupt else "dim"
        line = Text("      ")
        line.append(event.listener, style=self.colour(event.listener))
        line.append(f" {verdict} ({event.policy}{p})", style=style)
        if not event.valid:
            line.append(f" (invalid: {event.error})", style="red")
        self.console.print(line)

    def _intervention(self, event: Intervention) -> None:
        line = Text("    ❓ " if not event.blocking else "    ✋ ", style="bold")
        line.append(event.author, style=f"bold {self.colour(event.author)}")
        line.append(f" → {event.target} ({event.kind.replace('_', ' ')}): ")
        line.append(event.text)
        self.console.print(line)

    def _signals_measured(self, event: SignalsMeasured) -> None:
        threshold = f" vs {event.threshold:.2f}" if event.threshold is not None else ""
        outcome = "passed" if event.passed else "not passed"
        self.note(f"{event.agent}: {event.score:.2f}{threshold} ({event.rule}) → {outcome}")

    def _plans_made(self, event: PlansMade) -> None:
        if not self.show_plans:
            return
        line = Text("      plans: ", style="dim")
        for i, record in enumerate(event.plans):
            if i:
                line.append(" | ", style="dim")
            plan = record.plan
            style = "red" if not record.valid else ("bold" if plan.wants_floor else "dim")
            line.append(record.agent, style=self.colour(record.agent))
            line.append(f" {plan.action.value} {plan.urgency} → {plan.answer or '-'}", style=style)
            if not record.valid:
                line.append(f" (invalid: {record.error})", style="red")
        self.console.print(line)
        if self.show_thoughts:
            for record in event.plans:
                if record.plan.thought:
                    thought = Text(f"        {record.agent} thinks: ", style="dim")
                    thought.append(record.plan.thought, style="italic dim")
                    self.console.print(thought)

    def _debate_ended(self, event: DebateEnded) -> None:
        body = Text()
        body.append(f"Final answer: {event.final_answer or '-'}", style="bold")
        if event.rule != "majority":
            by = f" by {event.decided_by}" if event.decided_by else ""
            body.append(f"  ({event.rule}{by})", style="dim")
        if event.correct is not None:
            body.append("  ✓ correct" if event.correct else "  ✗ incorrect", style="green" if event.correct else "red")
        votes = ", ".join(f"{v.answer}: {v.count}" for v in event.votes) or "none"
        body.append(f"\nVotes: {votes}")
        if self.held_answer:
            body.append(f"\nCorrect answer: {self.held_answer}")
        if event.tie:
            first = event.rule == "majority" and event.decided_by is not None  # the tie went to the first answer
            broken = f"to {event.decided_by}'s answer, given first" if first else "broken by the seeded RNG"
            body.append(f" (tie among {', '.join(event.tie)}, {broken})")
        budget = f"/{self.budget}" if self.budget else ""
        body.append(
            f"\nEnded by: {event.reason.value} at turn {event.turn}, {event.public_tokens}{budget} public tokens"
        )
        if event.error:
            body.append(f"\nError: {event.error}", style="red")
        s = event.stats
        # action plans are one protocol's request kind: their count is shown where there were any invalid ones
        plans = f"{s.invalid_plans} invalid plans · " if s.invalid_plans else ""
        body.append(
            f"\n{s.utterances} utterances, {s.interruptions} interruptions, {s.silent_turns} silent turns, "
            f"{plans}{s.model_calls} model calls in {s.batches} batches, "
            f"{s.generated_tokens} generated tokens · {s.wall_time_s:.2f} s",
            style="dim",
        )
        self.console.print(Panel(body, title="Result", title_align="left"))
