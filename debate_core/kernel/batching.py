"""One batch per step: collect every seat's requests, call each backend once, hand results back.

What it does: ``run_batch`` asks each named seat for its requests (a model
seat gives one, a human seat none: it posts its view to its channel instead),
groups them by the backend that serves each seat, sends each group to its
backend as a single ``generate`` call, checks that one well-formed completion
came back per request, and gives each seat its slice to turn into a result.
``BatchCost`` adds up what the calls cost, for the debate's statistics.

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


def _checked(backend: Backend, requests: list[GenerationRequest]) -> list[Completion]:
    completions = backend.generate(requests)
    if not isinstance(completions, list) or len(completions) != len(requests):
        count = len(completions) if isinstance(completions, list) else type(completions).__name__
        raise BackendError(f"backend {backend.model_id} returned {count} completions for {len(requests)} requests")
    for completion in completions:
        if not isinstance(completion, Completion) or not isinstance(completion.text, str):
            what = type(completion.text if isinstance(completion, Completion) else completion).__name__
            raise BackendError(f"backend {backend.model_id} returned a {what} where a text completion belongs")
    return completions


def run_batch(
    backend_of: Callable[[str], Backend],
    names: Sequence[str],
    ask: Callable[[str], list[GenerationRequest]],
    receive: Callable[[str, list[Completion]], Any],
    cost: BatchCost,
) -> dict[str, Any]:
    """``{name: receive(name, its completions)}`` after one ``generate`` call per backend."""
    asked = [(name, ask(name)) for name in names]
    groups: dict[int, tuple[Backend, list[tuple[int, GenerationRequest]]]] = {}
    for index, (name, requests) in enumerate(asked):
        if requests:
            backend = backend_of(name)
            groups.setdefault(id(backend), (backend, []))[1].extend((index, r) for r in requests)
    answered: dict[int, list[Completion]] = {index: [] for index in range(len(asked))}
    for backend, items in groups.values():
        completions = _checked(backend, [request for _, request in items])
        cost.add(completions)
        for (index, _), completion in zip(items, completions, strict=True):
            answered[index].append(completion)
    return {name: receive(name, answered[index]) for index, (name, _) in enumerate(asked)}
