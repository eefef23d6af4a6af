"""Parliament's run state: the ``Hall``, what the variants share while one debate runs, and the moves they repeat.

What it does: a ``Hall`` (the run state the variant loops take) knows who
holds which role and title, keeps the public record the prompts quote
(``transcript``), builds each role's view (the question's context goes to
the prover, and to the critic only when the parameters say so), asks one
role one request kind, and voices a reply: the kernel's ``say`` followed by
one ``disclose`` per turn, the role's answer updated from its answer line
(``SAME`` meaning the prover's). ``short`` keeps a reply within its sentence
limit (cut by the table's segmenter, the cut noted on the reply).

What it does not do: decide the order of a debate (the variant loops in
``loop``) or make a kernel move on its own account: everything goes through
the ``Table``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

from debate_core.events.codec import Event
from debate_core.kernel.chunkers import Chunker
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.table import Table
from protocols.parliament.answers import SAME
from protocols.parliament.catalogue import ParliamentForms
from protocols.parliament.forms import Speech
from protocols.parliament.params import ParliamentParams
from protocols.parliament.views import RoleView


class Hall:
    """The run state: one debate's roles, record and repeated moves (see the module docstring)."""

    def __init__(self, table: Table, params: ParliamentParams, variant: str, forms: ParliamentForms) -> None:
        self.table, self.params, self.variant, self.forms = table, params, variant, forms
        (self.prover,) = table.with_role("prover")
        critics = table.with_role("critic")
        self.critic = critics[0] if critics else None
        self.titles = dict(zip(("prover", "critic"), params.titles(variant), strict=True))
        self.transcript: list[str] = []

    def title(self, agent: str) -> str:
        return self.titles[self.table.role_of(agent) or "prover"]

    def other(self, agent: str) -> str:
        return self.titles["critic" if agent == self.prover else "prover"]

    def view(self, agent: str, **fields: Any) -> RoleView:
        config = self.table.config
        spec = config.agent(agent)
        shows_context = agent == self.prover or self.params.context_to_critic
        values: dict[str, Any] = {
            "agent": agent,
            "role": self.table.role_of(agent) or "prover",
            "title": self.title(agent),
            "other": self.other(agent),
            "question": config.question,
            "persona": spec.persona,
            "brief": spec.brief,
            "context": config.question.context if shows_context else "",
            "sentences": self.params.speech_sentences,
            "transcript": tuple(self.transcript),
            "current_answer": self.table.answers.get(agent),
            "token_cap": config.max_new_tokens,
        }
        values.update(fields)
        return RoleView(**values)

    def ask(self, form: Form[RoleView, Any], agent: str, *, nonce: int = 0, **fields: Any) -> FormResult[Any]:
        view = self.view(agent, **fields)
        return self.table.ask(form, [agent], lambda _: view, nonce=nonce)[agent]

    def short(self, reply: FormResult[Speech], limit: int) -> FormResult[Speech]:
        """``reply`` with at most ``limit`` sentences (the rest cut, and the cut noted)."""
        units = self.table.sentences.split(reply.value.text) if reply.value.text else ()
        if len(units) <= limit:
            return reply
        note = f"cut to its first {limit} sentence(s) of {len(units)}"
        kept = dataclasses.replace(reply.value, text=" ".join(units[:limit]))
        return dataclasses.replace(reply, value=kept, note="; ".join(n for n in (reply.note, note) if n))

    @staticmethod
    def as_text(reply: FormResult[Speech]) -> FormResult[str]:
        return reply.map(lambda speech: speech.text)

    def resolve(self, answer: str | None) -> str | None:
        return self.table.answers.get(self.prover) if answer == SAME else answer

    def structured(self, speech: Speech) -> dict[str, Any]:
        values = {"answer": speech.answer, "verdict": speech.verdict, "problem": speech.problem}
        return {key: value for key, value in values.items() if value is not None}

    def voice(
        self, agent: str, reply: FormResult[Speech], *, kind: str, chunker: Chunker | None = None
    ) -> Iterator[Event]:
        """Say ``reply`` and disclose it, one unit per turn; record it and the answer it names."""
        table = self.table
        speech = reply.value
        yield table.say(
            agent,
            self.as_text(reply),
            chunker=chunker or table.sentences,
            kind=kind,
            role=table.role_of(agent),
            structured=self.structured(speech) or None,
        )
        floor = table.holder
        yield from table.disclose_rest(floor, one_per_turn=True)
        if speech.text and floor is not None:
            self.transcript.append(f"{self.title(agent)}: {speech.text}")
        if speech.answer is not None:
            yield table.update_answers({agent: self.resolve(speech.answer)}, cause=kind)

    def said(self, floor_units: tuple[str, ...], disclosed: int) -> str:
        return " ".join(floor_units[:disclosed])
