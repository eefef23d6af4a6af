"""The real backend: any Hugging Face causal LM, on a GPU or the CPU, with every capability.

What it does: ``TransformersBackend(model=None | hub id | local path)`` loads
its model lazily through ``loading.load_model`` (a small LRU registry shared by
every backend with the same settings), formats chat messages with the model's
chat template, constrains JSON requests with XGrammar, batches all generating
requests of a call through ``decoding.BatchDecoder`` (left padding, per-row
prefix reuse) and counts tokens with the model's tokenizer. With no model
named it uses the embedded SmolLM2-135M-Instruct (``embedded``).

Capabilities (all six; see ``base.Capability`` and docs/backend.md):

* ``TOKENIZER``: ``tokenize`` / ``detokenize`` / ``vocab_size`` from the fast
  tokenizer (offset mapping, no special tokens added);
* ``TOKEN_STATS`` and ``CHOICE_PROBS``: computed in the decoder from raw
  logits (``signals``);
* ``CONTINUATION``: the assistant prefix's tokens are appended to the
  generation prompt, so a continued request shares (and reuses) the whole
  prompt of the request it continues;
* ``ATTENTION``: a prefill-only pass outside the batch decoder
  (``attention``); such a request returns no text and no other signal;
* ``CANCELLATION``: checked before each row's prefill and at every decode
  step.

What it does not do: download at test time, or keep a model alive by itself
(``loaded`` asks the registry each time, so an evicted model is freed once no
generation uses it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from debate_core.backends.base import Backend, Capability, Completion, GenerationRequest, TokenSpan
from debate_core.backends.hf.embedded import EMBEDDED_MODEL_ID
from debate_core.backends.hf.loading import QUANTIZATIONS, LoadedModel, ModelSpec, load_model, peek_model, unload_model
from debate_core.backends.hf.prompt import render_prompt, tokenize_prompt
from debate_core.errors import BackendError, ConfigError

if TYPE_CHECKING:  # the decoder imports torch: only when generating
    from debate_core.backends.hf.decoding import Row

DEFAULT_MAX_BATCH = 16


class TransformersBackend(Backend):
    """A ``Backend`` over a Hugging Face model; cheap to create, loads on first use."""

    capabilities = frozenset(Capability)

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str | None = None,
        dtype: str | None = None,
        quantization: str | None = None,
        cache_dir: str | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
        prefix_reuse: bool = True,
    ) -> None:
        if quantization not in QUANTIZATIONS:
            raise ConfigError(f"quantization must be one of 8bit, 4bit or none, got {quantization!r}")
        self.spec = ModelSpec(model, device, dtype, quantization, cache_dir)
        self.max_batch = max_batch
        self.prefix_reuse = prefix_reuse

    # -- the model ------------------------------------------------------------------
    @property
    def loaded(self) -> LoadedModel:
        """The loaded model (loads it, or loads it again after an eviction)."""
        return load_model(self.spec)

    @property
    def model_id(self) -> str:
        return EMBEDDED_MODEL_ID if self.spec.model is None else self.spec.model

    @property
    def is_embedded(self) -> bool:
        return self.spec.model is None

    @property
    def vocab_size(self) -> int:
        return self.loaded.vocab_size

    def close(self) -> None:
        """Unload this backend's model now (any backend sharing it loads it again on next use)."""
        unload_model(self.spec)

    def release(self, debate_id: str) -> None:
        """Free the cached prefixes of a finished debate."""
        loaded = peek_model(self.spec)  # releasing never loads a model
        if loaded is not None:
            loaded.prefix_cache.forget(f"{debate_id}/")

    # -- tokens ---------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        return len(self.loaded.tokenizer.encode(text, add_special_tokens=False))

    def tokenize(self, text: str) -> list[TokenSpan]:
        if not text:
            return []
        encoded = self.loaded.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        return [
            TokenSpan(int(i), int(s), int(e))
            for i, (s, e) in zip(encoded["input_ids"], encoded["offset_mapping"], strict=True)
        ]

    def detokenize(self, ids: Sequence[int]) -> str:
        return str(self.loaded.tokenizer.decode(list(ids), clean_up_tokenization_spaces=False))

    def prompt_text(self, request: GenerationRequest) -> str:
        """The text the model sees for a request's messages (chat template and generation prompt applied)."""
        return render_prompt(self.loaded.tokenizer, request)

    def prompt_ids(self, request: GenerationRequest) -> list[int]:
        """The token ids the model sees: the templated prompt, then the assistant prefix's tokens."""
        return tokenize_prompt(self.loaded.tokenizer, request).ids

    # -- generation -------------------------------------------------------------------
    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        self.check(requests)
        if not requests:
            return []
        loaded = self.loaded
        try:
            with loaded.lock:
                return self._generate(list(requests), loaded)
        except BackendError:
            raise
        except (RuntimeError, MemoryError) as error:  # out of memory, device errors
            raise BackendError(f"generation failed on {loaded.device}: {error}") from error

    def _generate(self, requests: list[GenerationRequest], loaded: LoadedModel) -> list[Completion]:
        from debate_core.backends.hf.attention import attention_scores
        from debate_core.backends.hf.decoding import BatchDecoder

        results: dict[int, Completion] = {}
        decoding: list[tuple[int, Row]] = []
        for position, request in enumerate(requests):  # every row is checked before any work
            if request.signals.attention is None:
                decoding.append((position, self._row(request, loaded)))
        for position, request in enumerate(requests):
            query = request.signals.attention
            if query is None:
                continue
            prompt = tokenize_prompt(loaded.tokenizer, request)
            if request.cancel is not None and request.cancel.cancelled:
                results[position] = Completion("", len(prompt.ids), 0, finish_reason="cancelled")
            else:
                scores = attention_scores(loaded.model, prompt, query)
                results[position] = Completion("", len(prompt.ids), 0, attention=scores)
        decoder = BatchDecoder(loaded.model, loaded.eos_ids, loaded.prefix_cache)
        for start in range(0, len(decoding), self.max_batch):
            decoder.run([row for _, row in decoding[start : start + self.max_batch]])
        for position, row in decoding:
            results[position] = self._completion(requests[position], row, loaded)
        return [results[position] for position in range(len(requests))]

    def _row(self, request: GenerationRequest, loaded: LoadedModel) -> Row:
        from debate_core.backends.hf.decoding import Row
        from debate_core.backends.hf.signals import choice_token_ids

        schema = request.json_schema
        prompt = tokenize_prompt(loaded.tokenizer, request)
        return Row(
            prompt_ids=prompt.ids,
            max_new_tokens=request.sampling.max_new_tokens,
            temperature=request.sampling.local_temperature,
            seed=request.sampling.seed,
            cache_key=request.cache_key if self.prefix_reuse else None,
            grammar=loaded.grammar(json.dumps(schema)) if schema else None,
            prefix_ids=prompt.prefix_ids,
            token_stats=request.signals.token_stats,
            choice_ids=choice_token_ids(loaded.tokenizer, request.signals.choices) if request.signals.choices else (),
            cancel=request.cancel,
        )

    @staticmethod
    def _completion(request: GenerationRequest, row: Row, loaded: LoadedModel) -> Completion:
        signals = request.signals
        probs = None
        if signals.choices and row.choice_probs is not None:
            probs = dict(zip(signals.choices, row.choice_probs, strict=True))
        return Completion(
            text=str(loaded.tokenizer.decode(row.generated, skip_special_tokens=True)),
            prompt_tokens=len(row.prompt_ids),
            completion_tokens=len(row.generated),
            finish_reason=row.finish_reason,
            cached_tokens=row.cached_tokens,
            token_nll=tuple(row.nll) if signals.token_stats else None,
            token_entropy=tuple(row.entropy) if signals.token_stats else None,
            choice_probs=probs,
        )
