"""HandRaiser's run state: the ``Room``, one debate's sides, seats, record and views.

What it does: a ``Room`` (the run state the loop takes) knows who sits in
which seat (Pro, Con, the moderator) and which answer each side argues
(``Sides``), holds the moderator's interruption policy (``policy_for``: the
variant's, or a person's own Interrupt button; Text Pictionary's guesser
listens under the same), keeps the public record the
prompts quote (``transcript``), the round and the moderator's latest
clarifying question (``asked``, which the sides' statements answer), builds each seat's
``HandView``, asks one seat one request kind, and gives a speaker's chunker
(``chunk_tokens`` tokens of the speaker's tokenizer). ``TITLES`` names the
roles in prompts and in the record; ``NEVER`` lists the variants in which
nobody listens for a cue to cut in.

What it does not do: decide the order of a debate, listen to a statement,
cut anyone off or vote (``loop``), word or parse anything (``prompts/``,
``forms``) or make a kernel move on its own account (the ``Table`` does).
"""

from __future__ import annotations

from typing import Any, Protocol

from debate_core.config import SeatKind
from debate_core.kernel.chunkers import TokenChunker
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.policies import (
    Decision,
    InterruptPolicy,
    NeverPolicy,
    PromptedPolicy,
    RandomPolicy,
    ThresholdPolicy,
)
from debate_core.kernel.table import Table
from protocols.handraiser.forms import HandRaiserForms
from protocols.handraiser.params import HandRaiserParams
from protocols.handraiser.sides import Sides, position
from protocols.handraiser.views import HandView

TITLES = {"pro": "Pro", "con": "Con", "moderator": "Moderator"}
NEVER = ("generic", "concise")


class ListenerSettings(Protocol):
    """What a listener's policy reads of a task's parameters (the debate's and Text Pictionary's have them)."""

    @property
    def tau(self) -> float: ...

    @property
    def random_allow_none(self) -> bool: ...


def policy_for(
    variant: str, params: ListenerSettings, listen: Form[Any, Decision], *, person: bool = False
) -> InterruptPolicy:
    """The listener's interruption policy of a variant (the moderator's, or Text Pictionary's guesser's); a
    person in the seat is their own policy (their Interrupt button answers the ``listen`` form) wherever the
    variant interrupts at all."""
    if variant in NEVER:
        return NeverPolicy()
    if person:
        return PromptedPolicy(listen)
    if variant == "random":
        return RandomPolicy(allow_none=params.random_allow_none)
    if variant == "threshold":
        return ThresholdPolicy(listen, params.tau)
    return PromptedPolicy(listen)


class Room:
    """The run state: one debate's sides, seats, record and views (see the module docstring)."""

    def __init__(self, table: Table, params: HandRaiserParams, variant: str, forms: HandRaiserForms, sides: Sides):
        self.table, self.params, self.variant, self.forms, self.sides = table, params, variant, forms, sides
        (self.pro,) = table.with_role("pro")
        (self.con,) = table.with_role("con")
        (self.moderator,) = table.with_role("moderator")
        person = table.config.agent(self.moderator).seat is SeatKind.HUMAN
        self.policy = policy_for(variant, params, forms.listen, person=person)
        self.transcript: list[str] = []
        self.asked = ""  # the moderator's question at the end of the last round, which the sides answer
        self.round = 1

    def title(self, agent: str) -> str:
        return TITLES[self.table.role_of(agent) or "pro"]

    def view(self, agent: str, **fields: Any) -> HandView:
        config, question = self.table.config, self.table.config.question
        spec = config.agent(agent)
        role = self.table.role_of(agent) or "pro"
        other = "con" if role == "pro" else "pro"
        values: dict[str, Any] = {
            "agent": agent,
            "role": role,
            "title": TITLES[role],
            "question": question,
            "persona": spec.persona,
            "brief": spec.brief,
            "position": position(question, self.sides.of(role)) if role != "moderator" else "",
            "other_title": TITLES[other],
            "other_position": position(question, self.sides.of(other)) if role != "moderator" else "",
            "pro_position": position(question, self.sides.pro),
            "con_position": position(question, self.sides.con),
            "transcript": tuple(self.transcript),
            "concise": self.variant == "concise",
            "asked": self.asked if role != "moderator" else "",
            "round": self.round,
            "max_rounds": self.params.max_rounds,
        }
        values.update(fields)
        return HandView(**values)

    def ask(self, form: Form[HandView, Any], agent: str, *, nonce: int = 0) -> FormResult[Any]:
        view = self.view(agent)
        return self.table.ask(form, [agent], lambda _: view, nonce=nonce)[agent]

    def chunker(self, agent: str) -> TokenChunker:
        backend = self.table.router.backend_for(agent, self.table.role_of(agent))
        return TokenChunker(backend.tokenize, self.params.chunk_tokens)
