"""Loading Hugging Face models: what to load (``ModelSpec``), where, in which dtype, and how many stay loaded.

What it does: ``load_model(spec)`` returns a ``LoadedModel`` (model, tokenizer,
device, dtype, end-of-sequence ids, a key/value ``PrefixCache``, a lock that
serialises use of the model, and compiled XGrammar grammars). Equal specs share
one loaded model. Loaded models live in a small **least-recently-used
registry**: at most ``DEBATE_MAX_LOADED_MODELS`` (default 2) at a time; loading
one more first evicts the least recently used, dropping the registry's
references (and emptying the CUDA cache when it was on a GPU), so its memory
is freed once no running generation still holds it. ``unload_model`` evicts
one on purpose.

Device: cuda, then mps, then cpu, unless given. Dtype: bfloat16 on CUDA when
supported (else float16), float16 on MPS, float32 on the CPU; override with
``dtype``. On the CPU float32 keeps greedy results independent of batching.
``quantization`` "8bit" or "4bit" loads through bitsandbytes on CUDA.

What it does not do: download at test time (with ``HF_HUB_OFFLINE=1`` a hub id
must already be in the local cache; otherwise loading fails with a
``BackendUnavailable`` saying so in one sentence, ``load_failure``: the hub's
and the loader's own multi-line messages stay in its cause), or decode
anything. torch and transformers are imported inside the functions that need
them.
"""

from __future__ import annotations

import gc
import os
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_core.backends.hf.embedded import EMBEDDED_MODEL_ID, embedded_model_dir
from debate_core.backends.hf.prefix_cache import PrefixCache
from debate_core.errors import BackendUnavailable, ConfigError
from debate_core.log import logger

QUANTIZATIONS = (None, "8bit", "4bit")
MAX_LOADED_ENV = "DEBATE_MAX_LOADED_MODELS"
DEFAULT_MAX_LOADED = 2


@dataclass(frozen=True)
class ModelSpec:
    """What to load, and how; equal specs share one loaded model."""

    model: str | None = None
    device: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    cache_dir: str | None = None

    @property
    def model_id(self) -> str:
        return EMBEDDED_MODEL_ID if self.model is None else self.model


@dataclass(eq=False)
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

    @property
    def vocab_size(self) -> int:
        """The width of the model's next-token distribution (its output logits)."""
        return int(self.model.config.vocab_size)

    def grammar(self, schema: str) -> Any:
        """The compiled XGrammar grammar of a JSON schema (compiled once per schema)."""
        compiled = self._grammars.get(schema)
        if compiled is None:
            import xgrammar as xgr

            if self._compiler is None:
                info = xgr.TokenizerInfo.from_huggingface(self.tokenizer, vocab_size=self.vocab_size)
                self._compiler = xgr.GrammarCompiler(info, max_threads=2)
            compiled = self._compiler.compile_json_schema(schema, any_whitespace=False)
            self._grammars[schema] = compiled
        return compiled


_MODELS: OrderedDict[ModelSpec, LoadedModel] = OrderedDict()
_REGISTRY_LOCK = threading.Lock()


def max_loaded_models() -> int:
    """How many models may stay loaded at once (``$DEBATE_MAX_LOADED_MODELS``, default 2)."""
    raw = os.environ.get(MAX_LOADED_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_LOADED
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{MAX_LOADED_ENV} must be a positive integer, got {raw!r}") from None
    if value < 1:
        raise ConfigError(f"{MAX_LOADED_ENV} must be a positive integer, got {raw!r}")
    return value


def load_model(spec: ModelSpec) -> LoadedModel:
    """Load (or return the already loaded) model for ``spec``; thread-safe.

    Loading a model when the registry is full first evicts the least recently
    used one.
    """
    with _REGISTRY_LOCK:
        loaded = _MODELS.get(spec)
        if loaded is not None:
            _MODELS.move_to_end(spec)
            return loaded
        limit = max_loaded_models()
        while len(_MODELS) >= limit:
            _evict(next(iter(_MODELS)))
        loaded = _load(spec)
        _MODELS[spec] = loaded
        return loaded


def unload_model(spec: ModelSpec) -> bool:
    """Drop the registry's model for ``spec``; True if one was loaded."""
    with _REGISTRY_LOCK:
        if spec not in _MODELS:
            return False
        _evict(spec)
        return True


def peek_model(spec: ModelSpec) -> LoadedModel | None:
    """The loaded model for ``spec`` if there is one; never loads (and does not count as a use)."""
    with _REGISTRY_LOCK:
        return _MODELS.get(spec)


def loaded_specs() -> list[ModelSpec]:
    """The specs of the loaded models, least recently used first."""
    with _REGISTRY_LOCK:
        return list(_MODELS)


def _evict(spec: ModelSpec) -> None:
    loaded = _MODELS.pop(spec)
    on_cuda = loaded.device.startswith("cuda")
    logger.info("unloading %s from %s", loaded.model_id, loaded.device)
    del loaded
    gc.collect()
    if on_cuda:
        import torch

        torch.cuda.empty_cache()


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
        dtype = getattr(torch, requested, None)
        if not isinstance(dtype, torch.dtype):
            raise ConfigError(f"unknown dtype {requested!r} (try bfloat16, float16, float32)")
        return dtype
    if device.startswith("cuda"):
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device == "mps":
        return torch.float16
    return torch.float32


_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")
_SHOWN_SOURCE = 120


def _offline() -> bool:
    return any(
        os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
        for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


def _exists(source: str) -> bool:
    try:
        return Path(source).expanduser().exists()
    except (OSError, ValueError):  # a name too long for a path, or one with a NUL: no file
        return False


def load_failure(source: str, error: BaseException) -> str:
    """One sentence for a model that could not be loaded: which, and why, in words (the hub's and the loader's
    own messages run to several lines of advice and links; they stay in the error's cause and the log)."""
    said = " ".join(str(error).split()).lower()
    shown = source if len(source) <= _SHOWN_SOURCE else source[:_SHOWN_SOURCE] + "…"
    if _exists(source):
        why = "that path holds no model transformers can load (a folder with config.json, weights and a tokenizer)"
    elif "repo id must" in said or "repo_id" in said or ".." in source or not _HUB_ID.match(source):
        why = "it is neither a folder on this machine nor a Hugging Face model id such as org/name"
    elif _offline() or "couldn't connect" in said or "offline" in said or "connection" in said:
        why = (
            "it is not in this machine's Hugging Face cache and the hub cannot be reached "
            "(with HF_HUB_OFFLINE=1 a model must be downloaded before it is used)"
        )
    elif "gated" in said or "401" in said or "403" in said or "restricted" in said:
        why = "the Hugging Face hub refuses access to it (a gated or private model needs a token that may read it)"
    elif "404" in said or "not found" in said or "not a valid model identifier" in said or "does not appear" in said:
        why = "the Hugging Face hub has no model of that id"
    else:
        first = re.split(r"(?<=[.!?])\s", " ".join(str(error).split()), maxsplit=1)[0].rstrip(".")
        why = (first[:160] + "…") if len(first) > 160 else first or type(error).__name__
    return f"could not load model {shown!r}: {why}."


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
    except (OSError, ValueError) as error:  # the hub's and the loader's errors: said in one sentence
        raise BackendUnavailable(load_failure(source, error)) from error
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
        model_id=spec.model_id,
        model=model,
        tokenizer=tokenizer,
        device=device,
        dtype=str(dtype).removeprefix("torch."),
        eos_ids=eos,
        load_seconds=time.perf_counter() - started,
        import_seconds=started - began,
    )
