"""The HandRaiser debate's loop: Pro then Con each round, the moderator listening chunk by chunk.

What it does: ``debate(room)`` drives one debate over a ``Room`` and yields
its events, ending with ``table.finish``:

1. The sides' assigned answers are announced (``AnswersUpdated``).
2. Each round: Pro's statement, then Con's. A statement is generated whole
   (a streamed speaker would produce the same text), cut into chunks of
   ``chunk_tokens`` tokens of the speaker's tokenizer (``TokenChunker``) and
   disclosed one chunk per turn. After every chunk but the last, the
   moderator decides under the variant's policy (``Table.decide``). A yes
   cuts the speaker off (``cut(keep="discard")``: the rest is never said).
   Cutting Pro off hands the floor to Con; cutting Con off makes the
   moderator vote at once (``verdict``, no waiting).
3. At the end of a round in which Con was not cut off the moderator votes or
   waits (``vote``). A vote ends the debate; the debate's answer is the answer
   of the side voted for (``judge`` rule), correct iff it is the correct one.
4. After ``max_rounds`` without a vote the debate ends (reason ``rounds``)
   with no answer, which scores as a failure (the paper's reward is 1 only
   when the moderator picks the correct side).

Policies (the variant): ``generic`` and ``concise`` never interrupt
(``concise`` asks the speakers to be brief); ``random`` interrupts at one
random chunk boundary per statement; ``prompted`` and ``learned`` ask the
moderator's seat the one-token ``listen`` form (``learned`` on the
fine-tuned listener's backend); ``threshold`` interrupts iff P("Yes") at the
first generated position reaches ``tau``; ``human``: the person in the
moderator's seat presses Interrupt, taking effect at the next chunk.

What it does not do: word or parse anything (``prompts/``, ``forms``) or
count costs (``cost`` folds them from the events).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any

from debate_core.config import SeatKind
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.chunkers import TokenChunker, WholeMessage
from debate_core.kernel.endings import FinalDecision, verdict
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import Form, FormResult
from debate_core.kernel.policies import (
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
from protocols.handraiser.views import HandView, record_line, said_prefix

TITLES = {"pro": "Pro", "con": "Con", "moderator": "Moderator"}
NEVER = ("generic", "concise")


def policy_for(
    variant: str, params: HandRaiserParams, forms: HandRaiserForms, *, person: bool = False
) -> InterruptPolicy:
    """The moderator's interruption policy of a variant; a person in the seat is their own policy
    (their Interrupt button answers the ``listen`` form) wherever the variant interrupts at all."""
    if variant in NEVER:
        return NeverPolicy()
    if person:
        return PromptedPolicy(forms.listen)
    if variant == "random":
        return RandomPolicy(allow_none=params.random_allow_none)
    if variant == "threshold":
        return ThresholdPolicy(forms.listen, params.tau)
    return PromptedPolicy(forms.listen)


class Room:
    """One debate's sides, record and repeated moves."""

    def __init__(self, table: Table, params: HandRaiserParams, variant: str, forms: HandRaiserForms, sides: Sides):
        self.table, self.params, self.variant, self.forms, self.sides = table, params, variant, forms, sides
        (self.pro,) = table.with_role("pro")
        (self.con,) = table.with_role("con")
        (self.moderator,) = table.with_role("moderator")
        person = table.config.agent(self.moderator).seat is SeatKind.HUMAN
        self.policy = policy_for(variant, params, forms, person=person)
        self.transcript: list[str] = []
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

    def statement(self, agent: str) -> Generator[Event, None, bool]:
        """One side's statement, chunk by chunk with the moderator's decisions; whether it was cut off."""
        table = self.table
        table.tick()
        reply = self.ask(self.forms.statement, agent)
        role = table.role_of(agent)
        said = table.say(agent, reply, chunker=self.chunker(agent), kind="statement", role=role)
        yield said
        floor = table.holder
        if floor is None:
            return False

        def listen(floor: Floor) -> Generator[Event, None, bool]:
            """The moderator's decision after a chunk; a yes cuts the speaker off."""
            partial = said_prefix(said.text, floor.units, floor.disclosed)
            shown = self.view(self.moderator, speaker=self.title(agent), partial=partial)
            decided = table.decide([self.moderator], floor, self.policy, _fixed(shown))
            yield decided[self.moderator]
            if not decided[self.moderator].interrupt:
                return False
            yield table.cut(self.moderator, keep="discard", floor=floor)
            self.transcript.append(record_line(self.title(agent), partial, cut=True))
            return True

        nobody_listens = isinstance(self.policy, NeverPolicy)  # nobody listens for a cue to cut in
        if (yield from table.disclose_rest(floor, one_per_turn=True, listen=None if nobody_listens else listen)):
            return True
        self.transcript.append(record_line(self.title(agent), said.text))
        return False

    def ballot(self, form: Form[HandView, str]) -> Generator[Event, None, str]:
        """The moderator's vote (or wait), said in public; the side voted for, or ``wait``/``""``."""
        table, moderator = self.table, self.moderator
        table.tick()
        reply = self.ask(form, moderator)
        choice = reply.value
        answer = self.sides.answer_of(choice)
        if answer is not None:
            words = f"I vote for {TITLES[choice]}: the answer is {position(table.config.question, answer)}."
        elif choice == "wait":
            words = "I will wait for another round."
        else:
            words = "I cannot pick a side."
        kind = "vote" if answer is not None else "wait"
        yield table.say(moderator, reply.with_value(words), chunker=WholeMessage(), kind=kind, role="moderator")
        yield from table.disclose_rest(table.holder)
        self.transcript.append(record_line("Moderator", words))
        if answer is not None:
            yield table.update_answers({moderator: answer}, cause="vote")
        return choice


def _fixed(view: HandView) -> Callable[[str], HandView]:
    return lambda agent: view


def debate(room: Room) -> Iterator[Event]:
    table, sides, params = room.table, room.sides, room.params
    question = table.config.question
    detail = f"Pro argues {position(question, sides.pro)}; Con argues {position(question, sides.con)}"
    yield table.phase("positions", detail=detail)
    yield table.update_answers({room.pro: sides.pro, room.con: sides.con}, cause="assigned")
    for round_ in range(1, params.max_rounds + 1):
        room.round = round_
        yield table.phase("round", round_)
        yield from room.statement(room.pro)
        con_cut = yield from room.statement(room.con)
        choice = yield from room.ballot(room.forms.verdict if con_cut else room.forms.vote)
        if choice != "wait":
            yield table.finish(EndReason.VERDICT, _decision(room))
            return
    yield table.finish(EndReason.ROUNDS, _decision(room))


def _decision(room: Room) -> FinalDecision:
    table = room.table
    return verdict(room.moderator, table.answers.get(room.moderator), table.answer_list())
