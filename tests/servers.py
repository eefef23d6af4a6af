"""Real OpenAI-compatible servers (vLLM, llama.cpp's llama-server) as subprocesses on loopback, for tests.

``serve`` starts a command on a free port of 127.0.0.1, waits until ``GET /v1/models`` answers
200, yields a ``RunningServer`` and stops the whole process group at the end. When the server
exits early or does not answer within ``start_timeout_s``, the test fails with the command and
the last lines of the server's log, not a bare time-out. Test modules that use a server fixture
can add the log's tail to a failed test's report with ``log_sections`` (tests/vllm/conftest.py
does). Nothing here knows a particular server: the caller gives the command as a function of
the port.

Every server listens on 127.0.0.1 only, and every request a test makes goes there.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

LOOPBACK = "127.0.0.1"
READY_PATH = "/v1/models"
LOG_TAIL_LINES = 60


def free_port(host: str = LOOPBACK) -> int:
    """A port nothing listens on now (the OS picks it; another process could still take it first)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    """The last ``lines`` lines of a log file (undecodable bytes replaced), or a note that it is empty."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return f"(no log: {error})"
    tail = text.splitlines()[-lines:]
    return "\n".join(tail) if tail else "(the log is empty)"


@dataclass(frozen=True)
class RunningServer:
    name: str
    host: str
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path
    argv: tuple[str, ...]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: the root, where vLLM has /tokenize, /health and /metrics."""
        return f"http://{self.host}:{self.port}"

    @property
    def v1_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``: what an OpenAI client takes as its base URL."""
        return f"{self.base_url}/v1"

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        return log_tail(self.log_path, lines)

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def describe(self, lines: int = LOG_TAIL_LINES) -> str:
        """The command and the log's tail, for a failure message."""
        return (
            f"command: {' '.join(self.argv)}\n"
            f"log: {self.log_path}\n"
            f"--- last {lines} lines of the {self.name} log ---\n{self.log_tail(lines)}"
        )


def _wait_until_ready(server: RunningServer, ready_path: str, start_timeout_s: float, poll_s: float) -> None:
    url = server.base_url + ready_path
    started = time.monotonic()
    last = "no answer yet"
    with httpx.Client(timeout=5.0) as client:
        while True:
            code = server.process.poll()
            if code is not None:
                pytest.fail(
                    f"{server.name} exited with code {code} before answering GET {url}\n{server.describe()}",
                    pytrace=False,
                )
            try:
                response = client.get(url)
            except httpx.HTTPError as error:
                last = f"{type(error).__name__}: {error}"
            else:
                if response.status_code == 200:
                    return
                last = f"HTTP {response.status_code}: {response.text[:200]}"
            waited = time.monotonic() - started
            if waited > start_timeout_s:
                pytest.fail(
                    f"{server.name} did not answer GET {url} within {start_timeout_s:.0f} s "
                    f"(last: {last})\n{server.describe()}",
                    pytrace=False,
                )
            time.sleep(poll_s)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop(process: subprocess.Popen[bytes], stop_timeout_s: float) -> None:
    """SIGTERM to the server's process group (it was started in a session of its own), SIGKILL after a grace.

    The group holds the server and whatever it started (vLLM's engine and worker processes), so
    none of them outlives the session.
    """
    pgid = process.pid
    with suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + stop_timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None and not _group_alive(pgid):
            return
        time.sleep(0.2)
    with suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=10)


@contextmanager
def serve(
    name: str,
    command: Callable[[int], Sequence[str]],
    *,
    log_path: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    host: str = LOOPBACK,
    ready_path: str = READY_PATH,
    start_timeout_s: float = 300.0,
    stop_timeout_s: float = 30.0,
    poll_s: float = 0.5,
) -> Iterator[RunningServer]:
    """Run ``command(port)`` until the block ends; its stdout and stderr go to ``log_path``.

    ``env`` replaces the environment when given (start from ``os.environ`` to extend it); ``cwd``
    defaults to the log's folder, so a ``python -m`` server never imports this repository's packages.
    """
    port = free_port(host)
    argv = tuple(str(part) for part in command(port))
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=dict(env) if env is not None else None,
            cwd=cwd if cwd is not None else log_path.parent,
            start_new_session=True,
        )
    server = RunningServer(name=name, host=host, port=port, process=process, log_path=log_path, argv=argv)
    try:
        _wait_until_ready(server, ready_path, start_timeout_s, poll_s)
        yield server
        code = process.poll()
        if code is not None:
            # It died while the tests ran: say so where the session's output shows it.
            print(f"\n{name} exited with code {code} during the tests\n{server.describe()}")
    finally:
        _stop(process, stop_timeout_s)


def log_sections(item: pytest.Item, lines: int = LOG_TAIL_LINES) -> list[tuple[str, str]]:
    """Report sections with the log tail of every ``RunningServer`` a test used (for a failed test)."""
    funcargs: dict[str, Any] = getattr(item, "funcargs", {})
    return [
        (f"{value.name} log (last {lines} lines of {value.log_path})", value.log_tail(lines))
        for value in funcargs.values()
        if isinstance(value, RunningServer)
    ]
