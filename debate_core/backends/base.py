"""The one narrow seam between the engine and any language model.

What it does: defines what the engine sends (``GenerationRequest``: chat
messages, sampling settings, an optional JSON schema, the **signals** it wants
measured, an optional partial assistant message to continue, and a
cancellation token) and what comes back (``Completion``: text, token counts,
and the measured signals), plus the ``Backend`` base class every backend
subclasses, with the **capabilities** it declares.

The contract every backend honours (``tests/contract`` runs it on every backend):

* ``generate`` returns exactly one ``Completion`` per request, in order; an
  empty batch returns an empty list. A failure raises ``BackendError`` (or a
  subclass); it never returns a partial list.
* ``count_tokens`` is deterministic, returns 0 for ``""`` and is what public
  token budgets are counted with.
* A request with ``json_schema`` may be honoured by constrained decoding; the
  engine validates the output either way.
* A backend only fills the signals it declares in ``capabilities``; asking a
  backend for a signal it lacks raises ``CapabilityError`` (the engine checks
  capabilities when a debate is built, so a debate never starts that would
  need one):

  - ``TOKEN_STATS``: per generated token, the negative log-likelihood of the
    chosen token and the entropy of the **full** next-token distribution, in
    nats, from the raw logits (before temperature and grammar masks);
  - ``CHOICE_PROBS``: the probability of each given choice string at the first
    generated position (by its first token, the string tokenized on its own:
    ``"B"`` and ``" B"`` are different tokens), from the same raw distribution;
  - ``CONTINUATION``: ``assistant_prefix`` is the start of the assistant's
    reply; the completion is what follows it (the prefix is not repeated);
  - ``ATTENTION``: a prefill-only query (``max_new_tokens`` is ignored and no
    text is generated) scoring the tokens between two marker strings by their
    attention to the tokens between two others, with character offsets;
  - ``TOKENIZER``: ``tokenize`` (ids with character offsets) and ``detokenize``;
  - ``CANCELLATION``: when a request's ``cancel`` token is set, its generation
    stops within about a second and returns what it had, with
    ``finish_reason == "cancelled"``.

* ``release(debate_id)`` frees whatever the backend kept for a debate (cached
  key/value prefixes); ``close()`` frees the backend itself. Both are no-ops
  on the base class.

What it does not do: load models or know about prompts or protocols. Real
backends live in their own modules and import their heavy libraries lazily.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from debate_core.errors import CapabilityError

Role = Literal["system", "user", "assistant"]
FinishReason = Literal["stop", "length", "cancelled"]


class Capability(StrEnum):
    """What a backend can do beyond turning prompts into text."""

    TOKENIZER = "tokenizer"
    TOKEN_STATS = "token_stats"
    CHOICE_PROBS = "choice_probs"
    CONTINUATION = "continuation"
    ATTENTION = "attention"
    CANCELLATION = "cancellation"

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    Capability.TOKENIZER: "a tokenizer with character offsets",
    Capability.TOKEN_STATS: "per-token statistics (log-likelihood and entropy)",
    Capability.CHOICE_PROBS: "probabilities of given choices",
    Capability.CONTINUATION: "continuation of a partial assistant message",
    Capability.ATTENTION: "attention scores between marked spans",
    Capability.CANCELLATION: "cancellation of a running generation",
}


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message."""

    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


# The temperature an in-process backend samples at when a request leaves it to the backend (None): the
# OpenAI API's default, which a paper that used "the API default" ran at. A server is sent no temperature.
BACKEND_DEFAULT_TEMPERATURE = 1.0


@dataclass(frozen=True, slots=True)
class SamplingParams:
    """Sampling settings of one request. ``temperature == 0`` means greedy; None means the backend's default
    (a server's own, omitted from the request; ``BACKEND_DEFAULT_TEMPERATURE`` in process)."""

    temperature: float | None
    max_new_tokens: int
    seed: int | None = None

    @property
    def local_temperature(self) -> float:
        """The temperature an in-process backend samples at (the default for None)."""
        return BACKEND_DEFAULT_TEMPERATURE if self.temperature is None else self.temperature


@dataclass(frozen=True, slots=True)
class AttentionQuery:
    """Which tokens to score, by their attention to which others (prefill only).

    ``rows`` and ``cols`` are pairs of marker strings that occur in the
    request's messages, in this order: ``cols`` (the focus span, e.g. an
    instruction) before ``rows`` (the scored span, e.g. other agents'
    messages). The tokens strictly between a pair's markers form the span.
    Each row token's score is the maximum, over heads and over the column
    tokens, of its attention weight to them in layer ``layer`` (negative
    counts from the last: -1 is the last layer); with ``all_layers`` the
    maximum over every layer as well (``layer`` is then not used).
    """

    rows: tuple[str, str]
    cols: tuple[str, str]
    layer: int = -1
    all_layers: bool = False


def span_between(text: str, markers: tuple[str, str]) -> tuple[int, int] | None:
    """Characters strictly between the first ``markers[0]`` and the next ``markers[1]`` (None: not there)."""
    start = text.find(markers[0])
    if start < 0:
        return None
    start += len(markers[0])
    end = text.find(markers[1], start)
    return (start, end) if end >= 0 else None


@dataclass(frozen=True, slots=True)
class Signals:
    """What a request wants measured besides its text (see ``Capability``)."""

    token_stats: bool = False
    choices: tuple[str, ...] = ()
    attention: AttentionQuery | None = None

    def needs(self) -> frozenset[Capability]:
        needed = set()
        if self.token_stats:
            needed.add(Capability.TOKEN_STATS)
        if self.choices:
            needed.add(Capability.CHOICE_PROBS)
        if self.attention is not None:
            needed.add(Capability.ATTENTION)
        return frozenset(needed)


NO_SIGNALS = Signals()


class CancelToken:
    """A handle on the generations that hold it: cancel them (set once), and see their progress.

    ``cancel()`` asks every generation holding the token to stop. Backends
    that can, count the tokens they generate for its holders (``advance``);
    ``tokens`` is that running count, so a viewer can show "N tokens so far"
    while a model generates. Thread-safe; a backend that reports nothing
    leaves ``tokens`` at 0.
    """

    __slots__ = ("_event", "_tokens")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._tokens = 0

    def advance(self, tokens: int = 1) -> None:
        """A backend generated ``tokens`` more tokens for a holder of this token."""
        self._tokens += tokens  # one writer (the backend's thread); readers only look

    @property
    def tokens(self) -> int:
        """Tokens generated so far by the holders of this token (0 when the backend does not report)."""
        return self._tokens

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """What the engine asks a backend for.

    ``kind`` (the request kind, e.g. ``plan``), ``agent`` and ``turn`` say who
    asks and why: backends may use them for logging and the scripted backend
    uses them to choose its output. ``cache_key`` names the conversation a
    request continues (debate, agent, kind): a backend may keep the key/values
    of its last prompt and reuse the common prefix. Requests without one are
    never cached. ``assistant_prefix`` (non-empty) asks for a continuation of
    that partial assistant reply. ``cancel``, when set by the engine, asks the
    backend to stop this generation early.
    """

    messages: tuple[Message, ...]
    sampling: SamplingParams
    kind: str
    agent: str
    turn: int
    json_schema: Mapping[str, Any] | None = None
    cache_key: str | None = None
    signals: Signals = NO_SIGNALS
    assistant_prefix: str = ""
    cancel: CancelToken | None = field(default=None, compare=False)

    def needs(self) -> frozenset[Capability]:
        needed = set(self.signals.needs())
        if self.assistant_prefix:
            needed.add(Capability.CONTINUATION)
        return frozenset(needed)


@dataclass(frozen=True, slots=True)
class TokenSpan:
    """One token of a text: its id and the characters ``text[start:end]`` it covers."""

    id: int
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ScoredSpan:
    """A scored token of an attention query: characters ``text[start:end]`` and its score."""

    start: int
    end: int
    score: float


@dataclass(frozen=True, slots=True)
class AttentionScores:
    """The answer to an ``AttentionQuery``: the scored span's text and one score per token.

    ``layer`` is the layer actually used, as a non-negative index; with
    ``all_layers`` the scores are the maximum over layers 0 to ``layer`` (the
    last). An attention request fills no other signal and generates no text;
    markers missing from the prompt raise ``BackendError``.
    """

    text: str
    tokens: tuple[ScoredSpan, ...]
    layer: int
    all_layers: bool = False


@dataclass(frozen=True, slots=True)
class Completion:
    """What a backend returns for one request.

    ``cached_tokens`` of the ``prompt_tokens`` were served from a reused
    key/value prefix rather than computed again. The signal fields are None
    unless the request asked for them: ``token_nll`` and ``token_entropy``
    have one value per generated token; ``choice_probs`` one per requested
    choice; ``attention`` the scores of an attention query.
    ``entropy_top_k`` is None when ``token_entropy`` is the full
    distribution's entropy, or k when it is estimated from the top k
    log-probabilities a server gave (a lower bound). ``retries`` says, one
    sentence each, every failed try that was retried before this completion
    came back (a server's 503, a timeout); the engine records them.
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: FinishReason = "stop"
    cached_tokens: int = 0
    token_nll: tuple[float, ...] | None = None
    token_entropy: tuple[float, ...] | None = None
    choice_probs: Mapping[str, float] | None = None
    attention: AttentionScores | None = None
    entropy_top_k: int | None = None
    retries: tuple[str, ...] = ()


class Backend(ABC):
    """Anything that turns a batch of requests into completions (subclass this)."""

    capabilities: frozenset[Capability] = frozenset()
    #: capabilities served only approximately, each with how (e.g. an entropy from the top k log-probabilities)
    estimates: Mapping[Capability, str] = {}

    @property
    @abstractmethod
    def model_id(self) -> str:
        """A human-readable id of the model in use (shown to users, stored)."""

    @abstractmethod
    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """One completion per request, in order. Raises ``BackendError``."""

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by this backend's tokenizer."""

    @property
    def vocab_size(self) -> int | None:
        """The size of the model's vocabulary, when known (SID's threshold uses log |V|)."""
        return None

    def tokenize(self, text: str) -> list[TokenSpan]:
        """Token ids of ``text`` with the characters each covers (``TOKENIZER``)."""
        raise CapabilityError(f"backend {self.model_id} has no {Capability.TOKENIZER.description}")

    def detokenize(self, ids: Sequence[int]) -> str:
        """The text of token ids (``TOKENIZER``)."""
        raise CapabilityError(f"backend {self.model_id} has no {Capability.TOKENIZER.description}")

    def release(self, debate_id: str) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Free whatever was kept for a finished debate."""

    def close(self) -> None:  # noqa: B027 - optional hook, a no-op by default
        """Free the backend's own resources (a loaded model, a server connection)."""

    def check(self, requests: Sequence[GenerationRequest]) -> None:
        """Raise ``CapabilityError`` if a request needs something this backend lacks."""
        for request in requests:
            missing = request.needs() - self.capabilities
            if missing:
                names = ", ".join(sorted(c.description for c in missing))
                raise CapabilityError(
                    f"a {request.kind} request for {request.agent} needs {names}; backend {self.model_id} lacks it"
                )
