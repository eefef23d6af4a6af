"""``OpenAIBackend``: any OpenAI-compatible chat server (vLLM, llama.cpp, SGLang, Ollama, the OpenAI API) as a backend.

What it does: at construction it probes ``GET /v1/models`` once (a wrong
address, a wrong key or a model the server does not serve is a clear
``BackendUnavailable`` right away, naming what the server does serve) and
picks the server's ``Dialect``. ``generate`` sends a batch as concurrent
streamed ``/v1/chat/completions`` requests, at most ``concurrency`` at a time
(the server batches them continuously), and returns one ``Completion`` per
request in order, or raises for the whole batch. Per request:

* ``json_schema`` constrains the reply through the dialect (``response_format``
  or llama.cpp's grammar); the engine parses and validates the text either way;
* token counts come from the server's ``usage`` (with its cached prompt
  tokens); a cancelled stream, which has none, is counted with the tokenizer;
* signals come from ``logprobs``/``top_logprobs``: the NLL of each chosen
  token, the entropy **estimated** from the top k (``entropy_top_k`` on the
  completion, ``estimates`` on the backend), and choice probabilities from the
  first position's top k (exact on vLLM, which is asked for the choices' own
  token ids);
* ``assistant_prefix`` continues a partial reply where the dialect can
  (``CONTINUATION`` is declared only then);
* a set ``cancel`` token closes the stream (the server aborts the request) and
  the completion returns what had arrived, ``finish_reason == "cancelled"``;
  tokens are counted on the token as they arrive, for "N tokens so far";
* retries (``transport.RetryPolicy``) are listed on ``Completion.retries``.

Attention is never declared: a protocol that needs it (SID's compression)
refuses to start with this backend. ``count_tokens`` asks the server's
tokenizer (cached); a server without one needs ``tokenizer=`` (a local
Hugging Face tokenizer, loaded lazily). The API key is read from the
environment variable ``api_key_env`` (``OPENAI_API_KEY``) and kept only in the
transport's headers.

What it does not do: start a server (``llamacpp`` does, for a local GGUF) or
keep any state per debate (the server caches prefixes itself).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from debate_core.backends.base import Backend, Capability, Completion, FinishReason, GenerationRequest, TokenSpan
from debate_core.backends.openai import logprobs
from debate_core.backends.openai.dialects import DIALECTS, Dialect, TokenPiece, detect
from debate_core.backends.openai.transport import RetryPolicy, Transport
from debate_core.errors import BackendError, BackendUnavailable, ConfigError

DEFAULT_TOP_LOGPROBS = 20
TOKEN_CACHE = 8192


def api_root(base_url: str) -> str:
    """The URL that ``/chat/completions`` hangs off: ``http://host:8000`` and ``http://host:8000/v1`` both work."""
    url = base_url.strip().rstrip("/")
    return url if url.endswith("/v1") else url + "/v1"


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
        retries: int = 5,
        top_logprobs: int = DEFAULT_TOP_LOGPROBS,
        dialect: str | None = None,
        tokenizer: str | None = None,
        vocab_size: int | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Any = time.sleep,
    ) -> None:
        if concurrency < 1:
            raise ConfigError("concurrency must be at least 1")
        if dialect is not None and dialect not in DIALECTS:
            raise ConfigError(f"unknown server dialect {dialect!r} (known: {', '.join(DIALECTS)})")
        self.base_url = api_root(base_url)
        self.concurrency = concurrency
        key = os.environ.get(api_key_env) if api_key_env else None
        self._http = Transport(
            self.base_url,
            api_key=key,
            timeout_s=timeout_s,
            retry=RetryPolicy(attempts=max(retries, 1)),
            transport=transport,
            pool=concurrency + 2,
            sleep=sleep,
        )
        models = self._probe()
        entries = [e for e in models.get("data", []) if isinstance(e, Mapping)]
        served = [str(e.get("id")) for e in entries]
        aliases = {str(a) for e in entries for a in (e.get("aliases") or []) if isinstance(a, str)}
        if model is None:
            if len(served) != 1:
                raise BackendUnavailable(
                    f"{self.base_url} serves {len(served)} models ({', '.join(served) or 'none'}); "
                    "name one with --model"
                )
            model = served[0]
        elif model not in served and model not in aliases:
            raise BackendUnavailable(
                f"{self.base_url} does not serve the model {model!r}; it serves: {', '.join(served) or 'nothing'}"
            )
        self.model = model
        entry = next((e for e in entries if model in (e.get("id"), *(e.get("aliases") or []))), {})
        self.dialect: Dialect = DIALECTS[dialect] if dialect else detect(models)
        self._vocab = vocab_size or self.dialect.vocab_size(entry)  # vLLM does not say; the user may
        self.top_logprobs = max(1, min(top_logprobs, self.dialect.max_top_logprobs))
        self._local_tokenizer_name = tokenizer
        self._local_tokenizer: Any = None
        self._token_cache: OrderedDict[str, list[TokenPiece]] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="openai-backend")
        caps = {Capability.TOKEN_STATS, Capability.CHOICE_PROBS, Capability.CANCELLATION}
        if self.dialect.continuation:
            caps.add(Capability.CONTINUATION)
        if self.dialect.tokenizer or tokenizer:
            caps.add(Capability.TOKENIZER)
        self.capabilities = frozenset(caps)
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
        try:
            models = self._http.get("/models")
        except BackendError as error:
            raise BackendUnavailable(
                f"no OpenAI-compatible server answers at {self.base_url} ({error}); "
                "check the address (e.g. http://127.0.0.1:8000/v1) and that the server is running"
            ) from error
        if not isinstance(models, dict) or not isinstance(models.get("data"), list):
            raise BackendUnavailable(f"GET {self.base_url}/models did not answer with a model list")
        return models

    # -- tokens --------------------------------------------------------------------------------

    def _pieces(self, text: str) -> list[TokenPiece]:
        with self._cache_lock:
            found = self._token_cache.get(text)
            if found is not None:
                self._token_cache.move_to_end(text)
                return found
        if self._local_tokenizer_name:
            pieces = self._local_pieces(text)
        elif self.dialect.tokenizer:
            root = self.base_url.removesuffix("/v1")
            data = self._http.post(root + "/tokenize", self.dialect.tokenize_request(self.model, text))
            pieces = self.dialect.tokenize_answer(data)
        else:
            raise ConfigError(
                f"the server at {self.base_url} has no tokenizer endpoint; give the backend a local one "
                "(--backend-option tokenizer=HUB_ID_OR_PATH) to count tokens"
            )
        with self._cache_lock:
            self._token_cache[text] = pieces
            while len(self._token_cache) > TOKEN_CACHE:
                self._token_cache.popitem(last=False)
        return pieces

    def _local_pieces(self, text: str) -> list[TokenPiece]:
        if self._local_tokenizer is None:
            from transformers import AutoTokenizer  # heavy: only when asked for

            self._local_tokenizer = AutoTokenizer.from_pretrained(self._local_tokenizer_name)
        encoded = self._local_tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [
            TokenPiece(int(i), text[a:b])
            for i, (a, b) in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True)
        ]

    def count_tokens(self, text: str) -> int:
        return len(self._pieces(text)) if text else 0

    def tokenize(self, text: str) -> list[TokenSpan]:
        if not text:
            return []
        spans, start = [], 0
        for piece in self._pieces(text):
            end = min(start + len(piece.text), len(text))
            spans.append(TokenSpan(piece.id if piece.id is not None else -1, start, end))
            start = end
        if start != len(text):
            raise BackendError(f"the server's tokens do not add up to the text ({start} of {len(text)} characters)")
        return spans

    def detokenize(self, ids: Sequence[int]) -> str:
        if self._local_tokenizer_name:
            self._local_pieces("")
            return str(self._local_tokenizer.decode(list(ids)))
        if not self.dialect.tokenizer:
            return super().detokenize(ids)
        root = self.base_url.removesuffix("/v1")
        return self.dialect.detokenize_answer(
            self._http.post(root + "/detokenize", self.dialect.detokenize_request(self.model, ids))
        )

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
            "temperature": request.sampling.temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.sampling.seed is not None and request.sampling.temperature > 0:
            body["seed"] = request.sampling.seed  # greedy needs none (and vLLM's CPU build mishandles some)
        # per-token entries also count the tokens as they arrive ("N tokens so far")
        body["logprobs"] = True
        if request.signals.token_stats or request.signals.choices:
            body["top_logprobs"] = self.top_logprobs
        if request.signals.choices and not request.signals.token_stats and self.dialect.exact_choices:
            # the choices' own first tokens, whatever their rank (the list then holds only those)
            body["logprob_token_ids"] = sorted({p[0].id for c in request.signals.choices if (p := self._pieces(c))})
        if request.json_schema is not None:
            self.dialect.constrain(body, request.json_schema)
        if request.assistant_prefix:
            self.dialect.continue_message(body, request.assistant_prefix)
        return body

    def _first_tokens(self, choices: Sequence[str]) -> dict[str, str]:
        if not self.dialect.tokenizer and not self._local_tokenizer_name:
            return {c: c for c in choices}
        return {c: (self._pieces(c)[0].text if c else "") for c in choices}

    def _one(self, request: GenerationRequest) -> Completion:
        retries: list[str] = []
        text_parts: list[str] = []
        content: list[Any] = []
        finish: FinishReason = "stop"
        usage: Mapping[str, Any] | None = None
        cancel = request.cancel
        advanced = 0
        stream = self._http.stream("/chat/completions", self._body(request), on_retry=retries.append)
        try:
            for chunk in stream:
                if isinstance(chunk.get("usage"), Mapping):
                    usage = chunk["usage"]
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    piece = delta.get("content")
                    if isinstance(piece, str) and piece:
                        text_parts.append(piece)
                    lp = choice.get("logprobs")
                    new = lp.get("content") if isinstance(lp, Mapping) else None
                    if isinstance(new, list):
                        content.extend(new)
                    if cancel is not None and (new or piece):
                        step = len(new) if isinstance(new, list) and new else 1
                        cancel.advance(step)
                        advanced += step
                    reason = choice.get("finish_reason")
                    if reason in ("length", "stop"):
                        finish = reason
                if cancel is not None and cancel.cancelled:
                    finish = "cancelled"
                    break
        finally:
            stream.close()
        text = "".join(text_parts)
        if request.assistant_prefix:
            text = self.dialect.strip_prefix(text, request.assistant_prefix)
        completion = self._completion(request, text, content, finish, usage, tuple(retries))
        if cancel is not None and completion.completion_tokens > advanced:
            cancel.advance(completion.completion_tokens - advanced)  # several tokens of one character
        return completion

    def _completion(
        self,
        request: GenerationRequest,
        text: str,
        content: list[Any],
        finish: FinishReason,
        usage: Mapping[str, Any] | None,
        retries: tuple[str, ...],
    ) -> Completion:
        if usage is not None:
            prompt = int(usage.get("prompt_tokens") or 0)
            generated = int(usage.get("completion_tokens") or 0)
            details = usage.get("prompt_tokens_details")
            cached = int(details.get("cached_tokens") or 0) if isinstance(details, Mapping) else 0
        else:
            prompt = sum(self.count_tokens(m.content) for m in request.messages)
            generated = len(content) if content else self.count_tokens(text)
            cached = 0
        nll = entropy = None
        top_k = None
        if request.signals.token_stats:
            nll, entropy = logprobs.token_stats(content)
            top_k = self.top_logprobs
        probs = None
        if request.signals.choices:
            probs = logprobs.choice_probs(content, self._first_tokens(request.signals.choices))
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
