"""Seats: a language model or a human behind one two-step interface.

What it does: every seat answers three kinds of request (initial answer, plan,
utterance) in two steps, so the engine can batch all model calls of a turn:

1. ``ask_*(view)`` returns the ``GenerationRequest``s this seat needs (a model
   seat: one; a human seat: none, it posts the view to its channel instead);
2. after the engine ran the whole batch, ``receive_*(view, completions)``
   returns the result (a human seat blocks here until the person replies or
   the timeout passes).

``ModelSeat`` validates model output and applies the documented fallbacks;
``HumanSeat`` relays through a ``HumanChannel`` and falls back the same way
when the person does not answer in time.

What it does not do: decide who speaks, or see anything but its view.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from debate_core.backends.base import (
    Completion,
    GenerationRequest,
    Message,
    RequestKind,
    SamplingParams,
)
from debate_core.config import DebateConfig, SeatKind
from debate_core.errors import ConfigError
from debate_core.events import GenerationInfo, PromptMessage, Source
from debate_core.human import (
    HumanChannel,
    HumanRequest,
    InitialReply,
    Reply,
    RequestType,
    UtteranceReply,
)
from debate_core.plans import (
    ActionPlan,
    PlanInvalid,
    fallback_plan,
    initial_answer_json_schema,
    parse_initial_answer,
    parse_plan_text,
    plan_json_schema,
)
from debate_core.prompting import PromptBuilder
from debate_core.views import AgentView, UtteranceView


@dataclass(frozen=True, slots=True)
class PlanResult:
    plan: ActionPlan
    source: Source
    valid: bool
    error: str | None = None
    note: str | None = None
    raw: str | None = None
    generation: GenerationInfo = field(default_factory=GenerationInfo)


@dataclass(frozen=True, slots=True)
class InitialResult:
    answer: str | None
    reason: str
    source: Source
    valid: bool
    error: str | None = None
    note: str | None = None
    raw: str | None = None
    generation: GenerationInfo = field(default_factory=GenerationInfo)


@dataclass(frozen=True, slots=True)
class UtteranceResult:
    text: str
    source: Source
    error: str | None = None
    raw: str | None = None
    generation: GenerationInfo = field(default_factory=GenerationInfo)


class Seat(ABC):
    """One debater's way of answering the engine."""

    kind: SeatKind

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def ask_initial(self, view: AgentView) -> list[GenerationRequest]: ...

    @abstractmethod
    def receive_initial(self, view: AgentView, completions: Sequence[Completion]) -> InitialResult: ...

    @abstractmethod
    def ask_plan(self, view: AgentView) -> list[GenerationRequest]: ...

    @abstractmethod
    def receive_plan(self, view: AgentView, completions: Sequence[Completion]) -> PlanResult: ...

    @abstractmethod
    def ask_utterance(self, view: UtteranceView) -> list[GenerationRequest]: ...

    @abstractmethod
    def receive_utterance(self, view: UtteranceView, completions: Sequence[Completion]) -> UtteranceResult: ...

    def cancel(self) -> None:  # noqa: B027 - optional hook, a no-op for most seats
        """Stop any wait in progress (the debate is being stopped)."""


class ModelSeat(Seat):
    """A seat filled by the backend's language model."""

    kind = SeatKind.MODEL

    def __init__(
        self,
        name: str,
        prompts: PromptBuilder,
        *,
        temperature: float,
        max_new_tokens: int,
        seed: int,
        record_prompts: bool = False,
        cache_prefix: str | None = None,
        utterance_max_new_tokens: int | None = None,
    ) -> None:
        super().__init__(name)
        self.utterance_max_new_tokens = utterance_max_new_tokens
        self.prompts = prompts
        self.cache_prefix = cache_prefix
        self.temperature = temperature
        self.max_new_tokens = max_new_tokens
        self.seed = seed
        self.record_prompts = record_prompts
        self._asked_at = 0.0
        self._pending: GenerationRequest | None = None

    def _ask(
        self,
        kind: RequestKind,
        turn: int,
        messages: tuple[Message, ...],
        schema: dict[str, Any] | None = None,
    ) -> list[GenerationRequest]:
        self._asked_at = time.perf_counter()
        # A distinct, reproducible sampling seed per (debate seed, agent, turn, kind).
        seed = (self.seed * 1_000_003 + turn * 7_919 + list(RequestKind).index(kind)) % (2**31)
        cap = self.max_new_tokens
        if kind is RequestKind.UTTERANCE and self.utterance_max_new_tokens is not None:
            cap = min(cap, self.utterance_max_new_tokens)
        sampling = SamplingParams(self.temperature, cap, seed)
        # Initial answers are asked once: no point caching their prompt.
        reuse = self.cache_prefix is not None and kind is not RequestKind.INITIAL_ANSWER
        cache_key = f"{self.cache_prefix}{kind.value}" if reuse else None
        self._pending = GenerationRequest(messages, sampling, kind, self.name, turn, schema, cache_key)
        return [self._pending]

    def _info(self, completion: Completion) -> GenerationInfo:
        prompt = None
        if self.record_prompts and self._pending is not None:
            prompt = tuple(PromptMessage(role=m.role, content=m.content) for m in self._pending.messages)
        return GenerationInfo(
            prompt_tokens=completion.prompt_tokens,
            cached_tokens=completion.cached_tokens,
            completion_tokens=completion.completion_tokens,
            latency_s=round(time.perf_counter() - self._asked_at, 6),
            prompt=prompt,
        )

    # initial answers
    def ask_initial(self, view: AgentView) -> list[GenerationRequest]:
        messages = self.prompts.initial_answer_messages(view)
        schema = initial_answer_json_schema(view.question.labels)
        return self._ask(RequestKind.INITIAL_ANSWER, view.turn, messages, schema)

    def receive_initial(self, view: AgentView, completions: Sequence[Completion]) -> InitialResult:
        raw = completions[0].text
        info = self._info(completions[0])
        try:
            answer, reason, note = parse_initial_answer(raw, view.question.labels)
        except PlanInvalid as error:
            return InitialResult(None, "", Source.MODEL, False, str(error), None, raw, info)
        return InitialResult(answer, reason, Source.MODEL, True, None, note, raw, info)

    # plans
    def ask_plan(self, view: AgentView) -> list[GenerationRequest]:
        messages = self.prompts.plan_messages(view)
        schema = plan_json_schema(view.allowed, view.question.labels)
        return self._ask(RequestKind.PLAN, view.turn, messages, schema)

    def receive_plan(self, view: AgentView, completions: Sequence[Completion]) -> PlanResult:
        raw = completions[0].text
        info = self._info(completions[0])
        try:
            plan, note = parse_plan_text(raw, view.allowed, view.question.labels)
        except PlanInvalid as error:
            return PlanResult(fallback_plan(view.current_answer), Source.MODEL, False, str(error), None, raw, info)
        return PlanResult(plan, Source.MODEL, True, None, note, raw, info)

    # utterances
    def ask_utterance(self, view: UtteranceView) -> list[GenerationRequest]:
        messages = self.prompts.utterance_messages(view)
        return self._ask(RequestKind.UTTERANCE, view.base.turn, messages)

    def receive_utterance(self, view: UtteranceView, completions: Sequence[Completion]) -> UtteranceResult:
        raw = completions[0].text
        text = clean_utterance(raw, self.name)
        error = None if text else "the model produced an empty utterance"
        return UtteranceResult(text, Source.MODEL, error, raw, self._info(completions[0]))


def clean_utterance(raw: str, name: str) -> str:
    """Strip whitespace, wrapping quotes and a leading ``Name:`` the model may add."""
    text = raw.strip()
    for prefix in (f"{name}:", f"**{name}:**", f"{name} :"):
        if text.lower().startswith(prefix.lower()):
            text = text[len(prefix) :].strip()
            break
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text.count(text[0]) == 2:
        text = text[1:-1].strip()
    return text


class HumanSeat(Seat):
    """A seat filled by a person through a ``HumanChannel``.

    ``timeout_s`` bounds every wait (None: wait as long as it takes). When the
    person does not answer in time, the plan falls back to listen / urgency 0 /
    current answer, an utterance is empty (the floor is given back), and an
    initial answer is missing; each records why.
    """

    kind = SeatKind.HUMAN

    def __init__(self, name: str, channel: HumanChannel, *, timeout_s: float | None = None) -> None:
        super().__init__(name)
        self.channel = channel
        self.timeout_s = timeout_s
        self._request: HumanRequest | None = None
        self._asked_at = 0.0

    def _post(
        self, kind: RequestType, view: AgentView, utterance: UtteranceView | None = None
    ) -> list[GenerationRequest]:
        self._asked_at = time.perf_counter()
        self._request = self.channel.post(kind, view, utterance=utterance, timeout_s=self.timeout_s)
        return []

    def _wait(self) -> tuple[Reply | None, GenerationInfo, str | None]:
        assert self._request is not None, "receive_* called before ask_*"
        reply = self.channel.wait(self._request)
        info = GenerationInfo(latency_s=round(time.perf_counter() - self._asked_at, 6))
        why = None
        if reply is None:
            if self.channel.closed:
                why = "the human's input channel is closed"
            elif self.timeout_s is not None:
                why = f"no reply from the human within {self.timeout_s:g} s"
            else:
                why = "no reply from the human"
        return reply, info, why

    def ask_initial(self, view: AgentView) -> list[GenerationRequest]:
        return self._post(RequestType.INITIAL_ANSWER, view)

    def receive_initial(self, view: AgentView, completions: Sequence[Completion]) -> InitialResult:
        reply, info, why = self._wait()
        if not isinstance(reply, InitialReply):
            return InitialResult(None, "", Source.HUMAN, False, why, None, None, info)
        raw = f"answer={reply.answer!r} reason={reply.reason!r}"
        return InitialResult(reply.answer, reply.reason, Source.HUMAN, True, None, None, raw, info)

    def ask_plan(self, view: AgentView) -> list[GenerationRequest]:
        return self._post(RequestType.PLAN, view)

    def receive_plan(self, view: AgentView, completions: Sequence[Completion]) -> PlanResult:
        reply, info, why = self._wait()
        if not isinstance(reply, ActionPlan):
            return PlanResult(fallback_plan(view.current_answer), Source.HUMAN, False, why, None, None, info)
        return PlanResult(reply, Source.HUMAN, True, None, None, reply.model_dump_json(), info)

    def ask_utterance(self, view: UtteranceView) -> list[GenerationRequest]:
        return self._post(RequestType.UTTERANCE, view.base, view)

    def receive_utterance(self, view: UtteranceView, completions: Sequence[Completion]) -> UtteranceResult:
        reply, info, why = self._wait()
        if not isinstance(reply, UtteranceReply):
            return UtteranceResult("", Source.HUMAN, why, None, info)
        return UtteranceResult(reply.text, Source.HUMAN, None, reply.text, info)

    def cancel(self) -> None:
        self.channel.close()


def build_seats(
    config: DebateConfig, prompts: PromptBuilder, given: Mapping[str, Seat], debate_id: str = ""
) -> dict[str, Seat]:
    """One seat per agent: those given, and a ``ModelSeat`` for every other model seat.

    Raises ``ConfigError`` for a seat given to an unknown agent, a human seat
    with no ``HumanSeat`` supplied, or a given seat of the wrong kind.
    """
    unknown = sorted(set(given) - set(config.agent_names))
    if unknown:
        raise ConfigError(f"seats given for unknown agents: {', '.join(unknown)}")
    seats: dict[str, Seat] = {}
    for index, agent in enumerate(config.agents):
        seat = given.get(agent.name)
        if seat is None:
            if agent.seat is SeatKind.HUMAN:
                raise ConfigError(f"{agent.name} has a human seat: pass seats={{{agent.name!r}: HumanSeat(...)}}")
            seat = ModelSeat(
                agent.name,
                prompts,
                temperature=config.temperature,
                max_new_tokens=config.max_new_tokens,
                seed=config.seed * 31 + index,
                record_prompts=config.record_prompts,
                cache_prefix=f"{debate_id}/{agent.name}/",
                utterance_max_new_tokens=config.utterance_max_new_tokens,
            )
        elif seat.kind is not agent.seat:
            raise ConfigError(
                f"{agent.name} is configured as a {agent.seat.value} seat but was given a {seat.kind.value} seat"
            )
        seats[agent.name] = seat
    return seats
