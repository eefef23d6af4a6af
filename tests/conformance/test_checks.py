"""The conformance checks themselves: each names the case and the rule a broken protocol breaks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from round_robin.protocol import STATEMENT, RoundRobin, Seen

from debate_core.events import EVENT_TYPES, Event
from debate_core.events.fold import EventFold
from debate_core.kernel import Table, WholeMessage
from debate_core.protocols import registry
from debate_core.testing import ConformanceError, case_for, check_demo, check_folds, run_demo
from tests.protocols.judged_rounds import JudgedRounds


class Endless(RoundRobin):
    """Statements in turn, forever: it never finishes."""

    name = "endless"
    variants = ("standard",)

    def run(self, table: Table) -> Iterator[Event]:
        question = table.config.question
        while True:
            for speaker in table.names:
                table.tick()
                seen = lambda agent: Seen(agent, question.render(), (), question.labels)  # noqa: E731
                reply = table.ask(STATEMENT, [speaker], seen)[speaker]
                yield table.say(speaker, reply, chunker=WholeMessage(), kind="statement")
                yield from table.disclose()


@pytest.fixture
def registered():
    added: list[str] = []

    def register(cls):
        registry.register(cls)
        added.append(cls.name)

    yield register
    for name in added:
        registry.unregister(name)


def test_a_demo_that_never_ends_is_reported_after_a_bounded_number_of_events(registered):
    registered(Endless)
    with pytest.raises(ConformanceError, match=r"endless/standard: the scripted demo ran past 5,000 events"):
        check_demo(case_for("endless/standard"))


def test_a_protocol_without_a_scripted_demo_is_reported(registered):
    registered(JudgedRounds)
    with pytest.raises(ConformanceError, match=r"judged-rounds/standard: the protocol has no scripted demo"):
        case_for("judged-rounds/standard")


def test_a_variant_that_needs_parameters_of_its_own_names_the_protocols_reason_until_given_them():
    with pytest.raises(ConformanceError, match=r"sid/sid_c: .*set the parameter classifier=PATH"):
        case_for("sid/sid_c")


def test_a_variant_that_needs_a_person_gets_the_automatic_person_in_that_seat():
    case = case_for("handraiser/human")
    assert case.people == ("Cy",) and case.refusal and "needs a person in the moderator's seat" in case.refusal
    run = check_demo(case)
    assert "verdict" in run.filled["Cy"]


def test_a_fold_that_misses_an_event_type_or_fails_on_an_event_is_reported():
    events = run_demo(case_for("parliament/cot")).events

    class Partial(EventFold):
        IGNORED = frozenset(set(EVENT_TYPES) - {"debate_ended"})

    with pytest.raises(ConformanceError, match="Partial neither handles nor ignores debate_ended"):
        check_folds(events, [Partial()])

    class Fragile(EventFold):
        IGNORED = frozenset(set(EVENT_TYPES) - {"debate_ended"})

        def _debate_ended(self, event: Event) -> None:
            raise KeyError("final_answer")

    with pytest.raises(ConformanceError, match=r"Fragile fails on event \d+ \(debate_ended\): KeyError"):
        check_folds(events, [Fragile()])
