"""``OpenAIBackend``: any OpenAI-compatible chat server (vLLM, llama.cpp, SGLang, Ollama, the OpenAI API) as a backend.

The server is untrusted input: every field this backend reads is checked where
it arrives, and anything malformed is one ``BackendError`` naming the server
(the debate then ends with reason ``error``), never a traceback, a hang or an
empty reply passed off as the model's.

What it does: at construction it probes ``GET /v1/models`` once (a wrong
address, a wrong key, a malformed list or a model the server does not serve is
a clear ``BackendUnavailable`` right away, naming what the server does serve)
and picks the server's ``Dialect``. A server without a tokenizer endpoint and
no local ``tokenizer=`` is refused then (``ConfigError``, naming the options
that fix it): a debate counts its public tokens with the model's tokenizer.
``generate`` sends a batch as concurrent streamed ``/v1/chat/completions``
requests, at most ``concurrency`` at a time (the server batches them
continuously), and returns one ``Completion`` per request in order, or raises
for the whole batch. Per request:

* ``json_schema`` constrains the reply through the dialect (``response_format``
  or llama.cpp's grammar); the engine parses and validates the text either way;
* every chunk's ``choices``, ``delta``, ``logprobs``, ``finish_reason`` and
  ``usage`` is checked; token counts come from ``usage`` (with its cached
  prompt tokens) and must be whole numbers from 0 to ``MAX_COUNT``, so nothing
  a server says can overflow a store; a server that gives none is counted with
  the tokenizer;
* the answer is bounded in time (``headers_timeout_s`` for the headers,
  ``timeout_s`` for the whole answer) and in bytes (``answer_bytes``: a server
  that ignores ``max_tokens`` is cut off with an error), see ``transport``;
* signals come from ``logprobs``/``top_logprobs``: the NLL of each chosen
  token, the entropy **estimated** from the top k (``entropy_top_k`` on the
  completion, ``estimates`` on the backend), and choice probabilities from the
  first position's top k (exact on vLLM, which is asked for the choices' own
  token ids);
* ``assistant_prefix`` continues a partial reply where the dialect can
  (``CONTINUATION`` is declared only then);
* a set ``cancel`` token ends the request at any point, before its headers
  included, within about 0.1 s (the connection is dropped, so the server
  aborts it); the completion returns what had arrived, ``finish_reason ==
  "cancelled"``, counting the tokens that arrived and no prompt tokens (no
  more calls to a server that may be stalling); tokens are counted on the
  token as they arrive, for "N tokens so far";
* retries (``transport.RetryPolicy``) are listed on ``Completion.retries``.

Attention is never declared: a protocol that needs it (SID's compression)
refuses to start with this backend. Every field of an answer is checked where
it arrives (``fields``). ``count_tokens`` asks the server's tokenizer
(``tokens.ServerTokens``: cached, every token id checked), or a local one: a Hugging Face id
or folder (loaded lazily), or from Python a function ``text -> [(id, token
text), ...]``. The API key is read from the environment variable
``api_key_env`` (``OPENAI_API_KEY``) and kept only in the transport's headers.

What it does not do: start a server (``llamacpp`` does, for a local GGUF) or
keep any state per debate (the server caches prefixes itself). ``count_tokens``
calls carry no cancel token: a stalled ``/tokenize`` ends at its deadlines.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from debate_core.backends.base import (
    Backend,
    Capability,
    Completion,
    FinishReason,
    GenerationRequest,
    TokenSpan,
)
from debate_core.backends.openai import fields, logprobs
from debate_core.backends.openai.dialects import DIALECTS, MAX_VOCAB, Dialect, detect
from debate_core.backends.openai.fields import MAX_COUNT
from debate_core.backends.openai.tokens import ServerTokens, TokenizerFunction
from debate_core.backends.openai.transport import RequestCancelled, RetryPolicy, Transport
from debate_core.errors import BackendError, BackendUnavailable, ConfigError
from debate_core.text import clean

DEFAULT_TOP_LOGPROBS = 20
#: an answer's byte bound: at least this, else per requested token (its text, JSON framing, logprobs)
MIN_ANSWER_BYTES = 1024 * 1024
BYTES_PER_TOKEN = 512
BYTES_PER_TOP_LOGPROB = 160
MAX_LISTED_MODELS = 20


def api_root(base_url: str) -> str:
    """The URL that ``/chat/completions`` hangs off: ``http://host:8000`` and ``http://host:8000/v1`` both work."""
    url = base_url.strip().rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


def served_capabilities(dialect: Dialect) -> frozenset[Capability]:
    """What a backend on a server of ``dialect`` provides (continuation only where the dialect continues)."""
    caps = {Capability.TOKEN_STATS, Capability.CHOICE_PROBS, Capability.CANCELLATION, Capability.TOKENIZER}
    if dialect.continuation:
        caps.add(Capability.CONTINUATION)
    return frozenset(caps)


class OpenAIBackend(Backend):
    """See the module docstring."""

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 8,
        timeout_s: float = 300.0,
        headers_timeout_s: float = 60.0,
        retries: int = 5,
        top_logprobs: int = DEFAULT_TOP_LOGPROBS,
        dialect: str | None = None,
        tokenizer: str | TokenizerFunction | None = None,
        vocab_size: int | None = None,
        max_answer_bytes: int | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Any = time.sleep,
    ) -> None:
        if not isinstance(concurrency, int) or concurrency < 1:
            raise ConfigError("concurrency must be at least 1")
        if dialect is not None and dialect not in DIALECTS:
            raise ConfigError(f"unknown server dialect {dialect!r} (known: {', '.join(DIALECTS)})")
        for name, seconds in (("timeout_s", timeout_s), ("headers_timeout_s", headers_timeout_s)):
            if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 < seconds < 1e6:
                raise ConfigError(f"{name} must be a positive number of seconds, not {seconds!r}")
        if vocab_size is not None and (
            isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or not 0 < vocab_size <= MAX_VOCAB
        ):
            raise ConfigError(f"vocab_size must be a whole number from 1 to {MAX_VOCAB:,}, not {vocab_size!r}")
        if max_answer_bytes is not None and (not isinstance(max_answer_bytes, int) or max_answer_bytes < 1024):
            raise ConfigError(f"max_answer_bytes must be a whole number of at least 1024, not {max_answer_bytes!r}")
        self.base_url = api_root(base_url)
        self.concurrency = concurrency
        self.max_answer_bytes = max_answer_bytes
        key = os.environ.get(api_key_env) if api_key_env else None
        self._http = Transport(
            self.base_url,
            api_key=key,
            timeout_s=timeout_s,
            headers_timeout_s=headers_timeout_s,
            retry=RetryPolicy(attempts=max(retries, 1)),
            transport=transport,
            pool=concurrency + 2,
            sleep=sleep,
        )
        try:
            self._setup(model, dialect, tokenizer, vocab_size, top_logprobs)
        except BaseException:
            self._http.close()
            raise

    def _setup(
        self,
        model: str | None,
        dialect: str | None,
        tokenizer: str | TokenizerFunction | None,
        vocab_size: int | None,
        top_logprobs: int,
    ) -> None:
        models = self._probe()
        entries = models["data"]
        served = [e["id"] for e in entries]
        listed = ", ".join(clean(name)[:200] for name in served[:MAX_LISTED_MODELS]) + (
            f" and {len(served) - MAX_LISTED_MODELS} more" if len(served) > MAX_LISTED_MODELS else ""
        )
        if model is None:
            if len(served) != 1:
                raise BackendUnavailable(
                    f"{self.base_url} serves {len(served)} models ({listed or 'none'}); name one with --model"
                )
            model = served[0]
        entry = next((e for e in entries if model == e["id"]), None) or next(
            (e for e in entries if model in (e.get("aliases") or ())), None
        )
        if entry is None:
            raise BackendUnavailable(
                f"{self.base_url} does not serve the model {clean(model)[:200]!r}; it serves: {listed or 'nothing'}"
            )
        self.model = model
        self.dialect: Dialect = DIALECTS[dialect] if dialect else detect(models)
        try:
            self._vocab = vocab_size or self.dialect.vocab_size(entry)  # vLLM does not say; the user may
        except BackendError as error:
            raise BackendUnavailable(f"GET {self.base_url}/models: {error}") from error
        if not self.dialect.tokenizer and not tokenizer:
            raise ConfigError(
                f"the server at {self.base_url} has no tokenizer endpoint (its model list does not say it is vLLM "
                "or llama.cpp), and a debate counts its public tokens with the model's tokenizer: give the backend "
                "a local one (--backend-option tokenizer=HUB_ID_OR_PATH, the served model's Hugging Face id or "
                "folder), or, if the server is vLLM or llama.cpp, say so (--backend-option dialect=vllm or "
                "dialect=llamacpp); in the web app, type these after the model name"
            )
        self.top_logprobs = max(1, min(top_logprobs, self.dialect.max_top_logprobs))
        self._tokens = ServerTokens(self._http, self.dialect, self.model, self.base_url, tokenizer)
        self._pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="openai-backend")
        self.capabilities = served_capabilities(self.dialect)
        raw = "raw" if self.dialect.raw_logprobs else "as the server processes them"
        self.estimates = {
            Capability.TOKEN_STATS: f"entropy estimated from the top {self.top_logprobs} log-probabilities "
            f"(a lower bound); log-likelihoods {raw}",
            Capability.CHOICE_PROBS: f"a choice outside the top {self.top_logprobs} at the first position counts 0",
        }
        if self.dialect.exact_choices:
            del self.estimates[Capability.CHOICE_PROBS]  # asked for by token id: exact

    # -- identity ------------------------------------------------------------------------------

    @property
    def model_id(self) -> str:
        return f"{self.model} at {self.base_url} ({self.dialect.name})"

    @property
    def vocab_size(self) -> int | None:
        return self._vocab

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._http.close()

    def _probe(self) -> dict[str, Any]:
        """``GET /models``, every field this backend reads checked (``BackendUnavailable`` naming the server)."""
        try:
            models = self._http.get("/models")
        except BackendError as error:
            raise BackendUnavailable(
                f"no OpenAI-compatible server answers at {self.base_url} ({error}); "
                "check the address (e.g. http://127.0.0.1:8000/v1) and that the server is running"
            ) from error
        where = f"GET {self.base_url}/models"
        if not isinstance(models, dict) or not isinstance(models.get("data"), list):
            raise BackendUnavailable(f"{where} did not answer with a model list")
        for index, entry in enumerate(models["data"]):
            problem = fields.model_entry_problem(entry)
            if problem:
                raise BackendUnavailable(f"{where} answered a model list whose entry {index} {problem}")
        return models

    # -- tokens --------------------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        return len(self._tokens.pieces(text)) if text else 0

    def tokenize(self, text: str) -> list[TokenSpan]:
        if not text:
            return []
        spans, start = [], 0
        for piece in self._tokens.pieces(text):
            end = min(start + len(piece.text), len(text))
            spans.append(TokenSpan(piece.id if piece.id is not None else -1, start, end))
            start = end
        if start != len(text):
            raise BackendError(
                f"the tokens of {self.base_url}'s tokenizer do not add up to the text "
                f"({start} of {len(text)} characters)"
            )
        return spans

    def detokenize(self, ids: Sequence[int]) -> str:
        if self._tokens.function is not None:
            return super().detokenize(ids)
        if self._tokens.local_name:
            return self._tokens.local_decode(ids)
        root = self.base_url.removesuffix("/v1")
        data = self._http.post(root + "/detokenize", self.dialect.detokenize_request(self.model, ids))
        try:
            return self.dialect.detokenize_answer(data)
        except BackendError as error:
            raise BackendError(f"POST {root}/detokenize: {error}") from error

    # -- generation ----------------------------------------------------------------------------

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        self.check(requests)
        if not requests:
            return []
        futures = [self._pool.submit(self._one, request) for request in requests]
        results: list[Completion] = []
        failure: BaseException | None = None
        for future in futures:
            try:
                results.append(future.result())
            except BaseException as error:
                failure = failure or error
        if failure is not None:
            if isinstance(failure, BackendError | ConfigError):
                raise failure
            raise BackendError(f"a request to {self.base_url} failed: {failure!r}") from failure
        return results

    def _body(self, request: GenerationRequest) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.as_dict() for m in request.messages],
            "max_tokens": max(request.sampling.max_new_tokens, 1),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        temperature = request.sampling.temperature
        if temperature is not None:  # None: the server's own default (the field omitted)
            body["temperature"] = temperature
        if request.sampling.seed is not None and (temperature is None or temperature > 0):
            body["seed"] = request.sampling.seed  # greedy needs none (and vLLM's CPU build mishandles some)
        # per-token entries also count the tokens as they arrive ("N tokens so far")
        body["logprobs"] = True
        if request.signals.token_stats or request.signals.choices:
            body["top_logprobs"] = self.top_logprobs
        if request.signals.choices and not request.signals.token_stats and self.dialect.exact_choices:
            # the choices' own first tokens, whatever their rank (the list then holds only those)
            body["logprob_token_ids"] = sorted(
                {p[0].id for c in request.signals.choices if (p := self._tokens.pieces(c, request.cancel))}
            )
        if request.json_schema is not None:
            self.dialect.constrain(body, request.json_schema)
        if request.assistant_prefix:
            self.dialect.continue_message(body, request.assistant_prefix)
        return body

    def answer_bytes(self, request: GenerationRequest) -> int:
        """The most bytes a streamed answer to ``request`` may take before it is dropped as a runaway."""
        if self.max_answer_bytes is not None:
            return self.max_answer_bytes
        per_token = BYTES_PER_TOKEN + self.top_logprobs * BYTES_PER_TOP_LOGPROB
        return max(MIN_ANSWER_BYTES, max(request.sampling.max_new_tokens, 1) * per_token)

    def _first_tokens(self, choices: Sequence[str], *, cached_only: bool = False) -> dict[str, str]:
        """Each choice's first token's text (the choice itself where unknown; ``cached_only``: no server call)."""
        first = {}
        for choice in choices:
            known = cached_only or not choice  # no server call: a stopped request, or nothing to split
            pieces = (self._tokens.cached(choice) if known else self._tokens.pieces(choice)) or []
            first[choice] = pieces[0].text if pieces else choice
        return first

    def _one(self, request: GenerationRequest) -> Completion:
        retries: list[str] = []
        text_parts: list[str] = []
        content: list[Any] = []
        finish: FinishReason = "stop"
        usage: Mapping[str, Any] | None = None
        cancel = request.cancel
        advanced = 0
        try:
            stream = self._http.stream(
                "/chat/completions",
                self._body(request),
                on_retry=retries.append,
                cancel=cancel,
                max_bytes=self.answer_bytes(request),
            )
            try:
                for chunk in stream:
                    usage = fields.usage(chunk, self.base_url) or usage
                    for choice in fields.choices(chunk, self.base_url):
                        piece, new, reason = choice
                        if piece:
                            text_parts.append(piece)
                        content.extend(new)
                        if cancel is not None and (new or piece):
                            step = len(new) or 1
                            cancel.advance(step)
                            advanced += step
                        if reason == "length":
                            finish = "length"
                        elif reason == "stop":
                            finish = "stop"
                    if cancel is not None and cancel.cancelled:
                        finish = "cancelled"
                        break
            finally:
                stream.close()
        except RequestCancelled:
            finish = "cancelled"
        text = "".join(text_parts)
        if request.assistant_prefix:
            text = self.dialect.strip_prefix(text, request.assistant_prefix)
        completion = self._completion(request, text, content, finish, usage, tuple(retries), advanced)
        if cancel is not None and completion.completion_tokens > advanced:
            cancel.advance(completion.completion_tokens - advanced)  # several tokens of one character
        return completion

    # -- what a streamed chunk may hold ------------------------------------------------------------

    def _completion(
        self,
        request: GenerationRequest,
        text: str,
        content: list[Any],
        finish: FinishReason,
        usage: Mapping[str, int] | None,
        retries: tuple[str, ...],
        advanced: int = 0,
    ) -> Completion:
        if usage is not None:
            prompt = usage["prompt_tokens"]
            generated = usage["completion_tokens"]
            cached = usage["cached_tokens"]
        elif finish == "cancelled":  # stopped: what arrived, and no more calls to a server that may be stalling
            prompt, generated, cached = 0, min(max(len(content), advanced), MAX_COUNT), 0
        else:
            prompt = min(sum(self.count_tokens(m.content) for m in request.messages), MAX_COUNT)
            generated = min(len(content) if content else self.count_tokens(text), MAX_COUNT)
            cached = 0
        nll = entropy = None
        top_k = None
        if request.signals.token_stats:
            nll, entropy = logprobs.token_stats(content)
            top_k = self.top_logprobs
        probs = None
        if request.signals.choices:
            first = self._first_tokens(request.signals.choices, cached_only=finish == "cancelled")
            probs = logprobs.choice_probs(content, first)
        return Completion(
            text=text,
            prompt_tokens=prompt,
            completion_tokens=generated,
            finish_reason=finish,
            cached_tokens=min(cached, prompt),
            token_nll=nll,
            token_entropy=entropy,
            choice_probs=probs,
            entropy_top_k=top_k,
            retries=retries,
        )
