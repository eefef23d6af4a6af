"""The state a recorded stream establishes, and the rules protocols add to the kernel's when it is checked.

What it does: ``StreamState`` is what ``consistency.StreamChecker`` has
established so far (the utterances and how much of each is disclosed, the
floor, the silent streak, the counts, the current answers); protocol rules
read it. ``StreamRules`` is the base of a protocol's rules (none by default):
``begin(config)`` checks the set-up, ``check(event, stream)`` each later
event; each returns why it is impossible, or None. ``RoleRules`` states the
common rules as data: which roles exist, which may speak, listen, interrupt,
intervene, analyse or compose, which event types and end reasons a variant
has, and whose answer a final decision is.

What it does not do: check the kernel's own rules (``consistency`` does) or
change the state (only the checker does).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from debate_core.config import DebateConfig
from debate_core.events.acts import Intervention, ListenerDecision
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.events.types import DebateEnded, Interrupted, UtteranceGenerated

FRAME = frozenset(
    {
        "debate_started",
        "phase_started",
        "answers_updated",
        "utterance_generated",
        "unit_disclosed",
        "utterance_completed",
        "debate_ended",
    }
)
"""The event types of a protocol that speaks in phases and updates answers (``RoleRules.emits`` adds to it)."""


@dataclass
class Utterance:
    """One utterance as the stream has shown it so far."""

    speaker: str
    utterance_id: int
    units: tuple[str, ...]
    interrupting: str | None
    disclosed: int = 0
    suspended: bool = False
    completed: bool = False
    cut: bool = False
    streaming: bool = False  # generated as it streams, and its generation goes on: more units may come

    @property
    def held(self) -> bool:
        """It holds the floor: units still queued (or being generated), neither suspended nor cut off."""
        return not self.suspended and not self.cut and (self.disclosed < len(self.units) or self.streaming)

    @property
    def remaining(self) -> tuple[str, ...]:
        return self.units[self.disclosed :]

    @property
    def over(self) -> bool:
        return self.completed or self.cut


@dataclass
class StreamState:
    """What the events so far have established: what protocol rules read (they must not change it)."""

    config: DebateConfig
    previous: Event
    utterances: dict[int, Utterance] = field(default_factory=dict)
    floor: Utterance | None = None
    silent_streak: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    answers: dict[str, str | None] = field(default_factory=dict)

    @property
    def agents(self) -> tuple[str, ...]:
        return self.config.agent_names

    def role_of(self, agent: str) -> str | None:
        """The role the configuration gives ``agent`` (None for protocols without roles)."""
        return next((a.role for a in self.config.agents if a.name == agent), None)

    @property
    def holder(self) -> Utterance | None:
        """The utterance holding the floor (the kernel's ``table.holder``), if any."""
        return self.floor if self.floor is not None and self.floor.held else None


class StreamRules:
    """A protocol's own rules over its recorded stream: none by default."""

    def begin(self, config: DebateConfig) -> str | None:
        """Why a debate of this protocol cannot have been set up as ``config`` says, or None."""
        return None

    def check(self, event: Event, stream: StreamState) -> str | None:
        """Why ``event`` cannot have happened after ``stream`` under this protocol, or None."""
        return None


@dataclass(frozen=True)
class RoleRules(StreamRules):
    """The rules most protocols need, as data: which roles exist and who may do what.

    ``roles``: (name, minimum, maximum or None) of every role the variant assigns (empty: no roles).
    ``speakers``, ``listeners``, ``interrupters``, ``authors`` (interventions): the roles allowed
    to; None lets any agent. ``actors``: the same for a protocol's own event types, as (event type,
    the field naming the agent, the roles allowed, what it does) - e.g. ACE's
    ``("analysis_made", "analyst", ("observer",), "analyse")``. ``suspends``: interruptions
    suspend (True), discard (False), or either (None). ``emits``: the event types this variant can
    emit (None: any). ``reasons``: why it can end, besides being stopped or failing. ``decisions``:
    each final-decision rule it uses, with the role of the agent it names (None: no role).
    """

    roles: tuple[tuple[str, int, int | None], ...] = ()
    speakers: tuple[str, ...] | None = None
    listeners: tuple[str, ...] | None = None
    interrupters: tuple[str, ...] | None = None
    authors: tuple[str, ...] | None = None
    actors: tuple[tuple[str, str, tuple[str, ...], str], ...] = ()
    suspends: bool | None = None
    emits: frozenset[str] | None = None
    reasons: frozenset[EndReason] | None = None
    decisions: dict[str, str | None] | None = None

    def begin(self, config: DebateConfig) -> str | None:
        if not self.roles:
            return None
        known = {name for name, _, _ in self.roles}
        stray = next((a for a in config.agents if a.role not in known), None)
        if stray is not None:
            return f"{stray.name}'s role {stray.role!r} is not one of {', '.join(sorted(known))}"
        for name, minimum, maximum in self.roles:
            held = sum(1 for a in config.agents if a.role == name)
            if held < minimum or (maximum is not None and held > maximum):
                return f"{held} agents hold the {name} role"
        return None

    def check(self, event: Event, stream: StreamState) -> str | None:
        if self.emits is not None and event.type not in self.emits:
            return f"this protocol variant never emits {event.type}"
        checks = (
            (UtteranceGenerated, "speaker", self.speakers, "speak"),
            (ListenerDecision, "listener", self.listeners, "decide whether to interrupt"),
            (Interrupted, "interrupter", self.interrupters, "interrupt"),
            (Intervention, "author", self.authors, "intervene"),
        )
        for kind, name, allowed, what in checks:
            if allowed is not None and isinstance(event, kind):
                who = getattr(event, name)
                if stream.role_of(who) not in allowed:
                    return f"{who} ({stream.role_of(who)}) may not {what} in this protocol"
        for type_, name, roles, what in self.actors:
            if event.type == type_:
                who = getattr(event, name)
                if stream.role_of(who) not in roles:
                    return f"{who} ({stream.role_of(who)}) may not {what} in this protocol"
        if isinstance(event, Interrupted) and self.suspends is not None and event.suspended != self.suspends:
            return "interruptions " + ("suspend" if self.suspends else "discard") + " in this protocol"
        if isinstance(event, DebateEnded):
            return self._end(event, stream)
        return None

    def _end(self, event: DebateEnded, stream: StreamState) -> str | None:
        if event.reason in (EndReason.STOPPED, EndReason.ERROR):
            return None
        if self.reasons is not None and event.reason not in self.reasons:
            return f"this protocol variant never ends for the reason {event.reason.value}"
        if self.decisions is not None:
            if event.rule not in self.decisions:
                return f"this protocol never decides by {event.rule[:40]!r}"
            role = self.decisions[event.rule]
            if role is not None and (event.decided_by is None or stream.role_of(event.decided_by) != role):
                return f"a {event.rule} decision is the {role}'s, not {event.decided_by}'s"
        return None
