"""``--backend llamacpp``: a local GGUF model served by llama.cpp on loopback, driven as an OpenAI-compatible server.

What it does: ``LlamaCppServer(gguf)`` starts ``llamacpp_main`` (xllamacpp's
llama.cpp server) in a child process on a free port of 127.0.0.1, waits until
``GET /v1/models`` answers (a crash or a bound exceeded is a
``BackendUnavailable`` with the end of the server's log), and stops it with
``stop()`` (SIGTERM, then SIGKILL). The child watches its parent and exits if
the parent dies, so a killed app leaves no server behind. ``LlamaCppBackend``
is an ``OpenAIBackend`` that owns such a server and stops it in ``close()``.
Without a model path it serves the embedded SmolLM2-135M GGUF. The default
is one thread with ``OMP_WAIT_POLICY=PASSIVE``: on a small machine shared
with other work, more threads spin and decoding drops from ~20 to ~1.5 tokens
per second (measured on two cores).

What it does not do: install xllamacpp (``pip install xllamacpp``; the
project's ``llamacpp`` extra) or download models (give a GGUF file path).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from debate_core.backends.openai.backend import OpenAIBackend
from debate_core.errors import BackendUnavailable, ConfigError

START_BOUND_S = 120.0


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
        try:
            import xllamacpp  # noqa: F401 - only to say clearly that it is missing
        except ImportError as error:
            raise ConfigError("--backend llamacpp needs the xllamacpp wheel: pip install xllamacpp") from error
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
    """An ``OpenAIBackend`` on a llama.cpp server it starts for a local GGUF and stops in ``close``."""

    owns_server = True  # whoever ends its use must close it (the web app does, per debate)

    def __init__(
        self,
        model: str | None = None,
        *,
        threads: int = 1,
        parallel: int = 4,
        ctx: int = 8192,
        concurrency: int | None = None,
        **options: Any,
    ) -> None:
        self.server = LlamaCppServer(model, threads=threads, parallel=parallel, ctx=ctx)
        self.is_embedded = model is None
        try:
            super().__init__(
                self.server.url,
                self.server.alias,
                api_key_env="",
                concurrency=concurrency or parallel,
                dialect="llamacpp",
                **options,
            )
        except BaseException:
            self.server.stop()
            raise

    @property
    def model_id(self) -> str:
        name = "SmolLM2-135M-Instruct (embedded GGUF)" if self.is_embedded else self.server.gguf.name
        return f"{name} on llama.cpp"

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.server.stop()
