"""The real backend: any Hugging Face causal LM, on a GPU or the CPU.

What it does: ``TransformersBackend(model=None | hub id | local path)`` loads a
model lazily, once per process (``load_model`` keeps a registry, so several
debates and backends share one loaded model), formats chat messages with the
model's chat template, constrains JSON requests with XGrammar, batches all
requests of a call through ``decoding.BatchDecoder`` (left padding, per-row
prefix reuse) and counts tokens with the model's tokenizer. With no model
named it uses the embedded SmolLM2-135M-Instruct (``embedded``).

Device: cuda, then mps, then cpu, unless given. Dtype: bfloat16 on CUDA when
supported (else float16), float16 on MPS, float32 on the CPU; override with
``dtype``. On the CPU float32 keeps greedy results independent of batching
(bfloat16 decodes about twice as fast on CPUs with native bfloat16 kernels,
but a batched completion can then drift from the same request decoded alone). ``quantization``
"8bit" or "4bit" loads through bitsandbytes on CUDA (the paper ran
Llama-3.1-8B-Instruct in 8-bit).

What it does not do: download at test time. With ``HF_HUB_OFFLINE=1`` a hub id
must already be in the local cache; otherwise loading fails with a
``BackendError`` saying so.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from debate_core.backends.base import Completion, GenerationRequest
from debate_core.backends.embedded import EMBEDDED_MODEL_ID, embedded_model_dir
from debate_core.backends.prefix_cache import PrefixCache
from debate_core.errors import BackendError, ConfigError
from debate_core.log import logger

DEFAULT_MAX_BATCH = 16
QUANTIZATIONS = (None, "8bit", "4bit")


@dataclass(frozen=True)
class ModelSpec:
    """What to load, and how; equal specs share one loaded model."""

    model: str | None = None
    device: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    cache_dir: str | None = None


@dataclass
class LoadedModel:
    """A model, its tokenizer and everything shared by backends that use it."""

    spec: ModelSpec
    model_id: str
    model: Any
    tokenizer: Any
    device: str
    dtype: str
    eos_ids: set[int]
    load_seconds: float
    import_seconds: float = 0.0
    prefix_cache: PrefixCache = field(default_factory=lambda: PrefixCache(max_entries=32))
    lock: threading.Lock = field(default_factory=threading.Lock)
    _compiler: Any = None
    _grammars: dict[str, Any] = field(default_factory=dict)

    def grammar(self, schema: str) -> Any:
        """The compiled XGrammar grammar of a JSON schema (compiled once per schema)."""
        compiled = self._grammars.get(schema)
        if compiled is None:
            import xgrammar as xgr

            if self._compiler is None:
                vocab = self.model.config.vocab_size
                info = xgr.TokenizerInfo.from_huggingface(self.tokenizer, vocab_size=vocab)
                self._compiler = xgr.GrammarCompiler(info, max_threads=2)
            compiled = self._compiler.compile_json_schema(schema, any_whitespace=False)
            self._grammars[schema] = compiled
        return compiled


_MODELS: dict[ModelSpec, LoadedModel] = {}
_REGISTRY_LOCK = threading.Lock()


def pick_device(requested: str | None) -> str:
    import torch

    if requested:
        return requested
    if torch.cuda.is_available():
        return "cuda"
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(requested: str | None, device: str) -> Any:
    import torch

    if requested:
        try:
            return getattr(torch, requested)
        except AttributeError:
            raise ConfigError(f"unknown dtype {requested!r} (try bfloat16, float16, float32)") from None
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device == "mps":
        return torch.float16
    return torch.float32


def load_model(spec: ModelSpec) -> LoadedModel:
    """Load (or return the already loaded) model for ``spec``; thread-safe."""
    with _REGISTRY_LOCK:
        if spec in _MODELS:
            return _MODELS[spec]
        loaded = _load(spec)
        _MODELS[spec] = loaded
        return loaded


def _load(spec: ModelSpec) -> LoadedModel:
    if spec.quantization not in QUANTIZATIONS:
        raise ConfigError(f"quantization must be one of 8bit, 4bit or none, got {spec.quantization!r}")
    began = time.perf_counter()
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # callers show their own progress
    started = time.perf_counter()

    source = str(embedded_model_dir(spec.cache_dir)) if spec.model is None else spec.model
    device = pick_device(spec.device)
    dtype = pick_dtype(spec.dtype, device)
    kwargs: dict[str, Any] = {"dtype": dtype}
    if spec.quantization:
        if not device.startswith("cuda"):
            raise ConfigError(f"{spec.quantization} loading needs a CUDA GPU (bitsandbytes); device is {device}")
        try:
            from transformers import BitsAndBytesConfig
        except ImportError as error:  # pragma: no cover - depends on the install
            raise ConfigError(f"{spec.quantization} loading needs bitsandbytes: {error}") from None
        bits = {"load_in_8bit": True} if spec.quantization == "8bit" else {"load_in_4bit": True}
        kwargs.update(quantization_config=BitsAndBytesConfig(**bits), device_map=device)
    logger.info("loading %s on %s (%s)", source, device, dtype)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source)
        model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
    except OSError as error:
        raise BackendError(
            f"could not load model {source!r}: {error}. With HF_HUB_OFFLINE=1 a hub id must already be "
            "in the local Hugging Face cache; otherwise pass a local folder."
        ) from error
    if not spec.quantization:
        model.to(torch.device(device))  # type: ignore[arg-type]  # transformers types .to oddly
    model.eval()
    eos: set[int] = set()
    for candidate in (model.generation_config.eos_token_id, tokenizer.eos_token_id):
        if isinstance(candidate, int):
            eos.add(candidate)
        elif candidate:
            eos.update(candidate)
    torch.set_grad_enabled(False)
    return LoadedModel(
        spec=spec,
        model_id=EMBEDDED_MODEL_ID if spec.model is None else spec.model,
        model=model,
        tokenizer=tokenizer,
        device=device,
        dtype=str(dtype).removeprefix("torch."),
        eos_ids=eos,
        load_seconds=time.perf_counter() - started,
        import_seconds=started - began,
    )


class TransformersBackend:
    """A ``Backend`` over a Hugging Face model; cheap to create, loads on first use."""

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
        self._loaded: LoadedModel | None = None

    @property
    def loaded(self) -> LoadedModel:
        if self._loaded is None:
            self._loaded = load_model(self.spec)
        return self._loaded

    @property
    def model_id(self) -> str:
        return EMBEDDED_MODEL_ID if self.spec.model is None else self.spec.model

    @property
    def is_embedded(self) -> bool:
        return self.spec.model is None

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        return len(self.loaded.tokenizer.encode(text, add_special_tokens=False))

    def prompt_ids(self, request: GenerationRequest) -> list[int]:
        """The token ids the model sees for a request's messages (chat template applied)."""
        tokenizer = self.loaded.tokenizer
        messages = [m.as_dict() for m in request.messages]
        if getattr(tokenizer, "chat_template", None):
            text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        else:  # a base model without a chat template
            text = "\n\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\n\nassistant:"
        return list(tokenizer(text, add_special_tokens=False)["input_ids"])

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        if not requests:
            return []
        from debate_core.backends.decoding import BatchDecoder

        loaded = self.loaded
        decoder = BatchDecoder(loaded.model, loaded.eos_ids, loaded.prefix_cache)
        try:
            with loaded.lock:
                rows = [self._row(request, loaded) for request in requests]
                for start in range(0, len(rows), self.max_batch):
                    decoder.run(rows[start : start + self.max_batch])
        except BackendError:
            raise
        except (RuntimeError, MemoryError) as error:  # out of memory, device errors
            raise BackendError(f"generation failed on {loaded.device}: {error}") from error
        tokenizer = loaded.tokenizer
        return [
            Completion(
                text=tokenizer.decode(row.generated, skip_special_tokens=True),
                prompt_tokens=len(row.prompt_ids),
                completion_tokens=len(row.generated),
                finish_reason="stop" if row.finish_reason == "stop" else "length",
                cached_tokens=row.cached_tokens,
            )
            for row in rows
        ]

    def _row(self, request: GenerationRequest, loaded: LoadedModel) -> Any:
        from debate_core.backends.decoding import Row

        schema = request.json_schema
        return Row(
            prompt_ids=self.prompt_ids(request),
            max_new_tokens=request.sampling.max_new_tokens,
            temperature=request.sampling.temperature,
            seed=request.sampling.seed,
            cache_key=request.cache_key if self.prefix_reuse else None,
            grammar=loaded.grammar(json.dumps(schema)) if schema else None,
        )

    def release(self, debate_id: str) -> None:
        """Free the cached prefixes of a finished debate."""
        if self._loaded is not None:
            self._loaded.prefix_cache.forget(f"{debate_id}/")
