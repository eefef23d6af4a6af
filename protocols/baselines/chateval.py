"""RPD's other communication strategies (ChatEval, Chan et al.): simultaneous talk, with or without a summarizer.

What it does: ``rpd`` drives ``baselines/rpd`` when its ``strategy`` is not ChatEval's one-by-one
(that one is ``loop.rpd``):

* ``simultaneous``: each round every debater speaks at once, in its role (``loop.ROLE_PLAYS``
  or its own persona), asked in one batch, so no one reads this round's messages, only the
  earlier rounds'; after the round every message joins the discussion everyone reads;
* ``simultaneous_summarizer``: the same, but after each round but the last a summarizer (ChatEval's
  extra model) summarizes the round's messages, the earlier summaries in view (``rpd_summary``),
  and the summary, not the messages, joins the discussion the debaters read next. The summarizer
  is the seat in the ``summarizer`` role (``SUMMARIZER``, at most one; a person may take it);
  without one the first debater's seat is asked, with the summarizer's own prompt and no persona,
  the same model as another call, as a study seats it. No summary is asked after the last round:
  no one would read it.

After ``rounds`` rounds the majority of the debaters' last answers decides, as in one-by-one.

What it does not do: word the prompts (``prompts/rpd_turn.txt``, ``prompts/rpd_summary.txt``) or
change the one-by-one strategy (``loop.rpd``).
"""

from __future__ import annotations

from collections.abc import Iterator

from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.endings import majority
from debate_core.protocols.base import RoleSpec
from protocols.baselines.loop import ROLE_PLAYS
from protocols.baselines.state import Desk
from protocols.baselines.views import SolverView

SUMMARIZER = RoleSpec(
    "summarizer", "rpd with a summarizer: after each round, summarizes the round for the debaters' next one", 0, 1
)


def roles(strategy: str) -> tuple[RoleSpec, ...]:
    """The roles besides the debaters' that ``strategy`` seats (the summarizer, with a summarizer)."""
    return (SUMMARIZER,) if strategy == "simultaneous_summarizer" else ()


def summarizer(desk: Desk) -> str:
    """Who writes the summaries: the summarizer's seat, else the first debater's."""
    seated = desk.table.with_role("summarizer")
    return seated[0] if seated else desk.agents[0]


def rpd(desk: Desk) -> Iterator[Event]:
    """ChatEval's simultaneous talk (with a summarizer when ``strategy`` says): each round in one batch."""
    table, config = desk.table, desk.table.config
    persona = {
        agent: config.agent(agent).persona or ROLE_PLAYS[index % len(ROLE_PLAYS)]
        for index, agent in enumerate(desk.agents)
    }
    summarized = desk.params.strategy == "simultaneous_summarizer"
    record: list[str] = []
    rounds = desk.params.rounds
    for round_ in range(1, rounds + 1):
        yield table.phase("discussion", round_)
        table.tick()
        heard = tuple(record)

        def seen(agent: str, round_: int = round_, heard: tuple[str, ...] = heard) -> SolverView:
            return desk.view(agent, round=round_, record=heard, persona=persona[agent])

        replies = desk.ask_all("rpd_turn", seen)
        said: list[str] = []
        for index, agent in enumerate(desk.agents):
            if index:
                table.tick()
            yield from desk.voice(replies[agent], kind="rpd_turn", agent=agent, round=round_)
            if replies[agent].value.text:
                said.append(f"{agent}: {replies[agent].value.text}")
        if not summarized:
            record.extend(said)
        elif round_ < rounds:
            yield table.phase("summary", round_)
            table.tick()
            writer = summarizer(desk)
            reply = desk.ask("rpd_summary", agent=writer, round=round_, record=heard, others=tuple(said), persona="")
            yield from desk.voice(reply, kind="rpd_summary", agent=writer)
            record.append(f"Summary of round {round_}: {reply.value or '(no summary)'}")
    yield table.finish(EndReason.ROUNDS, majority(table.answer_list(), table.rng))
