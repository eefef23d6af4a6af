"""Meeting Scheduling's loop: whoever holds the floor writes to whom they choose, until the traveler submits.

What it does: ``game(c)`` drives one game over a ``Chat`` (the run state,
``state``) and yields its events, ending with ``table.finish``:

1. The traveler holds the floor first. The seat holding the floor takes a
   turn (``speak``): a message to one seat it chooses (the paper: "each
   agent can choose the next agent it wants to chat with"), said in public
   (the record is everyone's) with ``structured={"to": ...}`` (and a
   ``note`` when the addressee was not understood), after which
   the one it wrote to holds the floor (``SpeakerSelected``, rule
   ``addressed``).
2. A planner's message is generated whole (a streamed speaker would produce
   the same text), cut into chunks of ``chunk_tokens`` tokens of its
   tokenizer and disclosed one chunk per turn; after every chunk but the last
   the traveler decides under the variant's policy (``Table.decide``). A yes
   cuts the planner off (``cut(keep="discard")``: the rest is never said)
   and the traveler holds the floor at once. Under ``symmetric`` (§4.5)
   every message, the traveler's too, is chunked and both other seats
   decide after each chunk; when both say yes the one it was written to
   takes the floor, else the first in seat order; a cut-in message can be
   cut in on in turn (cascading).
3. The traveler's turn may instead be the **schedule**: said in public
   (kind ``schedule``, whole), checked by ``scheduling.verify``; the verdict
   goes on the utterance (``structured``: the meetings, ``ok``, the broken
   constraints and each violation) and on a ``verdict`` phase (its feedback
   as the detail), and the game ends (reason ``verdict``) with the
   traveler's answer ``valid`` or ``invalid`` (``cases.outcome``): success,
   the paper's reward of 1, only when every hard constraint holds.
4. A round is one back-and-forth, two turns (§2.1); after ``max_rounds``
   rounds without a schedule the game ends (reason ``rounds``) with no
   answer, a failure.

Fallbacks (``forms``): an unusable turn says nothing (its error and raw text
are on the ``UtteranceGenerated``); the traveler is then asked again, told
why (an unreadable schedule's parser message), a planner's floor goes to the
traveler. Each such turn counts toward the rounds, so a game always ends.

What it does not do: keep the run state (``state``), word or parse anything
(``prompts/``, ``forms``), check schedules (``scheduling``) or count costs
(HandRaiser's ``cost`` folds them from the events).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.chunkers import WholeMessage
from debate_core.kernel.endings import FinalDecision
from debate_core.kernel.floor import Floor
from protocols.handraiser.meeting.cases import outcome
from protocols.handraiser.meeting.forms import Turn
from protocols.handraiser.meeting.state import Chat
from protocols.handraiser.scheduling import Schedule, Verdict, verify
from protocols.handraiser.scheduling.clock import format_time
from protocols.handraiser.views import record_line, said_prefix


@dataclass(frozen=True)
class Submitted:
    """The traveler's schedule and its verdict."""

    schedule: Schedule
    verdict: Verdict


def verdict_record(schedule: Schedule, verdict: Verdict) -> dict[str, Any]:
    """What the schedule utterance carries: the meetings, whether it holds, what broke (for the report and the UI)."""
    return {
        "meetings": [
            {"participant": m.participant, "location": m.location, "start": format_time(m.start),
             "end": format_time(m.end)}
            for m in schedule.meetings
        ],
        "ok": verdict.ok,
        "failed": list(verdict.failed),
        "violations": [v.model_dump() for v in verdict.violations],
        "preferences_met": list(verdict.preferences_met),
    }  # fmt: skip


def speak(c: Chat, agent: str) -> Generator[Event, None, str | Submitted]:
    """``agent``'s turn with the listeners' decisions; who holds the floor next, or the submitted schedule."""
    table = c.table
    table.tick()
    form = c.forms.traveler if agent == c.traveler else c.forms.planner
    reply = c.ask(form, agent)
    c.notes.pop(agent, None)
    c.cut.pop(agent, None)
    turn: Turn = reply.value
    role = c.role(agent)
    if turn.schedule is not None:
        verdict = verify(c.case, turn.schedule)
        yield table.say(agent, reply.with_value(turn.text), chunker=WholeMessage(), kind="schedule", role=role,
                        structured=verdict_record(turn.schedule, verdict))  # fmt: skip
        yield from table.disclose_rest(table.holder)
        c.transcript.append(record_line(f"{c.label(agent)}, the schedule", turn.text.replace("\n", "; ")))
        return Submitted(turn.schedule, verdict)
    if not turn.text:
        yield table.say(agent, reply.with_value(""), chunker=WholeMessage(), kind="statement", role=role)
        if agent == c.traveler:
            why = reply.error or "nothing was said"
            c.notes[agent] = f"Your last reply could not be used ({why}). Try again."
            return agent
        return c.traveler
    to = turn.to if turn.to in c.addressable(agent) else c.default_addressee(agent)
    addressed = {"to": to, **({"note": reply.note} if reply.note else {})}  # a default addressee says why
    said = table.say(agent, reply.with_value(turn.text), chunker=c.chunker(agent), kind="statement", role=role,
                     structured=addressed)  # fmt: skip
    yield said
    c.last = agent
    header = f"{c.label(agent)} to {c.label(to)}"
    floor = table.holder
    listeners = c.listeners(agent)
    taken: list[str] = []

    def listen(floor: Floor) -> Generator[Event, None, bool]:
        """After a chunk: each listener's decision; a yes cuts the speaker off and takes the floor."""
        partial = said_prefix(said.text, floor.units, floor.disclosed)
        yes = []
        for policy, group in c.groups(listeners):
            views = {name: c.view(name, speaker=c.label(agent), partial=partial) for name in group}
            decided = table.decide(group, floor, policy, views.__getitem__)
            for name in group:
                yield decided[name]
                if decided[name].interrupt:
                    yes.append(name)
        if not yes:
            return False
        cutter = to if to in yes else yes[0]
        yield table.cut(cutter, keep="discard", floor=floor)
        c.transcript.append(record_line(header, partial, cut=True, mark=f"[cut off by {cutter}]"))
        c.cut[cutter] = agent
        taken.append(cutter)
        return True

    if floor is not None and (yield from table.disclose_rest(floor, one_per_turn=True,
                                                             listen=listen if listeners else None)):  # fmt: skip
        return taken[0]
    c.transcript.append(record_line(header, said.text))
    yield table.give_floor(to, rule="addressed")
    return to


def game(c: Chat) -> Iterator[Event]:
    table, params, case = c.table, c.params, c.case
    people = " and ".join(person.name for person in case.people)
    setting = "; everyone may interrupt everyone" if params.symmetric else ""
    yield table.phase("case", detail=f"{case.id}: the traveler meets {people}; {params.max_rounds} rounds at most"
                      + setting)  # fmt: skip
    holder = c.traveler
    for turn in range(2 * params.max_rounds):
        if turn % 2 == 0:
            c.round = turn // 2 + 1
            yield table.phase("round", c.round)
        result = yield from speak(c, holder)
        if isinstance(result, Submitted):
            yield table.phase("verdict", c.round, detail=result.verdict.feedback().replace("\n", " "))
            answer = outcome(table.config.question, result.verdict.ok)
            if answer is not None:
                yield table.update_answers({c.traveler: answer}, cause="schedule")
            yield table.finish(EndReason.VERDICT, decision(c))
            return
        holder = result
    yield table.finish(EndReason.ROUNDS, decision(c))


def decision(c: Chat) -> FinalDecision:
    """The traveler's answer (``valid``/``invalid`` once it submitted; else none) is the game's."""
    table = c.table
    return FinalDecision(table.answers.get(c.traveler), "single", table.answer_list(), decided_by=c.traveler)
