"""Meeting Scheduling's run state: the ``Chat``, one game's case, seats, listeners, record and views.

What it does: a ``Chat`` (the run state the loop takes) knows who sits in
which seat (the traveler, ``planner_a``, ``planner_b``) and the case,
holds each listener's interruption policy (HandRaiser's ``policy_for``: the
variant's, or a person's own Interrupt button), says who listens to whom
(``listeners``: the traveler to the planners; under ``symmetric`` each seat
to the two others), keeps the public record the prompts quote
(``transcript``), the round, the notes for a seat asked again and whom each
seat just cut off, builds each seat's ``MeetingView`` (its own briefing of
the case: ``scheduling.briefing``), asks one seat one request kind, and
gives a speaker's chunker (``chunk_tokens`` tokens of its tokenizer; the
traveler's messages are whole where nobody listens to it). ``TITLES`` names
the roles in prompts and in the record; ``default_addressee`` is where a
message with no understood ``To:`` goes: the seat that spoke before it (when
that was someone else), else the traveler (a planner's) or the first planner
(the traveler's).

What it does not do: decide the order of the chat, listen to a message or
check a schedule (``loop``), word or parse anything (``prompts/``,
``forms``) or make a kernel move on its own account (the ``Table`` does).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from debate_core.config import SeatKind
from debate_core.kernel.chunkers import Chunker, TokenChunker, WholeMessage
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.policies import InterruptPolicy, NeverPolicy
from debate_core.kernel.table import Table
from protocols.handraiser.meeting.forms import MeetingForms, key
from protocols.handraiser.meeting.params import SchedulingParams
from protocols.handraiser.meeting.views import SCHEDULE, MeetingView
from protocols.handraiser.scheduling import Case, briefing
from protocols.handraiser.state import policy_for

TITLES = {"traveler": "Traveler", "planner_a": "Planner A", "planner_b": "Planner B"}
ROLES = tuple(TITLES)


class Chat:
    """The run state: one game's case, seats, listeners, record and views (see the module docstring)."""

    def __init__(self, table: Table, params: SchedulingParams, variant: str, forms: MeetingForms, case: Case):
        self.table, self.params, self.variant, self.forms, self.case = table, params, variant, forms, case
        self.seats = {role: table.with_role(role)[0] for role in ROLES}
        self.traveler = self.seats["traveler"]
        self.order = tuple(self.seats.values())
        self.person = {person.planner: person for person in case.people}
        self.policies: dict[str, InterruptPolicy] = {
            agent: policy_for(variant, params, forms.listen, person=self.is_person(agent)) for agent in self.order
        }
        self.transcript: list[str] = []
        self.round = 1
        self.notes: dict[str, str] = {}  # why a seat is asked again
        self.cut: dict[str, str] = {}  # whom a seat just cut off
        self.last: str | None = None  # who spoke last

    def is_person(self, agent: str) -> bool:
        return self.table.config.agent(agent).seat is SeatKind.HUMAN

    def role(self, agent: str) -> str:
        return self.table.role_of(agent) or "traveler"

    def label(self, agent: str) -> str:
        return f"{agent} ({TITLES[self.role(agent)]})"

    def others(self, agent: str) -> tuple[str, ...]:
        return tuple(other for other in self.order if other != agent)

    def addressable(self, agent: str) -> tuple[str, ...]:
        """Whom ``agent`` may write to: the traveler writes to the planners, a planner to both others."""
        return tuple(o for o in self.others(agent) if agent != self.traveler or o != self.traveler)

    def listeners(self, speaker: str) -> tuple[str, ...]:
        """Who listens to ``speaker``'s message for a cue to cut in (none under generic and concise)."""
        planner = speaker != self.traveler
        heard = self.others(speaker) if self.params.symmetric else (self.traveler,) * planner
        return tuple(agent for agent in heard if not isinstance(self.policies[agent], NeverPolicy))

    def groups(self, listeners: tuple[str, ...]) -> Iterator[tuple[InterruptPolicy, list[str]]]:
        """The listeners grouped by policy, in seat order (model seats of one policy decide in one batch)."""
        found: dict[int, tuple[InterruptPolicy, list[str]]] = {}
        for agent in listeners:
            policy = self.policies[agent]
            found.setdefault(id(policy), (policy, []))[1].append(agent)
        yield from found.values()

    def default_addressee(self, agent: str) -> str:
        if self.last is not None and self.last in self.addressable(agent):
            return self.last
        return self.seats["planner_a"] if agent == self.traveler else self.traveler

    def contact(self, agent: str) -> str:
        role = self.role(agent)
        if role == "traveler":
            return f"{agent} (Traveler)"
        return f"{agent} ({TITLES[role]}, the planner of {self.person[role].name})"

    def _addresses(self, agent: str) -> tuple[tuple[str, str], ...]:
        pairs = []
        for other in self.addressable(agent):
            role = self.role(other)
            words = [other, TITLES[role], role]
            if role != "traveler":
                words += [f"{self.person[role].name}'s planner", self.person[role].name]
            pairs += [(key(word), other) for word in words]
        return tuple(pairs)

    def view(self, agent: str, **fields: Any) -> MeetingView:
        spec = self.table.config.agent(agent)
        role = self.role(agent)
        submits = role == "traveler"
        reached = self.addressable(agent)
        values: dict[str, Any] = {
            "agent": agent,
            "role": role,
            "title": TITLES[role],
            "persona": spec.persona,
            "brief": spec.brief,
            "briefing": briefing(self.case, role, planners_see_travel=self.params.planners_see_travel),
            "contacts": tuple(self.contact(other) for other in reached),
            "choices": (*reached, SCHEDULE) if submits else reached,
            "addresses": self._addresses(agent),
            "transcript": tuple(self.transcript),
            "note": self.notes.get(agent, ""),
            "cut": self.cut.get(agent, ""),
            "can_submit": submits,
            "concise": self.variant == "concise" and (role != "traveler" or self.params.symmetric),
            "round": self.round,
            "max_rounds": self.params.max_rounds,
        }
        values.update(fields)
        return MeetingView(**values)

    def ask(self, form: Form[MeetingView, Any], agent: str) -> FormResult[Any]:
        view = self.view(agent)
        return self.table.ask(form, [agent], lambda _: view)[agent]

    def chunker(self, agent: str) -> Chunker:
        if agent == self.traveler and not self.params.symmetric:
            return WholeMessage()  # nobody listens to the traveler for a cue to cut in
        backend = self.table.router.backend_for(agent, self.table.role_of(agent))
        return TokenChunker(backend.tokenize, self.params.chunk_tokens)
