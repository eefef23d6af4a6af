"""``--backend llamacpp``: a local GGUF model served by llama.cpp on loopback, driven as an OpenAI-compatible server.

What it does: ``LlamaCppServer(gguf)`` starts ``llamacpp_main`` (xllamacpp's
llama.cpp server) in a child process on a free port of 127.0.0.1, waits until
``GET /v1/models`` answers (a crash or a bound exceeded is a
``BackendUnavailable`` with the end of the server's log), and stops it with
``stop()`` (SIGTERM, then SIGKILL). The child watches its parent and exits if
the parent dies, so a killed app leaves no server behind. ``LlamaCppBackend``
is an ``OpenAIBackend`` that owns such a server and stops it in ``close()``;
it starts the server at construction, or, with ``start="later"``, at its
``loaded`` (the first thing that needs the server), so a front end can show
``loading_words`` ("starting llama.cpp's server ...") while it starts.
Without a model path it serves the embedded SmolLM2-135M GGUF. The default
is one thread with ``OMP_WAIT_POLICY=PASSIVE``: on a small machine shared
with other work, more threads spin and decoding drops from ~20 to ~1.5 tokens
per second (measured on two cores).

What it does not do: install xllamacpp (``pip install xllamacpp``; the
project's ``llamacpp`` extra) or download models (give a GGUF file path).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from debate_core.backends.base import Completion, GenerationRequest, TokenSpan
from debate_core.backends.openai.backend import OpenAIBackend, served_capabilities
from debate_core.backends.openai.dialects import DIALECTS
from debate_core.errors import BackendUnavailable, ConfigError

START_BOUND_S = 120.0
STARTS = ("now", "later")  # when LlamaCppBackend starts its server: at construction, or at ``loaded``


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _gguf(model: str | None) -> Path:
    if model is None:
        from debate_core.backends.hf.embedded import embedded_gguf_path

        return embedded_gguf_path()
    path = Path(model).expanduser()
    if not path.is_file() or path.suffix.lower() != ".gguf":
        raise ConfigError(f"--backend llamacpp serves a local .gguf file; {model!r} is not one")
    return path


def _require_xllamacpp() -> None:
    """``ConfigError`` when the xllamacpp wheel is missing (looked up, not imported: the server's process does)."""
    if importlib.util.find_spec("xllamacpp") is None:
        raise ConfigError("--backend llamacpp needs the xllamacpp wheel: pip install xllamacpp")


class LlamaCppServer:
    """A llama.cpp server process for one GGUF file (see the module docstring)."""

    def __init__(
        self,
        model: str | None = None,
        *,
        threads: int = 1,
        parallel: int = 4,
        ctx: int = 8192,
        alias: str = "local",
        start_bound_s: float = START_BOUND_S,
    ) -> None:
        _require_xllamacpp()
        self.gguf = _gguf(model)
        self.alias = alias
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._log = tempfile.NamedTemporaryFile(prefix="llamacpp-", suffix=".log", delete=False)  # noqa: SIM115
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        command = [
            sys.executable,
            "-m",
            "debate_core.backends.openai.llamacpp_main",
            "--model",
            str(self.gguf),
            "--port",
            str(self.port),
            "--alias",
            alias,
            "--threads",
            str(threads),
            "--parallel",
            str(parallel),
            "--ctx",
            str(ctx),
            "--parent",
            str(os.getpid()),
        ]
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        self._wait(start_bound_s)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(Path(self._log.name).read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def _wait(self, bound_s: float) -> None:
        deadline = time.monotonic() + bound_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise BackendUnavailable(f"llama.cpp's server for {self.gguf.name} exited at start:\n{tail}")
            try:
                if httpx.get(self.url + "/models", timeout=2.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        tail = self.log_tail()
        self.stop()
        raise BackendUnavailable(f"llama.cpp's server for {self.gguf.name} did not answer in {bound_s:.0f} s:\n{tail}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)


class LlamaCppBackend(OpenAIBackend):
    """An ``OpenAIBackend`` on a llama.cpp server it starts for a local GGUF and stops in ``close``.

    ``start="now"`` (the default) starts the server at construction; ``start="later"`` only checks the GGUF
    and starts it on the first touch of ``loaded`` (or of anything that needs the server), so whoever runs the
    debate can say "starting llama.cpp's server" (``loading_words``) while it starts. Until then the backend
    declares what a llama.cpp server provides (``served_capabilities``).
    """

    owns_server = True  # whoever ends its use must close it (the web app does, per debate)

    def __init__(
        self,
        model: str | None = None,
        *,
        threads: int = 1,
        parallel: int = 4,
        ctx: int = 8192,
        concurrency: int | None = None,
        start: str = "now",
        **options: Any,
    ) -> None:
        if start not in STARTS:
            raise ConfigError(f"--backend llamacpp: start is one of {', '.join(STARTS)}, not {start!r}")
        _require_xllamacpp()
        self.gguf = _gguf(model)
        self.is_embedded = model is None
        self._model = model
        self._threads, self._parallel, self._ctx = threads, parallel, ctx
        self._client_options = {"concurrency": concurrency or parallel, **options}
        self._start_lock = threading.Lock()
        self._closed = False
        self.server: LlamaCppServer | None = None
        self.capabilities = served_capabilities(DIALECTS["llamacpp"])
        if start == "now":
            self._start()

    def _start(self) -> None:
        """Start the server and connect to it, once (thread-safe); ``BackendUnavailable`` if it does not answer."""
        with self._start_lock:
            if self.server is not None:
                return
            if self._closed:
                raise BackendUnavailable(f"llama.cpp's server for {self.gguf.name} was closed before it started")
            server = LlamaCppServer(self._model, threads=self._threads, parallel=self._parallel, ctx=self._ctx)
            try:
                super().__init__(server.url, server.alias, api_key_env="", dialect="llamacpp", **self._client_options)
            except BaseException:
                server.stop()
                raise
            self.server = server

    @property
    def started(self) -> bool:
        """Whether the server runs (a ``start="later"`` backend's starts at ``loaded``)."""
        return self.server is not None

    @property
    def loaded(self) -> LlamaCppBackend:
        """The backend with its server started (starts it now if it has not been)."""
        self._start()
        return self

    @property
    def loading_words(self) -> str:
        """What ``loaded`` does, for a status line."""
        return f"starting llama.cpp's server and loading {self._name} into it"

    @property
    def _name(self) -> str:
        return "SmolLM2-135M-Instruct (embedded GGUF)" if self.is_embedded else self.gguf.name

    @property
    def model_id(self) -> str:
        return f"{self._name} on llama.cpp"

    @property
    def vocab_size(self) -> int | None:
        return self.loaded._vocab

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        self._start()
        return super().generate(requests)

    def count_tokens(self, text: str) -> int:
        self._start()
        return super().count_tokens(text)

    def tokenize(self, text: str) -> list[TokenSpan]:
        self._start()
        return super().tokenize(text)

    def detokenize(self, ids: Sequence[int]) -> str:
        self._start()
        return super().detokenize(ids)

    def close(self) -> None:
        with self._start_lock:
            self._closed = True
            server = self.server
        if server is None:
            return  # never started: nothing to stop
        try:
            super().close()
        finally:
            server.stop()
