"""The round-robin protocol: its forms, its parameters and its loop over the host's kernel.

What it does: ``RoundRobin`` (``round-robin``) runs ``rounds`` rounds; in
each, every agent in seat order states its case (one whole message, disclosed
at once), then all agents name the answer they hold now in one batch, and a
``TallyTaken`` records the count. After the last round the majority decides
(ties broken by the debate's seeded random draw). Variant ``short`` is one
round. Any seat may be a person's: both forms say what a person fills in (a
statement; a choice among the options). A model's statement that is empty, or
an answer that is not an option, is recorded as the model's mistake on its
event and the agent keeps its previous answer (the kernel's fallback).

What it does not do: decide anything the kernel decides for every protocol
(who may act, how text is disclosed, how a person's input is checked).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from debate_core import DebateConfig, GenerationRequest, Message
from debate_core.events import EndReason, Event
from debate_core.kernel import FieldSpec, Form, FormInvalid, Table, WholeMessage, load_object, majority
from debate_core.protocols import Protocol, ProtocolParams
from round_robin.events import TallyTaken


@dataclass(frozen=True)
class Seen:
    """What a seat is shown: the question, what was said so far, and the options to answer with."""

    agent: str
    question: str
    transcript: tuple[str, ...]
    labels: tuple[str, ...]


def _prompt(task: str) -> Callable[[Seen], tuple[Message, ...]]:
    def render(seen: Seen) -> tuple[Message, ...]:
        said = "\n".join(seen.transcript) or "(nobody has spoken yet)"
        return (
            Message("system", f"You are {seen.agent}, one of several debaters taking turns."),
            Message("user", f"{seen.question}\n\nSo far:\n{said}\n\n{task}"),
        )

    return render


def _parse_statement(raw: str, seen: Seen) -> tuple[str, str | None]:
    text = raw.strip()
    if not text:
        raise FormInvalid("an empty statement")
    return text, None


def _parse_answer(raw: str, seen: Seen) -> tuple[str, str | None]:
    data, note = load_object(raw)
    answer = data.get("answer")
    if answer not in seen.labels:
        raise FormInvalid(f"the answer is one of {', '.join(seen.labels)}, not {answer!r}")
    return str(answer), note


STATEMENT: Form[Seen, str] = Form(
    kind="statement",
    description="a statement of one's case, in a few sentences",
    render=_prompt("State your case in two or three sentences."),
    parse=_parse_statement,
    fallback=lambda seen: "",
    fields=lambda seen: (FieldSpec("text", "text", "Your statement", words=True),),
    from_human=lambda values, seen: str(values["text"]),
)
ANSWER: Form[Seen, str] = Form(
    kind="answer",
    description="the answer one holds now",
    render=_prompt('Reply with JSON only: {"answer": "<option label>"}.'),
    parse=_parse_answer,
    fallback=lambda seen: "",
    fields=lambda seen: (FieldSpec("answer", "choice", "Your answer", choices=seen.labels),),
    from_human=lambda values, seen: str(values["answer"]),
    schema=lambda seen: {
        "type": "object",
        "properties": {"answer": {"enum": list(seen.labels)}},
        "required": ["answer"],
    },
)


class RoundRobinParams(ProtocolParams):
    """The protocol's one parameter."""

    rounds: int = Field(2, ge=1, le=10, description="rounds of statements and answers")


class RoundRobin(Protocol):
    """Everyone states a case in turn, then everyone answers; the majority decides after the last round."""

    name = "round-robin"
    variants = ("standard", "short")
    Params = RoundRobinParams

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return {"statement": STATEMENT, "answer": ANSWER}

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Callable[[GenerationRequest], str]:
        """The scripted demo: everyone argues for the correct option (or A); the last agent answers another
        option after the first round's statements and comes round after the second."""
        answer = config.question.answer or "A"
        labels = config.question.labels or ("A", "B")
        other = next(label for label in labels if label != answer)
        doubter, first_round = config.agents[-1].name, len(config.agents)

        def respond(request: GenerationRequest) -> str:
            if request.kind == "statement":
                return f"I hold {answer}. Turn {request.turn} has not changed my mind; I keep to {answer}."
            doubting = request.agent == doubter and request.turn <= first_round
            return json.dumps({"answer": other if doubting else answer})

        return respond

    def run(self, table: Table) -> Iterator[Event]:
        params: Any = self.params
        rounds = 1 if self.variant == "short" else params.rounds
        transcript: list[str] = []
        question = table.config.question
        forms = self.forms()  # the loop asks what it declares, so a subclass that changes a form is believed

        def seen(agent: str) -> Seen:
            return Seen(agent, question.render(), tuple(transcript), question.labels)

        for round_ in range(1, rounds + 1):
            yield table.phase("statements", round_)
            for speaker in table.names:
                table.tick()
                reply = table.ask(forms["statement"], [speaker], seen)[speaker]
                yield table.say(speaker, reply, chunker=WholeMessage(), kind="statement")
                if table.holder is not None:
                    yield from table.disclose()
                    transcript.append(f"{speaker}: {reply.value}")
            replies = table.ask(forms["answer"], list(table.names), seen)
            answers = {name: replies[name].value or table.answers[name] for name in table.names}
            yield table.update_answers(answers, cause=f"round {round_}")
            counts = Counter(a for a in table.answers.values() if a)
            yield table.emit(TallyTaken, round=round_, counts=tuple(sorted(counts.items())))
        yield table.finish(EndReason.ROUNDS, majority(table.answer_list(), table.rng))
