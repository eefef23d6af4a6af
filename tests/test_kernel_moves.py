"""The kernel's shared moves that replaced the protocols' own copies: disclosing the rest of an utterance,
mapping a reply's value, and end conditions that read only a narrow view of the table."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from debate_core import Debate, ScriptedBackend
from debate_core.backends.base import Completion
from debate_core.config import DebateConfig
from debate_core.events import EndReason, Interrupted, UnitDisclosed, UtteranceCompleted
from debate_core.events.records import GenerationInfo, Source
from debate_core.kernel import Floor, FormResult, LineChunker, Table, budget_spent, first_of, stop_requested
from tests.conftest import make_config, of_type

SPEECH = FormResult("First point.\nSecond point.\nThird point.", Source.MODEL, True)


def seated_table() -> Table:
    return Debate(make_config(), ScriptedBackend(lambda request: "unused")).table


def drain(moves: Generator[Any, None, bool]) -> tuple[list[Any], bool]:
    """Every event a move yields, and what it returns."""
    events = []
    while True:
        try:
            events.append(next(moves))
        except StopIteration as done:
            return events, done.value


def test_the_rest_of_an_utterance_is_disclosed_one_unit_per_turn_and_the_floor_freed():
    table = seated_table()
    table.tick()
    table.say("Alex", SPEECH, chunker=LineChunker())
    events, stopped = drain(table.disclose_rest(table.holder, one_per_turn=True))
    assert [(e.index, e.turn) for e in of_type(events, UnitDisclosed)] == [(0, 1), (1, 2), (2, 3)]
    assert isinstance(events[-1], UtteranceCompleted) and not stopped
    assert table.holder is None and table.turn == 3
    assert drain(table.disclose_rest(table.holder)) == ([], False)  # nobody holds the floor: nothing happens


def test_without_one_unit_per_turn_the_whole_rest_is_disclosed_in_the_same_turn():
    table = seated_table()
    table.say("Alex", SPEECH, chunker=LineChunker())
    events, _ = drain(table.disclose_rest())
    assert {e.turn for e in events} == {0} and len(of_type(events, UnitDisclosed)) == 3


def listener(table: Table, heard: list[int], cut_after: int | None = None) -> Any:
    """A listener that notes after how many units it was asked, and cuts the speaker off after ``cut_after``."""

    def listen(floor: Floor) -> Generator[Any, None, bool]:
        heard.append(floor.disclosed)
        if floor.disclosed != cut_after:
            return False
        yield table.cut("Chris", floor=floor)
        return True

    return listen


def test_a_listener_that_cuts_the_speaker_off_stops_the_disclosure_there():
    table = seated_table()
    table.say("Alex", SPEECH, chunker=LineChunker())
    heard: list[int] = []
    events, stopped = drain(table.disclose_rest(table.holder, listen=listener(table, heard, cut_after=2)))
    assert stopped and heard == [1, 2]
    assert [e.index for e in of_type(events, UnitDisclosed)] == [0, 1]
    assert of_type(events, Interrupted)[0].discarded == ("Third point.",)
    assert of_type(events, UtteranceCompleted) == []


def test_a_listener_is_not_asked_after_the_last_unit():
    table = seated_table()
    table.say("Alex", SPEECH, chunker=LineChunker())
    heard: list[int] = []
    events, stopped = drain(table.disclose_rest(listen=listener(table, heard)))
    assert heard == [1, 2] and not stopped and isinstance(events[-1], UtteranceCompleted)


def test_a_reply_mapped_to_another_value_keeps_how_it_came_about():
    completion = Completion(text="raw", prompt_tokens=5, completion_tokens=3)
    reply = FormResult(
        {"text": "Hello."}, Source.HUMAN, False, "late", "noted", "raw", GenerationInfo(completion_tokens=3), completion
    )
    said = reply.map(lambda value: value["text"])
    assert said.value == "Hello." and said.record() == reply.record() and said.completion is completion
    assert reply.with_value(7).value == 7 and reply.with_value(7).completion is completion


@dataclass
class Counted:
    """Only what end conditions read of a table (``TableState``), no ``Table``."""

    config: DebateConfig
    turn: int = 0
    public_tokens: int = 0
    silent_streak: int = 0
    stop_requested: bool = False
    salt: int = 0

    def ask(self, form: Any, who: Any, view: Any, *, nonce: int = 0) -> dict[str, FormResult[Any]]:
        raise AssertionError("an end condition asks no seat")


def test_end_conditions_read_only_the_narrow_state():
    state = Counted(make_config(token_budget=100), public_tokens=99)
    ending = first_of(budget_spent, stop_requested)
    assert ending(state) is None
    state.stop_requested = True
    assert ending(state) is EndReason.STOPPED
    state.public_tokens = 100
    assert ending(state) is EndReason.BUDGET  # in the order given
