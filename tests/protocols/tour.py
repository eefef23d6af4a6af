"""A test-only protocol that makes every kernel move and emits every event type once or more.

It exercises what the later protocols need: a suspended speech with a point of information
and its reply, resuming (continue or regenerate), listener decisions (prompted, with a
probability), a non-blocking question, a revision, signals, a compressed view, an analysis,
composed acts, a silent turn, answer updates and a single-agent final answer. The ``streaming``
variant generates the speech as it is disclosed, six tokens a step: the point stops the
generation, and a new one goes on from what was said. Its scripted responder (``tour_backend``)
plays every seat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from debate_core import Message, ScriptedBackend, Signals
from debate_core.backends import Capability, GenerationRequest
from debate_core.backends.scripted import ScriptedReply, continuing
from debate_core.events import EndReason, Event, SignalsMeasured
from debate_core.kernel import (
    CharRuleChunker,
    FieldSpec,
    Floor,
    Form,
    FormInvalid,
    PromptedPolicy,
    Streamed,
    Table,
    WholeMessage,
    decision_form,
    single,
)
from debate_core.kernel.signals import token_stats
from debate_core.protocols import Protocol, Requirement, RoleSpec
from protocols.ace.events import ActionComposed, AnalysisMade
from protocols.sid.events import ContextCompressed

SPEECH_TEXT = (
    "The second letter of the Greek alphabet is beta, and that settles the question for me. "
    "Alpha comes first, beta second, gamma third, as every list of the letters shows. "
    "So the answer is B, and I will not be moved from it."
)


@dataclass(frozen=True)
class Seen:
    agent: str
    text: str


def _text_form(kind: str, signals: Signals | None = None) -> Form[Seen, str]:
    def parse(raw: str, seen: Seen) -> tuple[str, str | None]:
        if not raw.strip():
            raise FormInvalid("empty")
        return raw.strip(), None

    return Form(
        kind,
        f"a {kind}",
        lambda seen: (Message("user", f"{seen.agent}: {seen.text}"),),
        parse,
        lambda seen: "",
        lambda seen: (FieldSpec("text", "text", "Text"),),
        lambda values, seen: values["text"],
        signals=signals or Signals(),
    )


SPEECH = _text_form("speech", Signals(token_stats=True))
REPLY = _text_form("poi_reply")
STREAM = _text_form("stream")
GO_ON = dataclasses.replace(_text_form("go_on"), assistant_prefix=lambda seen: seen.text + " ")
GONE_ON = "Zero-based or not, beta is the second letter. So the answer is still B."
POI = decision_form(
    "poi_check", "a point of information, or not", lambda seen: (Message("user", seen.text),), with_text=True,
    probabilities=True, choices=("INTERRUPT", "NO"),
)  # fmt: skip


class Tour(Protocol):
    """Every kernel move, for tests."""

    name = "tour"
    variants = ("continue", "regenerate", "streaming")
    roles = (RoleSpec("speaker", "speaks", 1, 1), RoleSpec("listener", "listens", 1, None))

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return {f.kind: f for f in (SPEECH, REPLY, POI, STREAM, GO_ON)}

    def requirements(self) -> tuple[Requirement, ...]:
        return (
            Requirement(Capability.TOKEN_STATS, "the speaker's confidence is measured", ("speaker",)),
            Requirement(Capability.CHOICE_PROBS, "a listener's P(interrupt) is recorded", ("listener",)),
        )

    def run(self, table: Table) -> Iterator[Event]:
        (speaker,) = table.with_role("speaker")
        listeners = table.with_role("listener")
        yield table.phase("opening")
        table.tick()
        if self.variant == "streaming":
            yield from self._streaming(table, speaker, listeners)
            return
        speech = table.ask(SPEECH, [speaker], lambda a: Seen(a, "Speak."))[speaker]
        stats = token_stats(speech.completion) if speech.completion else None
        if stats is not None:
            yield table.emit(
                SignalsMeasured, agent=speaker, stats=stats, score=stats.nll_max, threshold=5.0, rule="nll_max",
                passed=stats.nll_max < 5.0,
            )  # fmt: skip
        yield table.give_floor(speaker, rule="phase")
        yield table.say(speaker, speech, chunker=CharRuleChunker(90, 40), role="speaker")
        floor, raised = table.floor, False
        while floor is not None and table.holder is not None:
            table.tick()
            yield from table.disclose()
            if table.holder is None or raised:
                continue
            said = floor.said
            decided = table.decide(listeners, floor, PromptedPolicy(POI), lambda a, s=said: Seen(a, s))
            yield from decided.values()
            point = next((d for d in decided.values() if d.interrupt), None)
            if point is None:
                continue
            raised = True
            yield table.cut(point.listener, keep="suspend")
            yield table.intervene(point.listener, speaker, "poi", point.text or "", blocking=True, floor=floor)
            question = point.text or ""
            reply = table.ask(REPLY, [speaker], lambda a, q=question: Seen(a, q))[speaker]
            yield table.say(speaker, reply, chunker=WholeMessage(), kind="poi_reply", role="speaker")
            while table.holder is not None:
                table.tick()
                yield from table.disclose()
            if self.variant == "regenerate":
                again = table.ask(SPEECH, [speaker], lambda a: Seen(a, "Go on."), nonce=1)[speaker]
                yield from table.resume(floor, reply=again, chunker=CharRuleChunker(90, 40))
            else:
                yield from table.resume(floor)
        yield from self._rest(table, speaker, listeners)

    def _streaming(self, table: Table, speaker: str, listeners: tuple[str, ...]) -> Iterator[Event]:
        chunker = CharRuleChunker(90, 40)
        floor = yield from table.say_streaming(speaker, Streamed(STREAM, Seen(speaker, "Speak."), chunker, 6))
        raised = False

        def listen(floor: Floor) -> Generator[Event, None, bool]:
            nonlocal raised
            if raised:
                return False
            said = floor.said
            decided = table.decide(listeners, floor, PromptedPolicy(POI), lambda a, s=said: Seen(a, s))
            yield from decided.values()
            point = next((d for d in decided.values() if d.interrupt), None)
            if point is None:
                return False
            raised = True
            yield table.cut(point.listener, keep="suspend", floor=floor)
            yield table.intervene(point.listener, speaker, "poi", point.text or "", blocking=True, floor=floor)
            question = point.text or ""
            reply = table.ask(REPLY, [speaker], lambda a, q=question: Seen(a, q))[speaker]
            yield table.say(speaker, reply, chunker=WholeMessage(), kind="poi_reply", role="speaker")
            yield from table.disclose_rest()
            yield from table.resume_streaming(floor, Streamed(GO_ON, Seen(speaker, floor.said), chunker, 6))
            return False

        yield from table.disclose_rest(floor, one_per_turn=True, listen=listen)
        yield from self._rest(table, speaker, listeners)

    def _rest(self, table: Table, speaker: str, listeners: tuple[str, ...]) -> Iterator[Event]:
        yield table.intervene(listeners[0], speaker, "question", "Why beta?", blocking=False)
        table.tick()
        yield table.silent_turn()
        yield table.emit(
            ContextCompressed, agent=listeners[0], round=1, source_text=SPEECH_TEXT, source_tokens=40,
            kept_spans=((0, 44),), kept_text=SPEECH_TEXT[:44], ratio=0.3, top_p=0.4, layer=-1,
        )  # fmt: skip
        yield table.emit(AnalysisMade, analyst=listeners[0], round=1, findings={"agree": True}, stop=True, reason="ok")
        yield table.emit(ActionComposed, agent=speaker, round=1, acts=("retain", "withhold"), action_text="Keep B.")
        yield table.update_answers(dict.fromkeys(table.names, "B"), cause="tour")
        yield table.finish(EndReason.PHASES_DONE, single(speaker, "B", table.answer_list()))


def tour_backend() -> ScriptedBackend:
    def respond(request: GenerationRequest) -> str | ScriptedReply:
        if request.kind == "speech":
            return SPEECH_TEXT if request.turn == 1 else "Beta again, as I said. Nothing has changed my mind."
        if request.kind == "stream":
            return continuing(SPEECH_TEXT, request)
        if request.kind == "go_on":
            return continuing(GONE_ON, request)
        if request.kind == "poi_check":
            return "INTERRUPT: But is the count zero-based?" if request.agent == "Chris" else "NO"
        return "No, the first letter is alpha, so beta is the second."

    return ScriptedBackend(respond)
