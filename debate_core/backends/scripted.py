"""A scripted backend for tests, demos and benchmarks: no model at all.

What it does: answers every request from a script (a list of strings consumed
in order) or from a function of the request, records every request and every
batch it was sent, and counts tokens with a simple deterministic word-and-
punctuation tokenizer. It honours the same contract as a real backend.

What it does not do: look at ``json_schema`` or sample anything. Its outputs
are exactly what the script says, mistakes included, which is how tests feed
the engine malformed plans on purpose.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Sequence

from debate_core.backends.base import Completion, GenerationRequest
from debate_core.errors import BackendError

Responder = Callable[[GenerationRequest], str]

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_word_tokens(text: str) -> int:
    """Words and punctuation marks, each one token: ``"It's B."`` is 5 tokens."""
    return len(_TOKEN.findall(text))


class ScriptedBackend:
    """Returns scripted outputs and records what it was asked.

    ``ScriptedBackend(["{...}", "text"])`` answers requests in order and raises
    ``BackendError`` once the script runs out; ``ScriptedBackend(fn)`` calls
    ``fn(request)`` for each request. ``requests`` and ``batches`` record
    everything sent, in order.
    """

    def __init__(
        self,
        script: Responder | Iterable[str],
        *,
        model_id: str = "scripted",
        tokenizer: Callable[[str], int] = count_word_tokens,
    ) -> None:
        self._responder: Responder | None = script if callable(script) else None
        self._script: list[str] = [] if callable(script) else list(script)
        self._position = 0
        self._model_id = model_id
        self._tokenizer = tokenizer
        self._lock = threading.Lock()
        self.requests: list[GenerationRequest] = []
        self.batches: list[tuple[GenerationRequest, ...]] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    def count_tokens(self, text: str) -> int:
        return self._tokenizer(text)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        with self._lock:
            batch = tuple(requests)
            texts = [self._next_output(request) for request in batch]
            self.requests.extend(batch)
            if batch:
                self.batches.append(batch)
        return [
            Completion(
                text=text,
                prompt_tokens=sum(self._tokenizer(m.content) for m in request.messages),
                completion_tokens=self._tokenizer(text),
            )
            for request, text in zip(batch, texts, strict=False)
        ]

    def _next_output(self, request: GenerationRequest) -> str:
        if self._responder is not None:
            return self._responder(request)
        if self._position >= len(self._script):
            raise BackendError(
                f"the script ran out after {self._position} outputs "
                f"({request.kind.value} request for {request.agent}, turn {request.turn})"
            )
        text = self._script[self._position]
        self._position += 1
        return text
