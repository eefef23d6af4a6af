"""One HTTP exchange's blocking I/O on a thread of its own, so that its caller can walk away from it at any moment.

What it does: ``Exchange(client, request, ...)`` sends the request on a
daemon thread and reports what arrives on a queue (``items``): the status and
headers, then the body (bounded) or each server-sent-event ``data:`` line,
then how it ended. It stops reading past its deadline or its byte bound, and
``abandon()`` shuts the connection (a server aborts a generation whose
connection is gone) and lets the thread end. Reading a stream splits lines
once per chunk, so a long line costs linear time.

What it does not do: decide what an answer means, wait on the queue with
deadlines and a cancel token, or retry (``transport.Transport`` does), or know
the OpenAI schema (``backend``).
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Generator
from contextlib import suppress
from typing import Any

import httpx

MAX_ERROR_BYTES = 64 * 1024  # what is read of an error answer's body


class Exchange:
    """One request's blocking I/O on its own thread, reported on ``items``; the caller may abandon it.

    Items: ``("timeout", name)`` or ``("unreachable", reason)`` (no response), ``("crash", error)`` (a
    programming error, re-raised by the caller), ``("head", response)`` (status and headers only),
    then ``("body", bytes)`` or ``("data", payload)`` per SSE data line, and finally one of
    ``("end", None)``, ``("broken", error)`` or ``("too_big", None)``.
    """

    def __init__(
        self, client: httpx.Client, request: httpx.Request, *, streamed: bool, max_bytes: int, deadline: float
    ) -> None:
        self.items: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._client = client
        self._request = request
        self._streamed = streamed
        self._max_bytes = max_bytes
        self._deadline = deadline
        self._abandoned = threading.Event()
        self._sock: socket.socket | None = None
        self._thread = threading.Thread(target=self._run, name="openai-http", daemon=True)
        self._thread.start()

    def abandon(self, wait_s: float = 0.0) -> None:
        """Stop reading: shut the connection (if it is open) and let the thread end; wait up to ``wait_s`` for it."""
        self._abandoned.set()
        sock = self._sock
        if sock is not None:
            with suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # wakes a blocked read; the server sees a drop
        if wait_s > 0:
            self._thread.join(wait_s)

    def _put(self, kind: str, value: Any = None) -> None:
        if not self._abandoned.is_set():
            self.items.put((kind, value))

    def _run(self) -> None:
        try:
            response = self._client.send(self._request, stream=True)
        except httpx.TimeoutException as error:
            self._put("timeout", type(error).__name__)
            return
        except httpx.TransportError as error:
            self._put("unreachable", str(error))
            return
        except BaseException as error:  # a programming error: the caller re-raises it
            self._put("crash", error)
            return
        try:
            network = response.extensions.get("network_stream")
            sock = network.get_extra_info("socket") if network is not None else None
            self._sock = sock if isinstance(sock, socket.socket) else None
            if self._abandoned.is_set():
                return
            self._put("head", response)
            if not 200 <= response.status_code < 300:
                self._read_body(response, MAX_ERROR_BYTES, cut=True)
            elif self._streamed:
                self._read_events(response)
            else:
                self._read_body(response, self._max_bytes, cut=False)
        except httpx.HTTPError as error:
            self._put("broken", error)
        except BaseException as error:
            self._put("crash", error)
        finally:
            response.close()

    def _chunks(self, response: httpx.Response) -> Generator[bytes, None, None]:
        for chunk in response.iter_bytes():
            if self._abandoned.is_set() or time.monotonic() > self._deadline:
                return
            yield chunk

    def _read_body(self, response: httpx.Response, limit: int, *, cut: bool) -> None:
        parts: list[bytes] = []
        size = 0
        for chunk in self._chunks(response):
            size += len(chunk)
            if size > limit:
                if not cut:
                    self._put("too_big")
                    return
                parts.append(chunk[: limit - size + len(chunk)])
                break
            parts.append(chunk)
        self._put("body", b"".join(parts))
        self._put("end")

    def _read_events(self, response: httpx.Response) -> None:
        size = 0
        parts: list[bytes] = []  # the line being received, in pieces (no quadratic re-joining of a long line)
        for chunk in self._chunks(response):
            size += len(chunk)
            if size > self._max_bytes:
                self._put("too_big")
                return
            if b"\n" not in chunk:
                parts.append(chunk)
                continue
            *lines, rest = b"".join([*parts, chunk]).split(b"\n")
            parts = [rest]
            for raw in lines:
                line = raw.rstrip(b"\r")
                if not line.startswith(b"data:"):
                    continue  # blank lines, comments (": keep-alive"), event:, id:, retry:
                payload = line[5:].strip().decode("utf-8", "replace")
                self._put("data", payload)
                if payload == "[DONE]":
                    return
        if not self._abandoned.is_set() and time.monotonic() <= self._deadline:
            tail = b"".join(parts).rstrip(b"\r")
            if tail.startswith(b"data:"):
                payload = tail[5:].strip().decode("utf-8", "replace")
                self._put("data", payload)
                if payload == "[DONE]":
                    return
            self._put("end")
