"""The thread-safe channel between a human debater and the engine.

What it does: the engine posts a ``HumanRequest`` (an initial answer, a plan or
an utterance, with the same ``AgentView`` a model would get) and waits, with an
optional timeout, for the reply. The human's side (a UI thread, a terminal
loop, a test) reads ``pending()`` and calls ``submit_plan``,
``submit_utterance`` or ``submit_initial``. Every submission is checked *at
submit time*: an action not allowed now, urgency outside 0-9, an answer that is
not an option, an empty or over-long text raise ``HumanInputError`` with a
message meant for the person, and nothing reaches the engine. A reply to a
request the engine no longer waits for raises ``StaleRequestError``.

What it does not do: decide fallbacks. On a timeout or a cancelled request the
seat (``seats.HumanSeat``) falls back exactly as for a model's invalid plan.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from debate_core.errors import HumanInputError, StaleRequestError
from debate_core.plans import (
    MAX_PURPOSE_CHARS,
    MAX_REASON_CHARS,
    MAX_THOUGHT_CHARS,
    Action,
    ActionPlan,
    PlanInvalid,
    validate_answer,
    validate_urgency,
)
from debate_core.views import AgentView, UtteranceView

DEFAULT_MAX_HUMAN_CHARS = 2_000
T = TypeVar("T")


class RequestType(StrEnum):
    INITIAL_ANSWER = "initial_answer"
    PLAN = "plan"
    UTTERANCE = "utterance"


@dataclass(frozen=True, slots=True)
class HumanRequest:
    """What the engine asks the human for; ``view`` is what they may see."""

    request_id: int
    type: RequestType
    view: AgentView
    utterance: UtteranceView | None = None
    deadline: float | None = None


@dataclass(frozen=True, slots=True)
class InitialReply:
    answer: str
    reason: str


@dataclass(frozen=True, slots=True)
class UtteranceReply:
    text: str


Reply = ActionPlan | InitialReply | UtteranceReply


class HumanChannel:
    """One open request at a time between the engine and one human."""

    def __init__(self, max_chars: int = DEFAULT_MAX_HUMAN_CHARS) -> None:
        self.max_chars = max_chars
        self._cond = threading.Condition()
        self._ids = itertools.count(1)
        self._open: HumanRequest | None = None
        self._reply: Reply | None = None
        self._closed = False

    # -- engine side --------------------------------------------------------
    def post(
        self,
        kind: RequestType,
        view: AgentView,
        *,
        utterance: UtteranceView | None = None,
        timeout_s: float | None = None,
    ) -> HumanRequest:
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._cond:
            request = HumanRequest(next(self._ids), kind, view, utterance, deadline)
            self._open, self._reply = request, None
            self._cond.notify_all()
            return request

    def wait(self, request: HumanRequest) -> Reply | None:
        """Block until the human replies, the deadline passes, or the channel closes."""
        with self._cond:
            while True:
                if self._open is not request:
                    return None
                if self._reply is not None:
                    reply, self._open, self._reply = self._reply, None, None
                    return reply
                if self._closed:
                    self._open = None
                    return None
                remaining = None if request.deadline is None else request.deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    self._open = None
                    return None
                self._cond.wait(remaining)

    def close(self) -> None:
        """Stop waiting for good: open and future requests get no reply."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- human side ----------------------------------------------------------
    def pending(self, timeout_s: float | None = 0.0) -> HumanRequest | None:
        """The open request, waiting up to ``timeout_s`` (None: forever) for one."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        with self._cond:
            while self._open is None or self._reply is not None:
                if self._closed:
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._open

    def submit_plan(
        self,
        request_id: int,
        *,
        action: str | Action,
        urgency: int,
        answer: str | None,
        purpose: str = "",
        thought: str = "",
    ) -> ActionPlan:
        request = self._expect(request_id, RequestType.PLAN)
        try:
            chosen = Action(str(action).strip().lower())
        except ValueError:
            raise HumanInputError(f"unknown action {action!r}") from None
        if chosen not in request.view.allowed:
            allowed = " or ".join(a.value for a in request.view.allowed)
            raise HumanInputError(f"you can only {allowed} right now")
        plan = ActionPlan(
            thought=self._limit(thought, MAX_THOUGHT_CHARS, "thought"),
            action=chosen,
            urgency=self._check(validate_urgency, urgency),
            purpose=self._limit(purpose, MAX_PURPOSE_CHARS, "purpose"),
            answer=self._answer(request, answer),
        )
        self._deliver(request, plan)
        return plan

    def submit_utterance(self, request_id: int, text: str) -> None:
        request = self._expect(request_id, RequestType.UTTERANCE)
        text = (text or "").strip()
        if not text:
            raise HumanInputError("say something first: the message is empty")
        if len(text) > self.max_chars:
            raise HumanInputError(f"the message is {len(text):,} characters long; the limit is {self.max_chars:,}")
        self._deliver(request, UtteranceReply(text))

    def submit_initial(self, request_id: int, answer: str, reason: str = "") -> None:
        request = self._expect(request_id, RequestType.INITIAL_ANSWER)
        chosen = self._answer(request, answer)
        if chosen is None:
            raise HumanInputError("choose an answer first")
        self._deliver(request, InitialReply(chosen, self._limit(reason, MAX_REASON_CHARS, "reason")))

    # -- helpers ---------------------------------------------------------------
    def _expect(self, request_id: int, kind: RequestType) -> HumanRequest:
        with self._cond:
            request = self._open
        if request is None or request.request_id != request_id:
            raise StaleRequestError("that request is no longer open; the debate has moved on")
        if request.type is not kind:
            raise HumanInputError(f"the debate is waiting for your {request.type.value}, not {kind.value}")
        return request

    def _deliver(self, request: HumanRequest, reply: Reply) -> None:
        with self._cond:
            if self._open is not request or self._reply is not None:
                raise StaleRequestError("that request is no longer open; the debate has moved on")
            self._reply = reply
            self._cond.notify_all()

    def _limit(self, text: str, limit: int, what: str) -> str:
        text = (text or "").strip()
        if len(text) > limit:
            raise HumanInputError(f"the {what} is {len(text):,} characters long; the limit is {limit:,}")
        return text

    def _answer(self, request: HumanRequest, answer: str | None) -> str | None:
        if answer is None or not str(answer).strip():
            return request.view.current_answer
        return self._check(validate_answer, answer, request.view.question.labels)

    @staticmethod
    def _check(validator: Callable[..., T], *args: object) -> T:
        try:
            return validator(*args)
        except PlanInvalid as error:
            raise HumanInputError(str(error)) from None
