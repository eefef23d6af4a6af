"""A scripted backend for tests, demos and benchmarks: no model at all, every capability faked.

What it does: answers every request from a script (a list of strings consumed
in order) or from a function of the request, records every request and every
batch it was sent, and counts tokens with a simple deterministic word-and-
punctuation tokenizer. It honours the same contract as a real backend,
including every capability, each faked deterministically:

* ``tokenize``: one token per word or punctuation mark, carrying the
  whitespace before it, so ``detokenize(tokenize(t))`` gives ``t`` back;
* token statistics and attention scores: fixed functions of each token's text
  (``fake_nll``, ``fake_entropy``, ``fake_attention``), so tests know them;
* choice probabilities: 0.9 for the choice the text starts with (shared
  equally by the others otherwise);
* continuation: a scripted text that starts with the request's assistant
  prefix is returned without it;
* cancellation: with ``seconds_per_token`` > 0 generation takes time, token
  by token, and stops at the next token once the request's token is set.

A responder may return a ``ScriptedReply`` instead of a string to dictate the
signals (a confident or unsure answer, a P(Yes), ...) or how the generation
ended (``finish_reason``). ``continuing(text, request)`` is what a model
generating ``text`` gives a request that continues it in steps (a speech
generated as it streams): the part of ``text`` after what the request's
assistant prefix already holds of it, cut at ``max_new_tokens`` scripted
tokens (finish ``length`` when cut, as a model's).

What it does not do: look at ``json_schema`` or sample anything. Its outputs
are exactly what the script says, mistakes included, which is how tests feed
the engine malformed output on purpose.
"""

from __future__ import annotations

import math
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from debate_core.backends.base import (
    AttentionQuery,
    AttentionScores,
    Backend,
    Capability,
    Completion,
    FinishReason,
    GenerationRequest,
    ScoredSpan,
    TokenSpan,
    span_between,
)
from debate_core.errors import BackendError

SCRIPTED_VOCAB_SIZE = 50_000
SCRIPTED_LAYERS = 4  # what a layer index resolves against
_TOKEN = re.compile(r"\w+|[^\w\s]")
_WITH_SPACE = re.compile(r"\s*(?:\w+|[^\w\s])")


@dataclass(frozen=True)
class ScriptedReply:
    """A scripted completion with dictated signals (each None: the default fake)."""

    text: str
    token_nll: tuple[float, ...] | None = None
    token_entropy: tuple[float, ...] | None = None
    choice_probs: Mapping[str, float] | None = None
    finish_reason: FinishReason | None = None  # None: "stop" (or "cancelled" when the request was)


Output = str | ScriptedReply
Responder = Callable[[GenerationRequest], Output]


class ScriptByKind:
    """A protocol's demo script: each request kind is answered by the method ``_<kind>(request)``.

    A kind the script has no method for raises ``ValueError`` (a programming error: the protocol asked
    something its demo does not know). ``demo_name`` names the script in that message.
    """

    demo_name = "this"

    def reply(self, request: GenerationRequest) -> Output:
        handler = getattr(self, f"_{request.kind}", None)
        if handler is None:
            raise ValueError(f"the {self.demo_name} demo has no script for request kind {request.kind!r}")
        result: Output = handler(request)
        return result

    @staticmethod
    def _prompt(request: GenerationRequest) -> str:
        """The request's last message: what the script reads, as a model would."""
        return request.messages[-1].content


def already_given(prefix: str, text: str) -> int:
    """How much of the start of ``text`` the end of ``prefix`` already holds (the longest such start)."""
    if not prefix or not text:
        return 0
    joined = text + "\x00" + prefix[-len(text) :]  # the longest border of text + sep + tail (KMP's table)
    border = [0] * len(joined)
    for i in range(1, len(joined)):
        k = border[i - 1]
        while k and joined[i] != joined[k]:
            k = border[k - 1]
        border[i] = k + 1 if joined[i] == joined[k] else 0
    return border[-1]


def continuing(text: str, request: GenerationRequest) -> ScriptedReply:
    """What a model generating ``text`` gives ``request``: the rest of ``text`` after what the request's assistant
    prefix already holds of it, cut at ``max_new_tokens`` scripted tokens (``finish_reason`` "length" when cut)."""
    rest = text[already_given(request.assistant_prefix, text) :]
    spans = scripted_tokens(rest)
    cap = request.sampling.max_new_tokens
    if len(spans) > cap:
        return ScriptedReply(rest[: spans[cap - 1].end] if cap > 0 else "", finish_reason="length")
    return ScriptedReply(rest)


def count_word_tokens(text: str) -> int:
    """Words and punctuation marks, each one token: ``"It's B."`` is 5 tokens."""
    return len(_TOKEN.findall(text))


def _hash(text: str) -> int:
    return zlib.crc32(text.strip().encode("utf-8", "surrogatepass"))


def fake_nll(token: str) -> float:
    """The scripted NLL of a token: in [0, 4), a fixed function of its text."""
    return (_hash(token) % 1000) / 250.0


def fake_entropy(token: str) -> float:
    """The scripted entropy at a token: at least its NLL's half, below log |V|."""
    return min(math.log(SCRIPTED_VOCAB_SIZE) - 1e-6, 0.5 * fake_nll(token) + (_hash(token) % 97) / 40.0)


def fake_attention(token: str) -> float:
    """The scripted attention score of a token: in [0, 1), a fixed function of its text."""
    return (_hash("attention:" + token) % 1000) / 1000.0


def fake_choice_probs(text: str, choices: Sequence[str]) -> dict[str, float]:
    """0.9 for the choice ``text`` starts with, the rest shared; evenly below 1 with no match."""
    stripped = text.strip().casefold()
    match = next((c for c in choices if stripped.startswith(c.strip().casefold())), None)
    if match is None:
        return {c: 0.9 / len(choices) for c in choices}
    rest = 0.1 / max(1, len(choices) - 1)
    return {c: 0.9 if c == match else rest for c in choices}


def scripted_tokens(text: str) -> list[TokenSpan]:
    """Tokens of ``text`` with character offsets (leading whitespace belongs to a token)."""
    return [TokenSpan(_hash(m.group()) % SCRIPTED_VOCAB_SIZE, m.start(), m.end()) for m in _WITH_SPACE.finditer(text)]


class ScriptedBackend(Backend):
    """Returns scripted outputs and records what it was asked.

    ``ScriptedBackend(["{...}", "text"])`` answers requests in order and raises
    ``BackendError`` once the script runs out; ``ScriptedBackend(fn)`` calls
    ``fn(request)`` for each request. ``requests`` and ``batches`` record
    everything sent, in order.
    """

    capabilities = frozenset(Capability)

    def __init__(
        self,
        script: Responder | Iterable[Output],
        *,
        model_id: str = "scripted",
        tokenizer: Callable[[str], int] = count_word_tokens,
        seconds_per_token: float = 0.0,
    ) -> None:
        self._responder: Responder | None = script if callable(script) else None
        self._script: list[Output] = [] if callable(script) else list(script)
        self._position = 0
        self._model_id = model_id
        self._tokenizer = tokenizer
        self.seconds_per_token = seconds_per_token
        self._lock = threading.Lock()
        self._vocab: dict[int, str] = {}
        self.requests: list[GenerationRequest] = []
        self.batches: list[tuple[GenerationRequest, ...]] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def vocab_size(self) -> int:
        return SCRIPTED_VOCAB_SIZE

    def count_tokens(self, text: str) -> int:
        return self._tokenizer(text)

    def tokenize(self, text: str) -> list[TokenSpan]:
        spans = scripted_tokens(text)
        with self._lock:
            for span in spans:
                self._vocab[span.id] = text[span.start : span.end]
        return spans

    def detokenize(self, ids: Sequence[int]) -> str:
        with self._lock:
            return "".join(self._vocab.get(i, "") for i in ids)

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        self.check(requests)
        with self._lock:
            batch = tuple(requests)
            outputs = [self._next_output(request) for request in batch]
            self.requests.extend(batch)
            if batch:
                self.batches.append(batch)
        return [self._complete(request, output) for request, output in zip(batch, outputs, strict=True)]

    # -- one completion ------------------------------------------------------------
    def _complete(self, request: GenerationRequest, output: Output) -> Completion:
        if isinstance(output, str):
            output = ScriptedReply(output)
        if not isinstance(output, ScriptedReply) or not isinstance(output.text, str):
            raise BackendError(f"the script gave a {type(output).__name__}, not text, for {request.agent}")
        reply = output
        prompt_tokens = sum(self._tokenizer(m.content) for m in request.messages)
        if request.signals.attention is not None:
            return Completion("", prompt_tokens, 0, attention=self._attention(request, request.signals.attention))
        text = reply.text
        if request.assistant_prefix and text.startswith(request.assistant_prefix):
            text = text[len(request.assistant_prefix) :]
        text, finish = self._paced(request, text)
        if finish == "stop" and reply.finish_reason is not None:
            finish = reply.finish_reason
        nll = entropy = None
        if request.signals.token_stats:
            pieces = [text[s.start : s.end] for s in scripted_tokens(text)]
            nll = reply.token_nll if reply.token_nll is not None else tuple(fake_nll(p) for p in pieces)
            entropy = reply.token_entropy if reply.token_entropy is not None else tuple(fake_entropy(p) for p in pieces)
        probs = None
        if request.signals.choices:
            probs = dict(reply.choice_probs or fake_choice_probs(text, request.signals.choices))
        return Completion(
            text=text,
            prompt_tokens=prompt_tokens,
            completion_tokens=self._tokenizer(text),
            finish_reason=finish,
            token_nll=nll,
            token_entropy=entropy,
            choice_probs=probs,
        )

    def _paced(self, request: GenerationRequest, text: str) -> tuple[str, FinishReason]:
        """Spend ``seconds_per_token`` per token, stopping early when the request is cancelled."""
        if self.seconds_per_token <= 0:
            if request.cancel is not None and request.cancel.cancelled:
                return "", "cancelled"
            if request.cancel is not None:
                request.cancel.advance(len(scripted_tokens(text)))
            return text, "stop"
        spans = scripted_tokens(text)
        for count, span in enumerate(spans):
            if request.cancel is not None and request.cancel.cancelled:
                return text[: spans[count - 1].end] if count else "", "cancelled"
            time.sleep(self.seconds_per_token)
            if request.cancel is not None:
                request.cancel.advance()
            del span
        return text, "stop"

    def _attention(self, request: GenerationRequest, query: AttentionQuery) -> AttentionScores:
        prompt = "\n".join(m.content for m in request.messages)
        rows, cols = span_between(prompt, query.rows), span_between(prompt, query.cols)
        if rows is None or cols is None:
            raise BackendError(
                f"attention markers {query.rows} / {query.cols} are not in the prompt of {request.agent}"
            )
        text = prompt[rows[0] : rows[1]]
        tokens = tuple(ScoredSpan(s.start, s.end, fake_attention(text[s.start : s.end])) for s in scripted_tokens(text))
        layer = SCRIPTED_LAYERS - 1 if query.all_layers else query.layer % SCRIPTED_LAYERS
        return AttentionScores(text=text, tokens=tokens, layer=layer, all_layers=query.all_layers)

    def _next_output(self, request: GenerationRequest) -> Output:
        if self._responder is not None:
            return self._responder(request)
        if self._position >= len(self._script):
            raise BackendError(
                f"the script ran out after {self._position} outputs "
                f"({request.kind} request for {request.agent}, turn {request.turn})"
            )
        text = self._script[self._position]
        self._position += 1
        return text
