"""HTTP to an OpenAI-compatible server, which is untrusted input: JSON calls and streamed answers, with retries.

What it does: ``Transport`` wraps one ``httpx.Client`` for a base URL.
``get`` / ``post`` return the decoded JSON body; ``stream`` yields the decoded
``data:`` objects of a server-sent-event response. Every exchange runs its
blocking I/O on a thread of its own (``exchange.Exchange``) while the caller
waits on a queue, so the caller can walk away from it at any moment:

* **deadlines**: the response headers must arrive within ``headers_timeout_s``
  and the whole answer within ``timeout_s`` of sending (a server that stalls
  before or after its headers, or trickles keep-alive comments forever, ends
  with a clear error, not a hang);
* **cancellation**: a set ``cancel`` token ends the wait within about 0.1 s,
  headers included (``RequestCancelled``); the connection is shut (the server
  aborts a generation whose connection is gone) and the I/O thread ends by
  itself at the latest when its read times out;
* **bounds**: an answer larger than ``max_bytes`` (a server that ignores
  ``max_tokens``) is dropped with an error; nothing is kept whole before that;
* **what counts as an answer**: only a 2xx; a redirect, an HTML page, a single
  JSON document in answer to a streamed request, a stream cut before its
  ``data: [DONE]``, a line that is not JSON or not an object, are each a
  ``BackendError`` naming the server, never an empty reply.

Failures worth another try (HTTP 408, 409, 425, 429 and 5xx, timeouts before
the headers, refused or dropped connections) are retried with exponential
backoff (``RetryPolicy``; ``Retry-After`` honoured up to the policy's cap) as
long as nothing of the response was read; each retry is reported to
``on_retry`` as a sentence. What is left after the last try, and any other
failure, raises ``BackendError`` (``BackendUnavailable`` when the server
cannot be reached at all) with the server's own message.

The API key is sent as a bearer token and never appears in an error message,
a log line or a repr.

What it does not do: know the OpenAI request schema or validate the fields of
an answer (``backend``, ``dialects``). A test passes
``httpx.MockTransport(handler)`` as ``transport`` to fake a server with a
function; since the handler runs on the exchange's thread, it may stall.
"""

from __future__ import annotations

import json
import queue
import random
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from debate_core.backends.base import CancelToken
from debate_core.backends.openai.exchange import Exchange
from debate_core.errors import BackendError, BackendUnavailable
from debate_core.text import clean

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_ERROR_TEXT = 500
MAX_JSON_BYTES = 16 * 1024 * 1024
POLL_S = 0.05
#: how long a caller that walked away waits for the exchange's thread to close the stream
ABANDON_WAIT_S = 0.2


class RequestCancelled(Exception):
    """The caller's cancel token was set while the request was in flight; nothing more will come."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to try again: ``attempts`` in all, waits ``base_s`` x 2^k (jittered), capped."""

    attempts: int = 5
    base_s: float = 0.5
    cap_s: float = 30.0

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before try ``attempt + 1`` (``attempt`` counts from 1)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.cap_s)
        return min(self.base_s * 2 ** (attempt - 1) * (0.5 + random.random() / 2), self.cap_s)


class RetryableError(Exception):
    """A failure another try may cure (internal to this module)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


class _Late(Exception):
    """A deadline passed while waiting (internal)."""


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds == seconds else None  # NaN is no number of seconds


def _said(words: Any) -> str:
    """What a server said, fit for a message that is recorded: clean text (no lone surrogates, no NUL), bounded."""
    return clean(str(words))[:MAX_ERROR_TEXT]


def _server_message(body: bytes) -> str:
    text = body.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return _said(text.strip())
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail") or error
    return _said(error)


def _loads(raw: str | bytes) -> Any:
    """JSON, or ValueError (deep nesting and giant integers included)."""
    try:
        return json.loads(raw)
    except RecursionError as error:
        raise ValueError("nested too deeply") from error


class Transport:
    """JSON and streamed calls to ``base_url`` with deadlines, cancellation, bounds and retries (see above)."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 300.0,
        headers_timeout_s: float = 60.0,
        connect_timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        pool: int = 16,
        sleep: Callable[[float], None] = time.sleep,
        max_json_bytes: int = MAX_JSON_BYTES,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise BackendUnavailable(f"the server's address must start with http:// or https://, not {base_url!r}")
        if not (timeout_s > 0 and headers_timeout_s > 0 and connect_timeout_s > 0):
            raise BackendUnavailable("the server's time-outs must be positive numbers of seconds")
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self.timeout_s = float(timeout_s)
        self.headers_timeout_s = min(float(headers_timeout_s), self.timeout_s)
        self.max_json_bytes = max_json_bytes
        self._sleep = sleep
        headers = {"Accept-Encoding": "identity"}  # no compressed bombs: what is counted is what is kept
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(self.timeout_s, connect=min(connect_timeout_s, self.timeout_s)),
            # requests a caller walked away from may hold a connection until their read times out:
            # they must not keep new requests waiting (the backend bounds the live ones itself)
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=pool),
            transport=transport,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"Transport({self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    # -- calls ---------------------------------------------------------------------------------

    def get(
        self, path: str, *, on_retry: Callable[[str], None] | None = None, cancel: CancelToken | None = None
    ) -> Any:
        return self._json(lambda: self._client.build_request("GET", path), path, on_retry, cancel)

    def post(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        on_retry: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
    ) -> Any:
        return self._json(lambda: self._client.build_request("POST", path, json=body), path, on_retry, cancel)

    def stream(
        self,
        path: str,
        body: Mapping[str, Any],
        *,
        on_retry: Callable[[str], None] | None = None,
        cancel: CancelToken | None = None,
        max_bytes: int = MAX_JSON_BYTES,
    ) -> Generator[dict[str, Any], None, None]:
        """The ``data:`` objects of a streamed answer up to ``data: [DONE]``; stop iterating to drop the request.

        Raises ``RequestCancelled`` when ``cancel`` is set while waiting, and ``BackendError`` for
        anything that is not a whole event stream (see the module docstring).
        """
        exchange, response, deadline = self._with_retries(
            lambda: self._start(self._client.build_request("POST", path, json=body), cancel, True, max_bytes),
            path,
            on_retry,
            cancel,
        )
        where = f"POST {response.request.url.path} at {self.base_url}"
        finished = False
        try:
            while True:
                kind, value = self._next(exchange, cancel, deadline)
                if kind == "data":
                    if value == "[DONE]":
                        finished = True
                        return
                    yield self._event(value, where)
                elif kind == "end":
                    raise BackendError(f"the answer to {where} was cut before its end (no 'data: [DONE]')")
                elif kind == "too_big":
                    raise BackendError(
                        f"the answer to {where} passed {max_bytes:,} bytes and was dropped "
                        "(does the server ignore max_tokens?)"
                    )
                elif kind == "broken":
                    raise BackendError(f"the connection to {self.base_url} broke mid-answer: {value}")
                else:
                    raise self._unexpected(kind, value)
        except _Late:
            raise BackendError(f"{where} did not finish its answer within {self.timeout_s:g} s (timeout_s)") from None
        finally:
            if not finished:
                exchange.abandon(ABANDON_WAIT_S)

    # -- internals -----------------------------------------------------------------------------

    def _event(self, data: str, where: str) -> dict[str, Any]:
        try:
            chunk = _loads(data)
        except ValueError as error:
            raise BackendError(f"{where} sent a line that is not JSON: {data[:200]!r}") from error
        if not isinstance(chunk, dict):
            raise BackendError(f"{where} sent a {type(chunk).__name__} where an event object belongs: {data[:200]!r}")
        if "error" in chunk:
            raise BackendError(f"the server at {self.base_url} failed mid-answer: {_said(chunk['error'])}")
        return chunk

    def _unexpected(self, kind: str, value: Any) -> BaseException:
        if kind == "crash" and isinstance(value, BaseException):
            return value
        return RuntimeError(f"unexpected exchange item {kind!r}")

    def _next(self, exchange: Exchange, cancel: CancelToken | None, deadline: float) -> tuple[str, Any]:
        """The exchange's next item; ``_Late`` past ``deadline``, ``RequestCancelled`` once ``cancel`` is set."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                exchange.abandon()
                raise _Late
            try:
                return exchange.items.get(timeout=min(POLL_S, left))
            except queue.Empty:
                pass
            if cancel is not None and cancel.cancelled:
                exchange.abandon()
                raise RequestCancelled

    def _start(
        self, request: httpx.Request, cancel: CancelToken | None, streamed: bool, max_bytes: int
    ) -> tuple[Exchange, httpx.Response, float]:
        """Send ``request`` and wait for a 2xx's headers; everything else raises (see ``_with_retries``)."""
        started = time.monotonic()
        deadline = started + self.timeout_s
        exchange = Exchange(self._client, request, streamed=streamed, max_bytes=max_bytes, deadline=deadline)
        where = f"{request.method} {request.url.path} at {self.base_url}"
        try:
            kind, value = self._next(exchange, cancel, started + self.headers_timeout_s)
        except _Late:
            raise RetryableError(
                f"no response headers from {where} within {self.headers_timeout_s:g} s (headers_timeout_s)"
            ) from None
        if kind == "timeout":
            raise RetryableError(f"no answer from {self.base_url} in time ({value})")
        if kind == "unreachable":
            raise RetryableError(f"cannot reach {self.base_url}: {value}")
        if kind != "head" or not isinstance(value, httpx.Response):
            raise self._unexpected(kind, value)
        response = value
        status = response.status_code
        try:
            if 200 <= status < 300:
                kind_of = response.headers.get("content-type", "").lower()
                wanted = "an event stream" if streamed else "JSON"
                if "html" in kind_of:
                    raise BackendError(
                        f"{where} answered with an HTML page (HTTP {status}), not {wanted}: "
                        "is this the address of the server's OpenAI-compatible API (e.g. http://HOST:8000/v1)?"
                    )
                if streamed and "json" in kind_of:
                    raise BackendError(
                        f"{where} answered a streamed request with a single JSON document: it does not stream"
                    )
                return exchange, response, deadline
            message = self._error_text(exchange, cancel, min(deadline, time.monotonic() + self.headers_timeout_s))
            if 300 <= status < 400:
                target = _said(response.headers.get("location", ""))[:200] or "nowhere"
                raise BackendError(
                    f"{where} redirected (HTTP {status}) to {target}: give the server's final address as the base URL"
                )
            if status in RETRYABLE_STATUS:
                raise RetryableError(f"HTTP {status} from {where}: {message}", _retry_after(response))
            if status in (401, 403):
                raise BackendUnavailable(
                    f"the server at {self.base_url} refused the API key (HTTP {status}): {message}"
                )
            raise BackendError(f"HTTP {status} from {where}: {message}")
        except BaseException:
            exchange.abandon()
            raise

    def _error_text(self, exchange: Exchange, cancel: CancelToken | None, deadline: float) -> str:
        try:
            kind, value = self._next(exchange, cancel, deadline)
        except _Late:
            return "(no message in time)"
        return _server_message(value) if kind == "body" and isinstance(value, bytes) else ""

    def _json(
        self,
        build: Callable[[], httpx.Request],
        path: str,
        on_retry: Callable[[str], None] | None,
        cancel: CancelToken | None,
    ) -> Any:
        def call() -> Any:
            exchange, response, deadline = self._start(build(), cancel, False, self.max_json_bytes)
            where = f"{response.request.method} {response.request.url.path} at {self.base_url}"
            try:
                kind, value = self._next(exchange, cancel, deadline)
            except _Late:
                raise BackendError(f"{where} did not finish its answer within {self.timeout_s:g} s") from None
            if kind == "too_big":
                raise BackendError(f"{where} answered with more than {self.max_json_bytes:,} bytes")
            if kind == "broken":
                raise BackendError(f"the connection to {self.base_url} broke mid-answer: {value}")
            if kind != "body":
                raise self._unexpected(kind, value)
            try:
                return _loads(value)
            except ValueError as error:
                raise BackendError(f"{where} answered with something not JSON: {value[:120]!r}") from error

        return self._with_retries(call, path, on_retry, cancel)

    def _pause(self, seconds: float, cancel: CancelToken | None) -> None:
        if cancel is not None and self._sleep is time.sleep:
            if cancel.wait(seconds):
                raise RequestCancelled
        else:
            self._sleep(seconds)

    def _with_retries(
        self,
        call: Callable[[], Any],
        path: str,
        on_retry: Callable[[str], None] | None,
        cancel: CancelToken | None,
    ) -> Any:
        attempt = 1
        while True:
            try:
                return call()
            except RetryableError as error:
                if attempt >= self.retry.attempts:
                    kind = BackendUnavailable if error.reason.startswith("cannot reach") else BackendError
                    raise kind(f"{error.reason} (gave up after {attempt} tries)") from error
                wait = self.retry.wait(attempt, error.retry_after)
                if on_retry is not None:
                    on_retry(f"try {attempt} of {path} failed ({error.reason}); retried after {wait:.1f} s")
                self._pause(wait, cancel)
                attempt += 1
