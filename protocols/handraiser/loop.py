"""The HandRaiser debate's loop: Pro then Con each round, the moderator listening chunk by chunk.

What it does: ``debate(room)`` drives one debate over a ``Room`` (the run
state, ``state``) and yields its events, ending with ``table.finish``:

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
   With ``questions`` (the paper's default) a moderator who waits, with a
   round to come, asks both sides a clarifying question in the same turn: it
   is said in public with the wait (kind ``question``), enters the record,
   and both statements of the next round are asked to answer it first.
4. After ``max_rounds`` without a vote the debate ends (reason ``rounds``)
   with no answer, which scores as a failure (the paper's reward is 1 only
   when the moderator picks the correct side).

Policies (the variant; ``state.policy_for`` builds them): ``generic`` and
``concise`` never interrupt (``concise`` asks the speakers to be brief);
``random`` interrupts at one random chunk boundary per statement;
``prompted`` and ``learned`` ask the moderator's seat the one-token
``listen`` form (``learned`` on the fine-tuned listener's backend);
``threshold`` interrupts iff P("Yes") at the first generated position
reaches ``tau``; ``human``: the person in the moderator's seat presses
Interrupt, taking effect at the next chunk. ``statement`` (one statement,
with the moderator's decisions) and ``ballot`` (one vote or wait) are the
moves ``debate`` orders (``ballot`` also keeps the question asked for the
next round's statements).

What it does not do: keep the debate's run state (the ``Room``, ``state``:
seats, sides, record, views, the moderator's policy), word or parse anything
(``prompts/``, ``forms``) or count costs (``cost`` folds them from the
events).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.chunkers import WholeMessage
from debate_core.kernel.endings import FinalDecision, verdict
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import Form
from debate_core.kernel.policies import NeverPolicy
from protocols.handraiser.forms import Ballot
from protocols.handraiser.sides import position
from protocols.handraiser.state import TITLES, Room
from protocols.handraiser.views import HandView, record_line, said_prefix


def statement(room: Room, agent: str) -> Generator[Event, None, bool]:
    """One side's statement, chunk by chunk with the moderator's decisions; whether it was cut off."""
    table = room.table
    table.tick()
    reply = room.ask(room.forms.statement, agent)
    role = table.role_of(agent)
    said = table.say(agent, reply, chunker=room.chunker(agent), kind="statement", role=role)
    yield said
    floor = table.holder
    if floor is None:
        return False

    def listen(floor: Floor) -> Generator[Event, None, bool]:
        """The moderator's decision after a chunk; a yes cuts the speaker off."""
        partial = said_prefix(said.text, floor.units, floor.disclosed)
        shown = room.view(room.moderator, speaker=room.title(agent), partial=partial)
        decided = table.decide([room.moderator], floor, room.policy, _fixed(shown))
        yield decided[room.moderator]
        if not decided[room.moderator].interrupt:
            return False
        yield table.cut(room.moderator, keep="discard", floor=floor)
        room.transcript.append(record_line(room.title(agent), partial, cut=True))
        return True

    nobody_listens = isinstance(room.policy, NeverPolicy)  # nobody listens for a cue to cut in
    if (yield from table.disclose_rest(floor, one_per_turn=True, listen=None if nobody_listens else listen)):
        return True
    room.transcript.append(record_line(room.title(agent), said.text))
    return False


def ballot(room: Room, form: Form[HandView, Ballot]) -> Generator[Event, None, str]:
    """The moderator's vote (or wait, with its question), said in public; the side voted for, or ``wait``/``""``."""
    table, moderator = room.table, room.moderator
    table.tick()
    reply = room.ask(form, moderator)
    choice, question = reply.value.vote, reply.value.question
    answer = room.sides.answer_of(choice)
    if answer is not None:
        words = f"I vote for {TITLES[choice]}: the answer is {position(table.config.question, answer)}."
    elif choice == "wait":
        words = "I will wait for another round." + (f" My question to both sides: {question}" if question else "")
    else:
        words = "I cannot pick a side."
    kind = "vote" if answer is not None else "question" if question else "wait"
    structured = {"question": question} if question else None
    said = reply.with_value(words)
    yield table.say(moderator, said, chunker=WholeMessage(), kind=kind, role="moderator", structured=structured)
    yield from table.disclose_rest(table.holder)
    room.transcript.append(record_line("Moderator", words))
    room.asked = question  # the next round's statements answer it; a wait without one leaves none
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
        yield from statement(room, room.pro)
        con_cut = yield from statement(room, room.con)
        choice = yield from ballot(room, room.forms.verdict if con_cut else room.forms.vote)
        if choice != "wait":
            yield table.finish(EndReason.VERDICT, _decision(room))
            return
    yield table.finish(EndReason.ROUNDS, _decision(room))


def _decision(room: Room) -> FinalDecision:
    table = room.table
    return verdict(room.moderator, table.answers.get(room.moderator), table.answer_list())
