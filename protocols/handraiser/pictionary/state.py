"""Text Pictionary's run state: the ``Game``, one game's secret, seats, record and views.

What it does: a ``Game`` (the run state the loop takes) knows who sits in
which seat (the describer, the guesser) and the secret (``Secret``: the
entity, the answer the game ends with when it is guessed, the aliases),
holds the guesser's interruption policy (HandRaiser's ``policy_for``: the
variant's, or a person's own Interrupt button), keeps the public record the
prompts quote (``transcript``), the round and what the describer revealed,
builds each seat's ``PictionaryView`` (only the describer's names the
secret), asks one seat one request kind, and gives the describer's chunker
(``chunk_tokens`` tokens of its tokenizer). ``TITLES`` names the roles in
prompts and in the record.

What it does not do: decide the order of a game, listen to a description,
check a guess or a reveal (``loop``, ``matching``), word or parse anything
(``prompts/``, ``forms``) or make a kernel move on its own account (the
``Table`` does).
"""

from __future__ import annotations

from typing import Any

from debate_core.config import SeatKind
from debate_core.kernel.chunkers import TokenChunker
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.table import Table
from protocols.handraiser.pictionary.entities import Secret
from protocols.handraiser.pictionary.forms import PictionaryForms
from protocols.handraiser.pictionary.params import PictionaryParams
from protocols.handraiser.pictionary.views import PictionaryView
from protocols.handraiser.state import policy_for

TITLES = {"describer": "Describer", "guesser": "Guesser"}


class Game:
    """The run state: one game's secret, seats, record and views (see the module docstring)."""

    def __init__(self, table: Table, params: PictionaryParams, variant: str, forms: PictionaryForms, secret: Secret):
        self.table, self.params, self.variant, self.forms, self.secret = table, params, variant, forms, secret
        (self.describer,) = table.with_role("describer")
        (self.guesser,) = table.with_role("guesser")
        person = table.config.agent(self.guesser).seat is SeatKind.HUMAN
        self.policy = policy_for(variant, params, forms.listen, person=person)
        self.transcript: list[str] = []
        self.round = 1
        self.cut = False  # the guesser cut this round's description off
        self.revealed: str | None = None  # the word the describer said of the secret

    def view(self, agent: str, **fields: Any) -> PictionaryView:
        spec = self.table.config.agent(agent)
        role = self.table.role_of(agent) or "guesser"
        values: dict[str, Any] = {
            "agent": agent,
            "role": role,
            "title": TITLES[role],
            "persona": spec.persona,
            "brief": spec.brief,
            "entity": self.secret.entity if role == "describer" else "",
            "transcript": tuple(self.transcript),
            "cut": self.cut,
            "concise": self.variant == "concise",
            "round": self.round,
            "max_rounds": self.params.max_rounds,
        }
        values.update(fields)
        return PictionaryView(**values)

    def ask(self, form: Form[PictionaryView, Any], agent: str) -> FormResult[Any]:
        view = self.view(agent)
        return self.table.ask(form, [agent], lambda _: view)[agent]

    def chunker(self, agent: str) -> TokenChunker:
        backend = self.table.router.backend_for(agent, self.table.role_of(agent))
        return TokenChunker(backend.tokenize, self.params.chunk_tokens)
