"""One way to build a backend by name, for the terminal, the web app and the study harness.

What it does: ``make_backend(BackendSpec(kind, model, ...), config)`` returns
a backend:

* ``scripted``: the configured protocol's scripted demo (no model; see
  ``Protocol.demo_responder``), or a given ``responder``;
* ``transformers``: a local Hugging Face model (``hf.TransformersBackend``;
  ``model`` None is the embedded SmolLM2-135M), imported only now;
* ``openai``: any OpenAI-compatible server (``options["base_url"]``; ``model``
  the served model's name, or None when it serves one), see
  ``openai.OpenAIBackend`` for the other options;
* ``llamacpp``: a local GGUF file (``model``; None is the embedded SmolLM2)
  served by llama.cpp on loopback for as long as the backend lives
  (``openai.LlamaCppBackend``; ``start=later`` starts the server at the
  backend's ``loaded``, not at construction);
* any name an installed package registers in the entry-point group
  ``interruptible_debate.backends`` (a callable ``(spec, config) -> Backend``).

``seated(default, spec, config)`` adds the models a protocol variant puts in
some roles' seats (``Protocol.seat_models()``, e.g. HandRaiser's fine-tuned
listener): a ``BackendRouter`` with one backend of the same kind per such
model (with the scripted backend, the demo script under the model's name),
or ``default`` unchanged when the variant seats none (``model_for.SeatBackends``,
which also gives agents and roles the models ``--model-for`` names).

What it does not do: load a model (backends load lazily, on first use).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from debate_core.backends.base import Backend
from debate_core.backends.router import BackendRouter
from debate_core.backends.scripted import Responder, ScriptedBackend
from debate_core.config import DebateConfig
from debate_core.errors import ConfigError

ENTRY_POINT_GROUP = "interruptible_debate.backends"
BUILT_IN = ("scripted", "transformers", "llamacpp", "openai")
SERVER_OPTIONS = frozenset(
    {
        "api_key_env",
        "concurrency",
        "timeout_s",
        "headers_timeout_s",
        "retries",
        "top_logprobs",
        "dialect",
        "tokenizer",
        "vocab_size",
        "max_answer_bytes",
    }
)
LLAMACPP_OPTIONS = frozenset(
    {"threads", "parallel", "ctx", "concurrency", "timeout_s", "headers_timeout_s", "retries", "top_logprobs", "start"}
)


@dataclass(frozen=True)
class BackendSpec:
    """Which backend, and its per-backend options."""

    kind: str = "transformers"
    model: str | None = None
    device: str | None = None
    dtype: str | None = None
    quantization: str | None = None
    prefix_reuse: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)


def backend_kinds() -> tuple[str, ...]:
    """The built-in kinds and every installed plug-in's."""
    return (*BUILT_IN, *sorted(e.name for e in entry_points(group=ENTRY_POINT_GROUP) if e.name not in BUILT_IN))


def make_backend(
    spec: BackendSpec, config: DebateConfig | None = None, *, responder: Responder | None = None
) -> Backend:
    """The backend ``spec`` names (see the module docstring); raises ``ConfigError``."""
    if spec.kind == "scripted":
        if spec.model or spec.device or spec.dtype or spec.quantization:
            raise ConfigError("a model, device, dtype or quantization needs a model backend, not the scripted one")
        if responder is None:
            if config is None:
                raise ConfigError("the scripted backend needs the debate's configuration (or a responder)")
            from debate_core.protocols.registry import protocol_class

            responder = protocol_class(config.protocol).demo_responder(config)
            if responder is None:
                raise ConfigError(f"protocol {config.protocol} has no scripted demo; choose a model backend")
            return ScriptedBackend(responder, model_id="scripted-demo")
        return ScriptedBackend(responder, model_id="scripted")
    if spec.kind == "transformers":
        from debate_core.backends.hf import TransformersBackend

        return TransformersBackend(
            spec.model,
            device=spec.device,
            dtype=spec.dtype,
            quantization=spec.quantization,
            prefix_reuse=spec.prefix_reuse,
            **dict(spec.options),
        )
    if spec.kind in ("openai", "llamacpp"):
        return _server_backend(spec)
    found = [e for e in entry_points(group=ENTRY_POINT_GROUP) if e.name == spec.kind]
    if not found:
        raise ConfigError(f"unknown backend {spec.kind!r} (available: {', '.join(backend_kinds())})")
    backend = found[0].load()(spec, config)
    if not isinstance(backend, Backend):
        raise ConfigError(f"backend plug-in {spec.kind} returned a {type(backend).__name__}, not a Backend")
    return backend


def server_options(kind: str, base_url: str | None, pairs: Sequence[str]) -> dict[str, Any]:
    """``KEY=VALUE`` options of a server backend (numbers as numbers) plus ``base_url``; ConfigError if misplaced."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"a backend option is KEY=VALUE, not {pair!r}")
        text = value.strip()
        try:
            options[key.strip()] = int(text)
        except ValueError:
            try:
                options[key.strip()] = float(text)
            except ValueError:
                options[key.strip()] = text
    if base_url:
        if kind != "openai":
            raise ConfigError("--base-url is for --backend openai")
        options["base_url"] = base_url
    if options and kind not in ("openai", "llamacpp"):
        raise ConfigError(f"backend options are for --backend openai or llamacpp, not {kind}")
    return options


def _server_backend(spec: BackendSpec) -> Backend:
    if spec.device or spec.dtype or spec.quantization:
        raise ConfigError(f"--backend {spec.kind}: device, dtype and quantization are the server's to choose")
    options = dict(spec.options)
    allowed = SERVER_OPTIONS | {"base_url"} if spec.kind == "openai" else LLAMACPP_OPTIONS
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise ConfigError(
            f"--backend {spec.kind} has no option {', '.join(unknown)} (its options: {', '.join(sorted(allowed))})"
        )
    if spec.kind == "llamacpp":
        from debate_core.backends.openai import LlamaCppBackend

        return LlamaCppBackend(spec.model, **options)
    from debate_core.backends.openai import OpenAIBackend

    base_url = options.pop("base_url", None)
    if not base_url:
        raise ConfigError("--backend openai needs the server's address (--base-url http://HOST:PORT/v1)")
    return OpenAIBackend(str(base_url), spec.model, **options)


def seated(default: Backend, spec: BackendSpec, config: DebateConfig) -> Backend | BackendRouter:
    """``default``, with its own backend for each model the configured variant seats in a role."""
    from debate_core.backends.model_for import SeatBackends  # it builds on this module

    return SeatBackends(spec, default=default).route(default, config)
