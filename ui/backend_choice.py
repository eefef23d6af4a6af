"""Which backends a page's set-up names: the Model choice, the model box, and the models per role.

What it does: ``backend_for(choice, config, model, models)`` builds the
debate's backend from the set-up's Model choice (``SCRIPTED``,
``EMBEDDED``, ``EMBEDDED_LLAMACPP``, a model id or path, ``SERVER``) and
what is typed in the model box (``server_words``: a server's address, its
model name and only the options in ``PAGE_SERVER_OPTIONS``), with a
backend of its own for each seat ``models`` names and each seat the variant
fills with its own model (``model_for.SeatBackends``: a ``BackendRouter``
when there is any).

``page_models(text, choice, config)`` reads the set-up's "Models per role"
field, one ``WHO=SPEC`` a line, with the terminal's parser
(``model_for.parse_model_for``, so the same syntax and the same one-line
errors), and refuses what a web page may not name: only the kinds in
``PAGE_KINDS`` (no plug-in's); ``transformers`` a Hugging Face hub id
(``org/name``), never a path on the app's disk; ``llamacpp`` only its
embedded model (a ``.gguf`` is a path); ``openai:MODEL`` only on the server
the Model field names (no ``@URL``); ``scripted`` under any short name. A
WHO must name an agent or a role of the debate (``model_for.check_who``).
The app's operator lifts the path and address rule by starting it with
``DEBATE_APP_OPEN_MODELS=1`` in its environment (``open_models``). The
model box itself keeps taking a model id or a local path, as before, of at
most ``MAX_MODEL_CHARS`` characters on one line (``model_box``, checked on
the server).

What it does not do: load any model (backends load lazily), run a debate
(``session``) or lay out the form (``setup_panel``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from debate_core import DebateConfig
from debate_core.backends.base import Backend
from debate_core.backends.factory import BackendSpec, make_backend, server_options
from debate_core.backends.model_for import SeatBackends, SeatModel, check_who, parse_model_for
from debate_core.backends.router import BackendRouter
from debate_core.errors import ConfigError

SCRIPTED = "scripted demo (no model)"
EMBEDDED = "embedded SmolLM2-135M (CPU)"
EMBEDDED_LLAMACPP = "embedded SmolLM2-135M on llama.cpp (CPU)"
SERVER = "an OpenAI-compatible server"
# What a page may set of a server backend (typed after the address): nothing that reads the app's environment.
PAGE_SERVER_OPTIONS = frozenset({"tokenizer", "dialect", "vocab_size", "timeout_s", "headers_timeout_s"})
# What the "Models per role" field may name.
PAGE_KINDS = ("scripted", "transformers", "llamacpp", "openai")
OPEN_MODELS_ENV = "DEBATE_APP_OPEN_MODELS"
MAX_MODEL_CHARS = 300  # the model box: a hub id (at most 193), a path, or a server's address, name and options
MAX_MODEL_LINES = 12
MAX_MODEL_LINE = 300
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$")


def open_models() -> bool:
    """Whether the app was started permitting local paths and server addresses in the models per role."""
    return os.environ.get(OPEN_MODELS_ENV, "").strip().lower() in ("1", "true", "yes")


def spec_for(choice: str, model: str = "") -> BackendSpec:
    """The default backend the Model choice and the model box name; ``ConfigError`` when it cannot be had."""
    if choice == SCRIPTED:
        return BackendSpec("scripted")
    if choice == EMBEDDED_LLAMACPP:
        # its own server, started by the session with the status saying so (``loaded``), stopped with the debate
        return BackendSpec("llamacpp", options={"threads": 1, "start": "later"})
    if choice == SERVER:  # "URL [model name] [KEY=VALUE ...]"; the key, if any, from the app's OPENAI_API_KEY
        url, name, options = server_words(model)
        return BackendSpec("openai", name, options=server_options("openai", url, options))
    return BackendSpec("transformers", model=model.strip() if choice != EMBEDDED and model.strip() else None)


def model_box(typed: str | None) -> str:
    """What the model box holds, checked where it enters the server (the page's own limit is only the page's):
    ``ConfigError`` naming the box for text past ``MAX_MODEL_CHARS`` or with a control character."""
    text = (typed or "").strip()
    if len(text) > MAX_MODEL_CHARS:
        raise ConfigError(
            f"Model id: {len(text):,} characters; the box takes a model id, a local path or a server's "
            f"address and model name of at most {MAX_MODEL_CHARS} characters"
        )
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise ConfigError("Model id: the box takes one line of text (a model id, a path or a server's address)")
    return text


def backend_for(
    choice: str, config: DebateConfig, model: str = "", models: Mapping[str, SeatModel] | None = None
) -> Backend | BackendRouter:
    """The backend a session asked for, with a model of its own for each seat ``models`` names
    (``page_models``) and any model the variant seats in a role (HandRaiser's learned listener)."""
    spec = spec_for(choice, model)
    default = make_backend(spec, config)
    return SeatBackends(spec, models, default=default).route(default, config)


def server_words(typed: str) -> tuple[str, str | None, list[str]]:
    """A server typed in the model box: its address, its model name (if given) and ``KEY=VALUE`` options,
    only those in ``PAGE_SERVER_OPTIONS`` (a page may not, e.g., name the environment variable the key comes
    from); ``ConfigError`` naming any other."""
    url, *words = typed.split() or [""]
    options = [w for w in words if "=" in w]
    names = [w for w in words if "=" not in w]
    refused = sorted({w.partition("=")[0] for w in options} - PAGE_SERVER_OPTIONS)
    if refused:
        raise ConfigError(
            f"the app takes only these server options: {', '.join(sorted(PAGE_SERVER_OPTIONS))} (not {refused[0]})"
        )
    if len(names) > 1:
        raise ConfigError("type the server's address, then one model name, then any KEY=VALUE options")
    return url, (names[0] if names else None), options


def page_models(text: str, choice: str, config: DebateConfig) -> dict[str, SeatModel]:
    """The set-up's models per role (see the module docstring); ``ConfigError`` with a message for the person."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if len(lines) > MAX_MODEL_LINES:
        raise ConfigError(f"models per role: at most {MAX_MODEL_LINES} lines (got {len(lines)})")
    for line in lines:
        if len(line) > MAX_MODEL_LINE:
            raise ConfigError(
                f"models per role: a line is {len(line):,} characters long; the limit is {MAX_MODEL_LINE}"
            )
    models = parse_model_for(lines, PAGE_KINDS)
    check_who(models, config)
    default_kind = spec_for(choice).kind if choice != SERVER else "openai"
    return {who: _allowed(seat.resolved(default_kind), choice) for who, seat in models.items()}


def _allowed(seat: SeatModel, choice: str) -> SeatModel:
    """``seat`` if a web page may name it (see the module docstring), else ``ConfigError`` saying why not."""
    where, model = f"models per role: {seat.who}={seat.text}", seat.model
    opened = open_models()
    if model is not None and not _NAME.match(model) and not opened:
        raise ConfigError(f"{where}: a model name is letters, digits and . _ - : / (up to 128)")
    hub_id = model is not None and _HUB_ID.match(model) and ".." not in model and not Path(model).expanduser().exists()
    if seat.kind == "transformers" and model is not None and not opened and not hub_id:
        raise ConfigError(f"{where}: name a Hugging Face model id such as org/name (not a path on this machine)")
    if seat.kind == "llamacpp" and model is not None and not opened:
        raise ConfigError(f"{where}: llama.cpp runs its embedded model here: write {seat.who}=llamacpp")
    if seat.kind == "openai":
        if seat.base_url and not opened:
            raise ConfigError(f"{where}: a server's address is not taken here; the Model field names the server")
        if choice != SERVER and not seat.base_url:
            raise ConfigError(f"{where}: openai:MODEL runs on the server the Model field names (choose {SERVER})")
    return seat
