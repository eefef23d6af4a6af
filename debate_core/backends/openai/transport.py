"""HTTP to an OpenAI-compatible server: JSON calls and streamed completions, with retries.

What it does: ``Transport`` wraps one ``httpx.Client`` (thread-safe, a
connection pool shared by the concurrent requests of a batch) for a base URL.
``get`` / ``post`` return the decoded JSON body; ``stream`` yields the decoded
``data:`` objects of a server-sent-event response and closes the connection
when the caller stops reading (that is how a generation is cancelled: the
server aborts a request whose connection is gone). Failures that are worth
another try (HTTP 408, 409, 425, 429 and 5xx, timeouts, refused or dropped
connections) are retried with exponential backoff (``RetryPolicy``; a
``Retry-After`` header is honoured up to the policy's cap) as long as nothing
of the response was read yet; each retry is reported to ``on_retry`` as a
sentence, so the caller can record it. What is left after the last try, and
any other HTTP error, raises ``BackendError`` (``BackendUnavailable`` when the
server cannot be reached at all) with the server's own message.

The API key is sent as a bearer token and never appears in an error message,
a log line or a repr.

What it does not do: know the OpenAI request schema (``backend``) or any
server's dialect (``dialects``). A test passes ``httpx.MockTransport(handler)``
as ``transport`` to fake a server with a function.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from debate_core.errors import BackendError, BackendUnavailable

RETRYABLE_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_ERROR_TEXT = 500


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


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _server_message(response: httpx.Response) -> str:
    try:
        body = response.read().decode("utf-8", "replace")
    except httpx.HTTPError:
        return ""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:MAX_ERROR_TEXT]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        error = error.get("message") or error.get("detail") or error
    return str(error)[:MAX_ERROR_TEXT]


class Transport:
    """JSON and streamed calls to ``base_url`` with retries (see the module docstring)."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout_s: float = 300.0,
        connect_timeout_s: float = 10.0,
        retry: RetryPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        pool: int = 16,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise BackendUnavailable(f"the server's address must start with http:// or https://, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.retry = retry or RetryPolicy()
        self._sleep = sleep
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s),
            limits=httpx.Limits(max_connections=pool, max_keepalive_connections=pool),
            transport=transport,
        )

    def __repr__(self) -> str:  # never shows the key
        return f"Transport({self.base_url!r})"

    def close(self) -> None:
        self._client.close()

    # -- calls ---------------------------------------------------------------------------------

    def get(self, path: str, *, on_retry: Callable[[str], None] | None = None) -> Any:
        return self._with_retries(lambda: self._json(self._client.build_request("GET", path)), path, on_retry)

    def post(self, path: str, body: Mapping[str, Any], *, on_retry: Callable[[str], None] | None = None) -> Any:
        return self._with_retries(
            lambda: self._json(self._client.build_request("POST", path, json=body)), path, on_retry
        )

    def stream(
        self, path: str, body: Mapping[str, Any], *, on_retry: Callable[[str], None] | None = None
    ) -> Generator[dict[str, Any], None, None]:
        """The ``data:`` objects of a streamed response; stop iterating (or close) to drop the connection."""
        response = self._with_retries(
            lambda: self._open(self._client.build_request("POST", path, json=body)), path, on_retry
        )
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                try:
                    chunk = json.loads(data)
                except ValueError as error:
                    raise BackendError(f"the server sent a line that is not JSON: {data[:200]!r}") from error
                if isinstance(chunk, dict) and "error" in chunk:
                    raise BackendError(f"the server failed mid-answer: {str(chunk['error'])[:MAX_ERROR_TEXT]}")
                yield chunk
        except httpx.HTTPError as error:
            raise BackendError(f"the connection to {self.base_url} broke mid-answer: {error}") from error
        finally:
            response.close()

    # -- internals -----------------------------------------------------------------------------

    def _check(self, response: httpx.Response) -> None:
        if response.status_code < 400:
            return
        message = _server_message(response)
        response.close()
        where = f"{response.request.method} {response.request.url.path}"
        if response.status_code in RETRYABLE_STATUS:
            raise RetryableError(f"HTTP {response.status_code} from {where}: {message}", _retry_after(response))
        if response.status_code in (401, 403):
            raise BackendUnavailable(
                f"the server at {self.base_url} refused the API key (HTTP {response.status_code}): {message}"
            )
        raise BackendError(f"HTTP {response.status_code} from {where} at {self.base_url}: {message}")

    def _json(self, request: httpx.Request) -> Any:
        response = self._send(request, stream=False)
        self._check(response)
        try:
            return response.json()
        except ValueError as error:
            raise BackendError(f"{request.url.path} at {self.base_url} answered with something not JSON") from error

    def _open(self, request: httpx.Request) -> httpx.Response:
        response = self._send(request, stream=True)
        self._check(response)
        return response

    def _send(self, request: httpx.Request, *, stream: bool) -> httpx.Response:
        try:
            return self._client.send(request, stream=stream)
        except httpx.TimeoutException as error:
            raise RetryableError(f"no answer from {self.base_url} in time ({type(error).__name__})") from error
        except httpx.TransportError as error:
            raise RetryableError(f"cannot reach {self.base_url}: {error}") from error

    def _with_retries(self, call: Callable[[], Any], path: str, on_retry: Callable[[str], None] | None) -> Any:
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
                self._sleep(wait)
                attempt += 1
