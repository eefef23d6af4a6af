"""Speech generated as it is disclosed (``kernel.streaming``): what is said, what is generated, what a cut stops.

A small protocol (``Monologue``) has one speaker say one utterance through ``say_streaming`` and a
listener who may cut it off after a given unit, or suspend it there and have it go on with a new
generation (``resume_streaming``); the scripted backend plays a model that generates a fixed text in
steps (``continuing``). The kernel's stream checker reads every stream.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, Message, ScriptedBackend, SeatKind
from debate_core.backends.base import Capability
from debate_core.backends.scripted import continuing, scripted_tokens
from debate_core.errors import ImpossibleEvent
from debate_core.events import (
    DebateEnded,
    EndReason,
    Event,
    Interrupted,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceRevised,
)
from debate_core.kernel import CharRuleChunker, FieldSpec, Floor, Form, LineChunker, Streamed, Table, single
from debate_core.kernel.forms import FormInvalid
from debate_core.kernel.streaming import after_said, open_start
from debate_core.protocols import Protocol, ProtocolParams, RoleSpec, registry
from debate_core.protocols.consistency import check_stream
from tests.conftest import HANG_GUARD_S, QUESTION, of_type

TEXT = (
    "Nitrogen is about 78 percent of dry air, and oxygen about 21 percent (by volume). "
    'The rest is "mostly" argon, at 0.93 percent; carbon dioxide is near 0.04 percent.\n'
    "- a list item on its own line\n"
    "So the share is settled... by measurement, not by how much of a gas life makes or uses every day of the year!"
)


@dataclass(frozen=True)
class Seen:
    agent: str


SPEAK: Form[Seen, str] = Form(
    "speak",
    "the utterance",
    lambda seen: (Message("user", "Speak."),),
    lambda raw, seen: (raw.strip(), None),
    lambda seen: "",
    lambda seen: (FieldSpec("text", "text", "Your words"),),
    lambda values, seen: values["text"],
)


@dataclass(frozen=True)
class Going:
    agent: str
    said: str


def _rest(raw: str, going: Going) -> tuple[str, str | None]:
    if not raw.strip():
        raise FormInvalid("an empty rest")
    return raw.strip(), None


GO_ON: Form[Going, str] = Form(
    "go_on",
    "the rest of the utterance",
    lambda going: (Message("system", "You speak."), Message("user", "Speak.")),
    _rest,
    lambda going: "",
    lambda going: (FieldSpec("text", "text", "The rest"),),
    lambda values, going: values["text"],
    assistant_prefix=lambda going: going.said + " ",
    cacheable=False,
)
WORDED = dataclasses.replace(GO_ON, said_in_prompt=lambda going, said: (Message("user", f"Go on after: {said}"),))
REST = "Argon is third. Everything else is a trace by comparison, whatever is measured."


class MonologueParams(ProtocolParams):
    step: int = 4
    cut_after: int | None = None  # the listener cuts the speaker off after this many units
    resume_after: int | None = None  # or suspends it there, and the speaker goes on with a new generation
    worded: bool = False  # the going-on form words its continuation in the prompt itself
    chunker: Literal["chars", "tight", "lines"] = "chars"


CHUNKERS = {"chars": CharRuleChunker(), "tight": CharRuleChunker(30, 10), "lines": LineChunker()}


class Monologue(Protocol):
    name = "monologue"
    variants = ("one",)
    Params = MonologueParams
    roles = (RoleSpec("speaker", "speaks", 1, 1), RoleSpec("listener", "listens", 1, 1))

    def run(self, table: Table) -> Iterator[Event]:
        assert isinstance(self.params, MonologueParams)
        params = self.params
        (speaker,), (listener,) = table.with_role("speaker"), table.with_role("listener")
        table.tick()
        streamed = Streamed(
            SPEAK, Seen(speaker), CHUNKERS[params.chunker], params.step, read=lambda t: {"chars": len(t)}
        )
        floor = yield from table.say_streaming(speaker, streamed, role="speaker")

        def listen(floor: Floor) -> Generator[Event, None, bool]:
            if floor.disclosed == params.resume_after:
                yield table.cut(listener, keep="suspend", floor=floor)
                going = Going(speaker, " ".join(floor.units[: floor.disclosed]))
                form = WORDED if params.worded else GO_ON
                yield from table.resume_streaming(floor, Streamed(form, going, CHUNKERS[params.chunker], params.step))
                return False
            if floor.disclosed != params.cut_after:
                return False
            yield table.cut(listener, floor=floor)
            return True

        yield from table.disclose_rest(floor, one_per_turn=True, listen=listen)
        yield table.finish(EndReason.PHASES_DONE, single(speaker, None, table.answer_list()))


@pytest.fixture(autouse=True)
def monologue() -> Iterator[None]:
    registry.register(Monologue)
    yield
    registry.unregister(Monologue.name)


def speak(text: str = TEXT, *, seats: dict[str, Any] | None = None, backend: Any = None, **params: Any):
    agents = (AgentSpec(name="Ann", seat=SeatKind.HUMAN if seats else SeatKind.MODEL), AgentSpec(name="Bo"))
    config = DebateConfig(question=QUESTION, protocol="monologue", agents=agents, params=params)
    backend = backend or ScriptedBackend(lambda request: continuing(text, request))
    events = Debate(config, backend, seats=seats or {}).run()
    check_stream(events)  # a stream the kernel's moves can have produced
    return events, backend


def said(events: list[Event]) -> tuple[str, ...]:
    return tuple(e.text for e in of_type(events, UnitDisclosed))


def generated(events: list[Event]) -> str:
    return "".join(e.text for e in events if isinstance(e, UtteranceGenerated | UtteranceExtended))


@pytest.mark.parametrize("chunker", ["chars", "tight", "lines"])
@pytest.mark.parametrize("step", [1, 2, 5, 13, 1_000])
def test_a_streamed_utterance_says_what_the_chunker_cuts_from_the_whole_text_whatever_the_step(step, chunker):
    events, backend = speak(step=step, chunker=chunker)
    assert said(events) == CHUNKERS[chunker].split(TEXT)
    assert generated(events) == TEXT  # every step recorded once, in order
    steps = backend.requests
    assert len(steps) == -(-len(scripted_tokens(TEXT)) // step)  # ceil: the last step ends the generation
    assert all(r.sampling.max_new_tokens == step for r in steps)
    assert [r.assistant_prefix for r in steps] == [generated(events)[: len(r.assistant_prefix)] for r in steps]
    first = of_type(events, UtteranceGenerated)[0]
    extended = of_type(events, UtteranceExtended)
    assert first.streaming is bool(extended) and (not extended or extended[-1].ended)
    last = extended[-1] if extended else first
    assert last.structured == {"chars": len(TEXT)}  # the protocol's reading of the whole text, when it ended
    assert isinstance(events[-2], UtteranceCompleted) and events[-1].stats.generated_tokens == len(
        scripted_tokens(TEXT)
    )


def test_every_unit_is_disclosed_as_soon_as_it_is_ready_not_after_the_whole_text_is_generated():
    events, _ = speak(step=3)
    for index in range(len(said(events)) - 1):  # the last is ready when the generation ends
        disclosed = next(e for e in of_type(events, UnitDisclosed) if e.index == index)
        made = generated(events[: events.index(disclosed)])
        assert made != TEXT and len(made) < len(TEXT)  # generated before the rest was


def test_a_cut_stops_the_generation_within_one_step_and_records_what_was_generated_and_never_said():
    events, backend = speak(step=5, cut_after=1)
    [cut] = of_type(events, Interrupted)
    first = CharRuleChunker().split(TEXT)[0]
    assert said(events) == (first,) and not cut.suspended
    made = generated(events)
    assert made.startswith(first) and cut.unfinished == made[len(first) :] and cut.discarded == ()
    assert 0 < len(scripted_tokens(cut.unfinished)) <= 5  # at most one step's tokens past the point
    assert len(backend.requests) == -(-len(scripted_tokens(made)) // 5)  # no step after the cut
    end = events[-1]
    assert isinstance(end, DebateEnded) and end.stats.generated_tokens == len(scripted_tokens(made))


def test_a_person_writes_the_utterance_whole_and_it_is_disclosed_as_any_other():
    channel = HumanChannel()
    seat = HumanSeat("Ann", channel, timeout_s=HANG_GUARD_S)
    import threading

    def person() -> None:
        request = channel.pending(timeout_s=HANG_GUARD_S)
        assert request is not None and request.kind == "speak"
        channel.submit(request.request_id, {"text": TEXT})

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    events, backend = speak(seats={"Ann": seat})
    thread.join(5)
    [first] = of_type(events, UtteranceGenerated)
    assert not first.streaming and first.units == CharRuleChunker().split(TEXT.strip())
    assert said(events) == first.units and not of_type(events, UtteranceExtended) and not backend.requests


def test_a_backend_that_cannot_continue_a_partial_reply_generates_the_utterance_whole():
    class Whole(ScriptedBackend):
        capabilities = frozenset()

    events, backend = speak(backend=Whole(lambda request: TEXT), step=3)
    [first] = of_type(events, UtteranceGenerated)
    assert not first.streaming and said(events) == CharRuleChunker().split(TEXT.strip())
    assert [r.sampling.max_new_tokens for r in backend.requests] == [1024]  # one call, the form's whole cap


def test_the_open_part_of_a_text_begins_after_the_last_ready_unit_whitespace_included():
    text = 'One sentence that is long enough to close. "  Two," she said (quietly) and went'
    units = CharRuleChunker().split(text)
    assert text[open_start(text, units) :] == text[text.index(units[-1]) - 1 :]
    assert open_start("a b", ("a b",)) == 0


def test_the_checker_refuses_an_extension_after_the_generation_ended_and_a_completion_before_it():
    events, _ = speak(step=4)
    ended = next(e for e in of_type(events, UtteranceExtended) if e.ended)
    at = events.index(ended)
    again = ended.model_copy(update={"seq": ended.seq + 1, "units": ("More words.",)})
    with pytest.raises(ImpossibleEvent, match="is not being generated"):
        check_stream([*events[: at + 1], again])
    early = next(e for e in of_type(events, UtteranceExtended) if not e.ended)
    completed = UtteranceCompleted(
        seq=early.seq + 1, turn=early.turn, public_tokens=early.public_tokens, at=early.at, speaker="Ann",
        utterance_id=early.utterance_id, units=len(said(events[: events.index(early)])) + len(early.units),
    )  # fmt: skip
    with pytest.raises(ImpossibleEvent, match=r"not fully disclosed|still being generated"):
        check_stream([*events[: events.index(early) + 1], completed])


# -- going on after a suspension: a backend that continues a partial reply, and one that cannot ----------------


class NoContinuation(ScriptedBackend):
    """A plain chat API (the OpenAI API's GPT-4o-mini): everything but continuing a partial assistant reply."""

    capabilities = frozenset(Capability) - {Capability.CONTINUATION}


def going_on(backend_class: type[ScriptedBackend], **params: Any):
    """The monologue suspended after its first unit and resumed; the model's text after it is REST."""
    first = CharRuleChunker().split(TEXT)[0]
    whole = f"{first} {REST}"  # what the speaker would say, the first unit already said
    backend = backend_class(lambda r: continuing(TEXT if r.kind == "speak" else whole, r))
    events, _ = speak(backend=backend, resume_after=1, **params)
    return events, backend, first


def test_a_backend_that_continues_goes_on_from_what_was_said_as_its_own_partial_reply():
    events, backend, first = going_on(ScriptedBackend, step=4)
    [revised] = of_type(events, UtteranceRevised)
    assert revised.streaming and revised.continued == "prefill"
    steps = [r for r in backend.requests if r.kind == "go_on"]
    assert steps[0].assistant_prefix == first + " " and all(r.sampling.max_new_tokens == 4 for r in steps)
    assert all("You have said so far" not in m.content for r in steps for m in r.messages)
    assert said(events) == (first, *CharRuleChunker().split(REST))


@pytest.mark.parametrize("worded", [False, True])
def test_a_backend_that_cannot_continue_goes_on_from_what_was_said_in_its_prompt(worded):
    """#25: a plain chat API cannot continue a partial reply, so the new generation is asked once with what was
    said in its prompt (the form's own wording, or the kernel's), and its answer is the rest, less what it
    repeated of what was said; the revision records that it went on in the prompt."""
    events, backend, first = going_on(NoContinuation, worded=worded)
    [opening] = of_type(events, UtteranceGenerated)
    assert not opening.streaming  # generated whole: steps need a continuation
    [revised] = of_type(events, UtteranceRevised)
    assert revised.streaming and revised.continued == "prompt"
    assert revised.discarded == CharRuleChunker().split(TEXT)[1:]  # the rest it had generated, never said
    [request] = [r for r in backend.requests if r.kind == "go_on"]  # one call: the rest whole
    assert request.assistant_prefix == "" and request.cache_key is None
    prompt = request.messages[-1].content
    if worded:
        assert request.messages == (Message("user", f"Go on after: {first}"),)
    else:
        assert prompt == f'Speak.\n\nYou have said so far:\n"{first}"\n\n' + (
            "Continue from exactly there: write only what comes next, without repeating what you have said."
        )
    # the model repeated what it had said; only the rest is said after it
    assert said(events) == (first, *CharRuleChunker().split(REST))
    ended = of_type(events, UtteranceExtended)[-1]
    assert ended.ended and ended.raw == f"{first} {REST}" and ended.text == REST
    assert isinstance(events[-1], DebateEnded) and events[-1].reason == EndReason.PHASES_DONE


def test_a_continuation_in_the_prompt_drops_what_it_repeats_of_what_was_said_and_nothing_else():
    said_ = "Nitrogen is first.  It is 78\npercent."
    assert after_said("Nitrogen is first. It is 78 percent. Oxygen is second.", said_) == "Oxygen is second."
    assert after_said("  Oxygen is second.", said_) == "  Oxygen is second."  # no repetition: as answered
    assert after_said("Nitrogen is first. It is 78 percentages.", "Nitrogen is first. It is 78 percent") == (
        "Nitrogen is first. It is 78 percentages."
    )  # a word that only begins like the last one said is not a repetition of it
    assert after_said("Anything.", "  ") == "Anything."


def test_a_continuation_in_the_prompt_that_says_nothing_ends_the_utterance_where_it_was_and_is_recorded():
    backend = NoContinuation(lambda r: continuing(TEXT, r) if r.kind == "speak" else "   ")
    events, _ = speak(backend=backend, resume_after=1)
    first = CharRuleChunker().split(TEXT)[0]
    assert said(events) == (first,)  # not the rest it had prepared: that was discarded
    ended = of_type(events, UtteranceExtended)[-1]
    assert ended.ended and ended.text == "" and not ended.valid and ended.error == "an empty rest"
    assert isinstance(events[-2], UtteranceCompleted)
