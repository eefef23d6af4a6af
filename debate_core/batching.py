"""One batch per stage: collect every seat's requests, call the backend once, hand results back.

What it does: ``run_batch`` asks each named seat for its requests (a model
seat gives one, a human seat none: it posts its view to its channel instead),
sends all of them to the backend as a single ``generate`` call, checks that
one completion came back per request, and gives each seat its slice to turn
into a result. ``BatchCost`` adds up what the call cost, for the debate's
statistics.

What it does not do: decide who is asked, or interpret the results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from debate_core.backends.base import Backend, Completion, GenerationRequest
from debate_core.errors import BackendError


@dataclass
class BatchCost:
    """Running totals over every batch of a debate."""

    batches: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    generated_tokens: int = 0

    def add(self, completions: Sequence[Completion]) -> None:
        self.batches += 1
        self.model_calls += len(completions)
        self.prompt_tokens += sum(c.prompt_tokens for c in completions)
        self.cached_prompt_tokens += sum(c.cached_tokens for c in completions)
        self.generated_tokens += sum(c.completion_tokens for c in completions)


def run_batch(
    backend: Backend,
    names: Sequence[str],
    ask: Callable[[str], list[GenerationRequest]],
    receive: Callable[[str, list[Completion]], Any],
    cost: BatchCost,
) -> dict[str, Any]:
    """``{name: receive(name, its completions)}`` after one ``backend.generate`` call."""
    asked = [(name, ask(name)) for name in names]
    flat = [request for _, requests in asked for request in requests]
    completions: list[Completion] = []
    if flat:
        completions = backend.generate(flat)
        if len(completions) != len(flat):
            raise BackendError(f"backend returned {len(completions)} completions for {len(flat)} requests")
        cost.add(completions)
    results: dict[str, Any] = {}
    position = 0
    for name, requests in asked:
        results[name] = receive(name, completions[position : position + len(requests)])
        position += len(requests)
    return results
