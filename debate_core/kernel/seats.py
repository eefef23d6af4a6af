"""Seats: a language model or a person behind one two-step interface, for any request kind.

What it does: every seat answers any ``Form`` in two steps, so the kernel can
batch all model calls of a step:

1. ``ask(form, view, ...)`` returns the ``GenerationRequest``\\ s this seat
   needs (a model seat: one; a human seat: none, it posts the view and the
   form's fields to its channel instead);
2. after the kernel ran the whole batch, ``receive(form, view, completions)``
   returns a ``FormResult`` (a human seat blocks here until the person
   replies or the timeout passes).

``ModelSeat`` renders the form's prompt, parses the model's text with the
form's parser (text first passes ``debate_core.text.clean``) and falls back
as the form documents when the text does not fit; ``HumanSeat`` relays
through a ``HumanChannel`` and falls back the same way when the person does
not answer in time.

What it does not do: decide who is asked, or see anything but its view.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from debate_core.backends.base import CancelToken, Completion, GenerationRequest, SamplingParams
from debate_core.config import DebateConfig, SeatKind
from debate_core.errors import ConfigError
from debate_core.events.records import GenerationInfo, PromptMessage, Source
from debate_core.kernel.forms import Form, FormInvalid, FormResult
from debate_core.kernel.human import HumanChannel, HumanRequest
from debate_core.text import clean

LET_PASS = "the person let it pass"
STANDING = "from the person's standing stance"


class Seat(ABC):
    """One participant's way of answering the kernel."""

    kind: SeatKind

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def ask(
        self, form: Form[Any, Any], view: Any, *, turn: int, nonce: int = 0, cancel: CancelToken | None = None
    ) -> list[GenerationRequest]: ...

    @abstractmethod
    def receive(self, form: Form[Any, Any], view: Any, completions: Sequence[Completion]) -> FormResult[Any]: ...

    def cancel(self) -> None:  # noqa: B027 - optional hook, a no-op for most seats
        """Stop any wait in progress (the debate is being stopped)."""

    def acts_as_model(self) -> bool:
        """Whether a model answers this seat's next request (the kernel streams a model's utterance in steps)."""
        return False


class ModelSeat(Seat):
    """A seat filled by a language model (whichever backend the kernel routes it to)."""

    kind = SeatKind.MODEL

    def acts_as_model(self) -> bool:
        return True

    def __init__(self, name: str, config: DebateConfig, *, seed: int, cache_prefix: str | None = None) -> None:
        super().__init__(name)
        self.config = config
        self.seed = seed
        self.cache_prefix = cache_prefix
        self._asked_at = 0.0
        self._pending: GenerationRequest | None = None

    def ask(
        self, form: Form[Any, Any], view: Any, *, turn: int, nonce: int = 0, cancel: CancelToken | None = None
    ) -> list[GenerationRequest]:
        self._asked_at = time.perf_counter()
        # A distinct, reproducible sampling seed per (debate seed, agent, turn, kind[, nonce]).
        seed = (self.seed * 1_000_003 + turn * 7_919 + form.salt + nonce * 104_729) % (2**31)
        sampling = SamplingParams(self.config.temperature, form.token_cap(self.config), seed)
        cache_key = f"{self.cache_prefix}{form.kind}" if self.cache_prefix is not None and form.cacheable else None
        self._pending = GenerationRequest(
            messages=form.render(view),
            sampling=sampling,
            kind=form.kind,
            agent=self.name,
            turn=turn,
            json_schema=form.schema(view),
            cache_key=cache_key,
            signals=form.signals,
            assistant_prefix=form.assistant_prefix(view),
            cancel=cancel,
        )
        return [self._pending]

    def _info(self, completion: Completion) -> GenerationInfo:
        prompt = None
        if self.config.record_prompts and self._pending is not None:
            prompt = tuple(PromptMessage(role=m.role, content=m.content) for m in self._pending.messages)
        return GenerationInfo(
            prompt_tokens=completion.prompt_tokens,
            cached_tokens=completion.cached_tokens,
            completion_tokens=completion.completion_tokens,
            latency_s=round(time.perf_counter() - self._asked_at, 6),
            prompt=prompt,
            retries=completion.retries,
        )

    def receive(self, form: Form[Any, Any], view: Any, completions: Sequence[Completion]) -> FormResult[Any]:
        completion = completions[0]
        raw = clean(completion.text)
        info = self._info(completion)
        try:
            value, note = form.parse(raw, view)
        except FormInvalid as error:
            return FormResult(form.fallback(view), Source.MODEL, False, str(error), None, raw, info, completion)
        return FormResult(value, Source.MODEL, True, None, note, raw, info, completion)


class HumanSeat(Seat):
    """A seat filled by a person through a ``HumanChannel``.

    ``timeout_s`` bounds every wait (None: wait as long as it takes). A person
    who does not answer in time **lets it pass**: the request kind's fallback
    is their answer (for a plan: listen, urgency 0, current answer; for an
    utterance: nothing, the floor is given back), recorded as valid with the
    note "the person let it pass". A closed channel (the debate is stopped,
    the page is gone) is recorded as an invalid reply with why.

    With ``live``, request kinds that have a standing answer
    (``Form.from_stance``: plans, yes/no decisions) are answered at once from
    the person's stance, so a debate never waits for a person who is only
    listening; the seat waits only for their words.
    """

    kind = SeatKind.HUMAN

    def __init__(self, name: str, channel: HumanChannel, *, timeout_s: float | None = None, live: bool = False) -> None:
        super().__init__(name)
        self.channel = channel
        self.timeout_s = timeout_s
        self.live = live
        self._request: HumanRequest | None = None
        self._standing: Any = None
        self._asked_at = 0.0

    def ask(
        self, form: Form[Any, Any], view: Any, *, turn: int, nonce: int = 0, cancel: CancelToken | None = None
    ) -> list[GenerationRequest]:
        self._asked_at = time.perf_counter()
        if self.live and form.from_stance is not None:
            self._request, self._standing = None, form.from_stance(self.channel.stance(), view)
            return []
        self._request = self.channel.post(
            form.kind,
            view,
            form.fields(view),
            prompt=form.describe(view),
            build=lambda values: form.from_human(values, view),
            timeout_s=self.timeout_s,
            description=form.description,
        )
        return []

    def receive(self, form: Form[Any, Any], view: Any, completions: Sequence[Completion]) -> FormResult[Any]:
        info = GenerationInfo(latency_s=round(time.perf_counter() - self._asked_at, 6))
        if self._request is None:
            if self._standing is None:
                raise RuntimeError("receive called before ask")
            standing, self._standing = self._standing, None
            return FormResult(standing, Source.HUMAN, True, None, STANDING, form.human_raw(standing), info)
        reply = self.channel.wait(self._request)
        info = GenerationInfo(latency_s=round(time.perf_counter() - self._asked_at, 6))
        if reply is None:
            if self.channel.closed:
                return FormResult(
                    form.fallback(view), Source.HUMAN, False, "the person's seat is closed", None, None, info
                )
            return FormResult(form.fallback(view), Source.HUMAN, True, None, LET_PASS, None, info)
        return FormResult(reply, Source.HUMAN, True, None, None, form.human_raw(reply), info)

    def cancel(self) -> None:
        self.channel.close()


def model_seat(config: DebateConfig, agent: str, debate_id: str = "") -> ModelSeat:
    """The ``ModelSeat`` the debate gives ``agent`` when nothing else sits there (its seed, its cache prefix):
    what a seat people come and go from (``shared_seat.HandOverSeat``) acts as while a model sits in it."""
    index = config.agent_names.index(agent)
    return ModelSeat(agent, config, seed=config.seed * 31 + index, cache_prefix=f"{debate_id}/{agent}/")


def build_seats(config: DebateConfig, given: Mapping[str, Seat], debate_id: str = "") -> dict[str, Seat]:
    """One seat per agent: those given, and a ``ModelSeat`` for every other model seat.

    Raises ``ConfigError`` for a seat given to an unknown agent, a human seat
    with no ``HumanSeat`` supplied, or a given seat of the wrong kind.
    """
    unknown = sorted(set(given) - set(config.agent_names))
    if unknown:
        raise ConfigError(f"seats given for unknown agents: {', '.join(unknown)}")
    seats: dict[str, Seat] = {}
    for agent in config.agents:
        seat = given.get(agent.name)
        if seat is None:
            if agent.seat is SeatKind.HUMAN:
                raise ConfigError(f"{agent.name} has a human seat: pass seats={{{agent.name!r}: HumanSeat(...)}}")
            seat = model_seat(config, agent.name, debate_id)
        elif seat.kind is not agent.seat:
            raise ConfigError(
                f"{agent.name} is configured as a {agent.seat.value} seat but was given a {seat.kind.value} seat"
            )
        seats[agent.name] = seat
    return seats
