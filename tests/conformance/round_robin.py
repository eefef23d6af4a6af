"""A newcomer protocol for the conformance suite's own test: round-robin statements, then everyone answers.

``RoundRobin`` (``round-robin``) is written only against the public API: each round every agent
states its case in turn (one whole message), then all of them name their answer in one batch;
after ``rounds`` rounds the majority decides. ``Unfillable`` (``round-robin-unfillable``) is the
same debate with a defect the conformance suite must catch: its answer form refuses every value
a person enters, so nobody can take a seat. The module is an outside plugin
(``register_protocols``); the conformance test loads it in a pytest run of its own through
``DEBATE_PLUGINS``, so nothing in this process registers them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from debate_core import DebateConfig, GenerationRequest, Message
from debate_core.events import EndReason, Event
from debate_core.kernel import FieldSpec, Form, FormInvalid, Table, WholeMessage, load_object, majority
from debate_core.plugins import hookimpl
from debate_core.protocols import Protocol, ProtocolParams


@dataclass(frozen=True)
class Seen:
    agent: str
    question: str
    transcript: tuple[str, ...]
    labels: tuple[str, ...]


def _messages(task: str) -> Any:
    return lambda seen: (Message("user", f"{seen.question}\n\n" + "\n".join(seen.transcript) + f"\n\n{task}"),)


def _statement(raw: str, seen: Seen) -> tuple[str, str | None]:
    if not raw.strip():
        raise FormInvalid("an empty statement")
    return raw.strip(), None


def _answer(raw: str, seen: Seen) -> tuple[str, str | None]:
    data, note = load_object(raw)
    if data.get("answer") not in seen.labels:
        raise FormInvalid(f"an answer is one of {', '.join(seen.labels)}")
    return str(data["answer"]), note


def _refuse(value: Any) -> Any:
    raise FormInvalid("this form takes nothing")


STATEMENT: Form[Seen, str] = Form(
    "statement", "a statement of one's case", _messages("State your case."), _statement, lambda s: "",
    lambda s: (FieldSpec("text", "text", "Your statement", words=True),), lambda v, s: v["text"],
)  # fmt: skip
ANSWER: Form[Seen, str] = Form(
    "answer", "the answer one holds now", _messages('Reply {"answer": LABEL}.'), _answer, lambda s: "",
    lambda s: (FieldSpec("answer", "choice", "Your answer", choices=s.labels),), lambda v, s: v["answer"],
)  # fmt: skip
UNFILLABLE: Form[Seen, str] = Form(
    "answer", "the answer one holds now", _messages('Reply {"answer": LABEL}.'), _answer, lambda s: "",
    lambda s: (FieldSpec("answer", "text", "Your answer", check=_refuse),), lambda v, s: v["answer"],
)  # fmt: skip


class RoundRobinParams(ProtocolParams):
    rounds: int = Field(2, ge=1, le=10, description="rounds of statements")


class RoundRobin(Protocol):
    """Everyone states a case in turn, then everyone answers; the majority decides after the last round."""

    name = "round-robin"
    variants = ("standard", "short")
    Params = RoundRobinParams

    def answer_form(self) -> Form[Seen, str]:
        return ANSWER

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return {"statement": STATEMENT, "answer": self.answer_form()}

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Any:
        def respond(request: GenerationRequest) -> str:
            if request.kind == "statement":
                return f"{request.agent} says Beta comes second. So it is B, at turn {request.turn}."
            return json.dumps({"answer": "B"})

        return respond

    def run(self, table: Table) -> Iterator[Event]:
        params: Any = self.params
        rounds = 1 if self.variant == "short" else params.rounds
        transcript: list[str] = []
        question = table.config.question

        def seen(agent: str) -> Seen:
            return Seen(agent, question.render(), tuple(transcript), question.labels)

        for round_ in range(1, rounds + 1):
            yield table.phase("statements", round_)
            for speaker in table.names:
                table.tick()
                reply = table.ask(STATEMENT, [speaker], seen)[speaker]
                yield table.say(speaker, reply, chunker=WholeMessage(), kind="statement")
                if table.holder is not None:
                    yield from table.disclose()
                    transcript.append(f"{speaker}: {reply.value}")
            replies = table.ask(self.answer_form(), list(table.names), seen)
            answers = {name: replies[name].value or table.answers[name] for name in table.names}
            yield table.update_answers(answers, cause=f"round {round_}")
        yield table.finish(EndReason.ROUNDS, majority(table.answer_list(), table.rng))


class Unfillable(RoundRobin):
    """``RoundRobin`` whose answer form no person can fill (a defect for the suite to find)."""

    name = "round-robin-unfillable"
    variants = ("standard",)

    def answer_form(self) -> Form[Seen, str]:
        return UNFILLABLE


@hookimpl
def register_protocols(register: Callable[[type[Protocol]], object]) -> None:
    register(RoundRobin)
    register(Unfillable)
