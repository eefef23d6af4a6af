"""A fourth protocol written only against the public API: round-robin statements, judged each round.

Debaters state their case in turn, one whole message each; after every round the judge
names the answer it favours and may declare it final, which ends the debate. Otherwise
it ends after ``rounds`` rounds with the judge's last verdict. Any seat may be a person.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from debate_core import Message
from debate_core.events import EndReason, Event
from debate_core.kernel import FieldSpec, Form, FormInvalid, Table, WholeMessage, load_object, verdict
from debate_core.protocols import Protocol, ProtocolParams, RoleSpec


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


def _verdict(raw: str, seen: Seen) -> tuple[tuple[str, bool], str | None]:
    data, note = load_object(raw)
    if not isinstance(data.get("answer"), str) or not isinstance(data.get("final"), bool):
        raise FormInvalid("a verdict is {answer: string, final: boolean}")
    return (data["answer"], data["final"]), note


STATEMENT: Form[Seen, str] = Form(
    "statement", "a statement of one's case", _messages("State your case."), _statement, lambda s: "",
    lambda s: (FieldSpec("text", "text", "Your statement"),), lambda v, s: v["text"],
)  # fmt: skip
VERDICT: Form[Seen, tuple[str, bool]] = Form(
    "verdict", "the answer the judge favours, and whether it is final",
    _messages('Reply {"answer": ..., "final": true|false}.'), _verdict, lambda s: ("", False),
    lambda s: (FieldSpec("answer", "choice", "Answer", choices=s.labels), FieldSpec("final", "boolean", "Final?")),
    lambda v, s: (v["answer"], v["final"]),
)  # fmt: skip


class JudgedRoundsParams(ProtocolParams):
    rounds: int = Field(3, ge=1, le=20, description="rounds at most")
    early_end: bool = Field(True, description="a final verdict ends the debate")


class JudgedRounds(Protocol):
    """Round-robin statements with a judge who votes after every round and may end it."""

    name = "judged-rounds"
    variants = ("standard",)
    Params = JudgedRoundsParams
    roles = (RoleSpec("debater", "states a case each round", 2, None), RoleSpec("judge", "votes each round", 1, 1))

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return {"statement": STATEMENT, "verdict": VERDICT}

    def run(self, table: Table) -> Iterator[Event]:
        params: Any = self.params
        (judge,) = table.with_role("judge")
        transcript: list[str] = []
        question = table.config.question

        def seen(agent: str) -> Seen:
            return Seen(agent, question.render(), tuple(transcript), question.labels)

        for round_ in range(1, params.rounds + 1):
            yield table.phase("statements", round_)
            for speaker in table.with_role("debater"):
                table.tick()
                reply = table.ask(STATEMENT, [speaker], seen)[speaker]
                yield table.say(speaker, reply, chunker=WholeMessage(), kind="statement", role="debater")
                if table.holder is not None:
                    yield from table.disclose()
                    transcript.append(f"{speaker}: {reply.value}")
            yield table.phase("verdict", round_)
            answer, final = table.ask(VERDICT, [judge], seen)[judge].value
            yield table.update_answers({judge: answer or table.answers[judge]}, cause=f"verdict {round_}")
            if final and params.early_end:
                yield table.finish(EndReason.VERDICT, verdict(judge, table.answers[judge], table.answer_list()))
                return
        yield table.finish(EndReason.ROUNDS, verdict(judge, table.answers[judge], table.answer_list()))
