"""The one narrow seam between the engine and any language model.

What it does: defines what the engine sends (``GenerationRequest``: chat
messages, sampling settings, an optional JSON schema the output must follow)
and what comes back (``Completion``: text plus token counts), and the
``Backend`` protocol: ``generate(batch) -> completions`` and
``count_tokens(text)``. All listener plans of one turn arrive as one batch, so
a real backend can run them as one padded forward pass.

The contract every backend honours (tests/contract checks it):

* ``generate`` returns exactly one ``Completion`` per request, in order; an
  empty batch returns an empty list.
* A failure to generate raises ``BackendError``; it never returns partial lists.
* ``count_tokens`` is deterministic, returns 0 for ``""`` and is what the
  public token budget is counted with.
* A request with ``json_schema`` may be honoured by constrained decoding; the
  engine validates the output either way.
* Optionally, ``release(debate_id)`` frees whatever the backend kept for a
  debate (cached key/value prefixes); the engine calls it when a debate ends.

What it does not do: load models or know about prompts. Real backends live in
their own modules and import their heavy libraries lazily.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal, Protocol, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


class RequestKind(StrEnum):
    """Why the engine asks: for an initial answer, a plan, or an utterance."""

    INITIAL_ANSWER = "initial_answer"
    PLAN = "plan"
    UTTERANCE = "utterance"


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """Sampling settings of one request. ``temperature == 0`` means greedy."""

    temperature: float
    max_new_tokens: int
    seed: int | None = None


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """What the engine asks a backend for.

    ``kind``, ``agent`` and ``turn`` say who asks and why: backends may use
    them for logging and the scripted backend uses them to choose its output.
    ``cache_key`` names the conversation a request continues (debate, agent,
    kind): a backend may keep the key/values of its last prompt and reuse the
    common prefix. Requests without one are never cached.
    """

    messages: tuple[Message, ...]
    sampling: SamplingParams
    kind: RequestKind
    agent: str
    turn: int
    json_schema: Mapping[str, Any] | None = None
    cache_key: str | None = None


@dataclass(frozen=True, slots=True)
class Completion:
    """What a backend returns for one request.

    ``cached_tokens`` of the ``prompt_tokens`` were served from a reused
    key/value prefix rather than computed again.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: Literal["stop", "length"] = "stop"
    cached_tokens: int = 0


@runtime_checkable
class Backend(Protocol):
    """Anything that turns a batch of requests into completions."""

    @property
    def model_id(self) -> str:
        """A human-readable id of the model in use (shown to users, stored)."""
        ...

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """One completion per request, in order. Raises ``BackendError``."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by this backend's tokenizer."""
        ...
