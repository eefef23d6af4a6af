"""Cross-debate batching: several debates in threads share one backend call per step.

What it does: ``CoalescingBackend(inner, parties=N)`` is a ``Backend`` for N
debates running at once in N threads. When a debate asks for completions, its
requests wait until every still-running debate has asked too (or ``window_s``
passes), and then all of them go to ``inner.generate`` as one batch; each
caller gets back exactly its own completions, in order. With a real model this
turns N small batches into one larger batch, which a GPU (and, up to a few
rows, a CPU) computes in about the time of one. A debate that finishes calls
``leave()`` so the others stop waiting for it.

What it does not do: reorder or change requests, or retry failures: an error
from ``inner`` reaches every caller of that batch. It declares its inner
backend's capabilities and passes tokenizer calls through.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from debate_core.backends.base import Backend, Completion, GenerationRequest, TokenSpan


@dataclass(eq=False)
class _Ticket:
    requests: Sequence[GenerationRequest]
    done: threading.Event = field(default_factory=threading.Event)
    result: list[Completion] | None = None
    error: BaseException | None = None


class CoalescingBackend(Backend):
    """Merges the ``generate`` calls of ``parties`` concurrent debates."""

    def __init__(self, inner: Backend, parties: int, *, window_s: float = 0.05) -> None:
        self.inner = inner
        self.capabilities = inner.capabilities
        self.window_s = window_s
        self._parties = parties
        self._waiting: list[_Ticket] = []
        self._cond = threading.Condition()
        self.batch_sizes: list[int] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    @property
    def vocab_size(self) -> int | None:
        return self.inner.vocab_size

    def tokenize(self, text: str) -> list[TokenSpan]:
        return self.inner.tokenize(text)

    def detokenize(self, ids: Sequence[int]) -> str:
        return self.inner.detokenize(ids)

    def leave(self) -> None:
        """A debate has finished: stop waiting for it."""
        with self._cond:
            self._parties -= 1
            self._cond.notify_all()

    def release(self, debate_id: str) -> None:
        self.inner.release(debate_id)

    def close(self) -> None:
        self.inner.close()

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        if not requests:
            return []
        ticket = _Ticket(requests)
        with self._cond:
            self._waiting.append(ticket)
            self._cond.notify_all()
            self._cond.wait_for(
                lambda: len(self._waiting) >= self._parties or not any(t is ticket for t in self._waiting),
                timeout=self.window_s,
            )
            # Still queued: this thread runs everything queued so far (its own requests included).
            batch: list[_Ticket] = []
            if any(t is ticket for t in self._waiting):
                batch, self._waiting = self._waiting, []
        if batch:
            self._run(batch)
            with self._cond:
                self._cond.notify_all()
        ticket.done.wait()
        if ticket.error is not None:
            raise ticket.error
        assert ticket.result is not None
        return ticket.result

    def _run(self, batch: list[_Ticket]) -> None:
        flat = [request for ticket in batch for request in ticket.requests]
        self.batch_sizes.append(len(flat))
        try:
            completions = self.inner.generate(flat)
        except BaseException as error:  # every caller of this batch sees it
            for ticket in batch:
                ticket.error = error
                ticket.done.set()
            return
        position = 0
        for ticket in batch:
            ticket.result = completions[position : position + len(ticket.requests)]
            position += len(ticket.requests)
            ticket.done.set()
