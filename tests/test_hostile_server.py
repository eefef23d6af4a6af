"""An inference server is untrusted input: a real socket server on loopback that misbehaves on purpose.

Each misbehaviour a user met (an HTML page with status 200, a single JSON answer to a streamed
request, a redirect, a stream cut before its end, stalls before and after the headers, a
trickle of keep-alive comments, 100 MB for a 16-token request, negative or astronomic token
counts, a token id of 1e400, a model list with a malformed entry, a server with no tokenizer)
ends in a clear error naming the server, or cleanly, within its deadline: the debate yields
``DebateEnded`` and the store holds exactly what was yielded. ``Debate.stop()`` ends a request
stalled at any point (before its headers included) within 2 s. Every wait is bounded: stalls
last until the test releases the server (or 20 s at most).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from debate_core import Debate
from debate_core.backends.openai import OpenAIBackend
from debate_core.errors import BackendError, BackendUnavailable, ConfigError
from debate_core.events import DebateEnded, EndReason
from tests.conftest import HANG_GUARD_S, SentenceSplitter, make_config
from tests.recorded import run_recorded

ROOT = Path(__file__).resolve().parents[1]
STALL_CAP_S = 20.0
STOP_WITHIN_S = 2.0

Behaviour = Callable[["Handler"], None]


class Handler(BaseHTTPRequestHandler):
    """Routes ``/v1/models``, ``/tokenize`` and the chat endpoint to the server's behaviours."""

    protocol_version = "HTTP/1.0"  # bodies end when the connection closes: a cut is a cut
    server: Hostile

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self.route()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.body = json.loads(self.rfile.read(length) or b"{}")
        self.route()

    def route(self) -> None:
        hostile = self.server
        hostile.paths.append(self.path)
        try:
            if self.path == "/v1/models":
                hostile.models(self)
            elif self.path == "/tokenize":
                hostile.tokenize(self)
            elif self.path == "/v1/chat/completions":
                hostile.chat(self)
            else:
                raw(self, 404, "text/plain", b"no such path")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client walked away: what these tests want

    def stall(self) -> None:
        self.server.release.wait(STALL_CAP_S)


class Hostile(ThreadingHTTPServer):
    """A loopback server whose endpoints behave as the test says (see ``Handler``)."""

    daemon_threads = True

    def __init__(self, chat: Behaviour, *, models: Behaviour | None = None, tokenize: Behaviour | None = None) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.chat = chat
        self.models = models or vllm_models
        self.tokenize = tokenize or word_tokens
        self.release = threading.Event()
        self.paths: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def backend(self, **options: Any) -> OpenAIBackend:
        options.setdefault("retries", 1)
        return OpenAIBackend(self.url, "m", api_key_env="", **options)


@pytest.fixture
def hostile() -> Iterator[Callable[..., Hostile]]:
    servers: list[Hostile] = []

    def start(chat: Behaviour, **endpoints: Behaviour) -> Hostile:
        server = Hostile(chat, **endpoints)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.release.set()
        server.shutdown()
        server.server_close()


# -- what a server may send -------------------------------------------------------------------------


def raw(handler: Handler, status: int, content_type: str, body: bytes = b"", *, extra: str = "") -> None:
    head = f"HTTP/1.0 {status} X\r\nContent-Type: {content_type}\r\n{extra}\r\n"
    handler.wfile.write(head.encode() + body)


def vllm_models(handler: Handler) -> None:
    raw(handler, 200, "application/json", json.dumps({"data": [{"id": "m", "owned_by": "vllm"}]}).encode())


def word_tokens(handler: Handler) -> None:
    words = handler.body["prompt"].split(" ")
    strs = [w if i == 0 else "Ġ" + w for i, w in enumerate(words)]
    raw(handler, 200, "application/json", json.dumps({"tokens": list(range(len(strs))), "token_strs": strs}).encode())


def event(data: Any) -> bytes:
    return b"data: " + json.dumps(data).encode() + b"\n\n"


def answer(usage: str = '{"prompt_tokens": 12, "completion_tokens": 3}') -> bytes:
    words = [event({"choices": [{"index": 0, "delta": {"content": w}}]}) for w in ("B", " is", " it.")]
    end = event({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return b"".join(words) + end + b'data: {"choices": [], "usage": ' + usage.encode() + b"}\n\ndata: [DONE]\n\n"


def good(handler: Handler) -> None:
    raw(handler, 200, "text/event-stream", answer())


def html_page(handler: Handler) -> None:
    raw(handler, 200, "text/html; charset=utf-8", b"<!doctype html><html><body>Welcome to nginx!</body></html>")


def not_streamed(handler: Handler) -> None:
    whole = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "B"}, "finish_reason": "stop"}]}
    raw(handler, 200, "application/json", json.dumps(whole).encode())


def redirect(handler: Handler) -> None:
    raw(handler, 302, "text/plain", b"moved", extra="Location: https://login.example/\r\n")


def cut(handler: Handler) -> None:
    raw(handler, 200, "text/event-stream", answer()[:60])


def stall_before_headers(handler: Handler) -> None:
    handler.stall()


def stall_after_headers(handler: Handler) -> None:
    raw(handler, 200, "text/event-stream")
    handler.stall()


def trickle(handler: Handler) -> None:
    raw(handler, 200, "text/event-stream")
    for _ in range(int(STALL_CAP_S / 0.2)):  # a keep-alive comment every 0.2 s, never an answer
        handler.wfile.write(b": keep-alive\n\n")
        if handler.server.release.wait(0.2):
            return


def flood(handler: Handler) -> None:
    raw(handler, 200, "text/event-stream")
    block = event({"choices": [{"index": 0, "delta": {"content": "x" * 8000}}]}) * 8
    for _ in range(100 * 1024 * 1024 // len(block)):  # 100 MB for a request of a few tokens
        handler.wfile.write(block)


def with_usage(usage: str) -> Behaviour:
    return lambda handler: raw(handler, 200, "text/event-stream", answer(usage))


# -- running a debate against it ------------------------------------------------------------------


def debate_on(backend: OpenAIBackend, tmp_path: Path, *, stop_after_s: float | None = None) -> dict[str, Any]:
    """Run and record a short debate; its events, the error it raised, and how long it took."""
    debate = Debate(make_config(token_budget=40, max_turns=3), backend, segmenter=SentenceSplitter())
    run = run_recorded(debate, tmp_path / "debates.sqlite3", backend=backend, stop_after_s=stop_after_s)
    return {"ended": run.ended, "error": run.error, "elapsed": run.elapsed, "after_stop": run.after_stop}


BROKEN = {
    "an HTML page with status 200": (html_page, "HTML page"),
    "one JSON answer to a streamed request": (not_streamed, "does not stream"),
    "a redirect": (redirect, r"redirected \(HTTP 302\) to https://login.example/"),
    "a stream cut before its end": (cut, r"cut before its end"),
    "100 MB for a few tokens": (flood, r"passed [\d,]+ bytes"),
    "negative token counts": (with_usage('{"prompt_tokens": -5, "completion_tokens": 3}'), "prompt_tokens = -5"),
    "a count of 10^30": (
        with_usage('{"prompt_tokens": 1, "completion_tokens": ' + "1" + "0" * 30 + "}"),
        "completion_tokens = 10{30}",
    ),
    "a count of 1e300": (with_usage('{"prompt_tokens": 1e300, "completion_tokens": 3}'), "prompt_tokens = 1e\\+300"),
    "a count that is text": (with_usage('{"prompt_tokens": "12", "completion_tokens": 3}'), "prompt_tokens = '12'"),
    "usage that is a list": (with_usage("[1, 2]"), "usage that is a list"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_answer_ends_the_debate_with_an_error_naming_the_server(case, hostile, tmp_path):
    behaviour, says = BROKEN[case]
    server = hostile(behaviour)
    run = debate_on(server.backend(), tmp_path)
    assert run["ended"].reason is EndReason.ERROR
    assert isinstance(run["error"], BackendError)
    message = run["ended"].error
    assert server.url in message, message
    assert re.search(says, message), message
    assert run["elapsed"] < 30  # generous on a busy machine: each case ends at its first answer


def test_a_good_answer_is_taken_with_its_counts(hostile):
    server = hostile(good)
    backend = server.backend()
    from debate_core.backends.base import GenerationRequest, Message, SamplingParams

    request = GenerationRequest((Message("user", "Which?"),), SamplingParams(0.0, 16), "plan", "Alex", 1)
    completion = backend.generate([request])[0]
    backend.close()
    assert completion.text == "B is it." and completion.prompt_tokens == 12 and completion.completion_tokens == 3


STALLS = {
    "before its headers": (stall_before_headers, {"headers_timeout_s": 0.5}, "no response headers .* within 0.5 s"),
    "after its headers": (stall_after_headers, {"timeout_s": 1.0}, "did not finish its answer within 1 s"),
    "a keep-alive comment every 0.2 s": (trickle, {"timeout_s": 1.0}, "did not finish its answer within 1 s"),
}


@pytest.mark.parametrize("case", sorted(STALLS))
def test_a_stalling_server_ends_the_debate_at_its_deadline(case, hostile, tmp_path):
    behaviour, options, says = STALLS[case]
    server = hostile(behaviour)
    run = debate_on(server.backend(**options), tmp_path)
    assert run["ended"].reason is EndReason.ERROR
    assert re.search(says, run["ended"].error), run["ended"].error
    assert run["elapsed"] < 15  # the deadline is 0.5-1 s; the margin is for a busy machine


@pytest.mark.parametrize("case", sorted(STALLS))
def test_stop_ends_a_stalled_request_within_two_seconds(case, hostile, tmp_path):
    behaviour, _, _ = STALLS[case]
    server = hostile(behaviour)
    run = debate_on(server.backend(), tmp_path, stop_after_s=0.5)  # the default deadlines: 60 s and 300 s
    assert run["ended"].reason is EndReason.STOPPED and run["error"] is None
    assert run["after_stop"] < STOP_WITHIN_S, run["after_stop"]


def test_stop_during_the_backoff_between_tries_is_prompt(hostile, tmp_path):
    def busy(handler: Handler) -> None:
        raw(handler, 503, "application/json", b'{"error": {"message": "busy"}}', extra="Retry-After: 30\r\n")

    server = hostile(busy)
    run = debate_on(server.backend(retries=3), tmp_path, stop_after_s=0.5)
    assert run["ended"].reason is EndReason.STOPPED
    assert run["after_stop"] < STOP_WITHIN_S, run["after_stop"]


# -- the model list and the tokenizer --------------------------------------------------------------------


def test_a_model_list_with_malformed_aliases_is_refused_naming_the_server(hostile):
    def models(handler: Handler) -> None:
        entry = {"id": "m", "owned_by": "vllm", "aliases": "m-alias"}
        raw(handler, 200, "application/json", json.dumps({"data": [entry]}).encode())

    server = hostile(good, models=models)
    with pytest.raises(BackendUnavailable, match=r"/models answered a model list whose entry 0 .*aliases") as caught:
        server.backend()
    assert server.url in str(caught.value)


def test_a_token_id_of_1e400_is_a_clear_error(hostile):
    def tokens(handler: Handler) -> None:
        raw(handler, 200, "application/json", b'{"tokens": [1e400], "token_strs": ["B"]}')

    server = hostile(good, tokenize=tokens)
    backend = server.backend()
    with pytest.raises(BackendError, match=r"tokenize.*token id is not a whole number") as caught:
        backend.count_tokens("B")
    backend.close()
    assert server.url.removesuffix("/v1") in str(caught.value)


def test_a_server_without_a_tokenizer_is_refused_before_the_debate_with_the_options_that_fix_it(hostile):
    def generic(handler: Handler) -> None:
        raw(handler, 200, "application/json", json.dumps({"data": [{"id": "m", "owned_by": "someone"}]}).encode())

    server = hostile(good, models=generic)
    with pytest.raises(ConfigError, match=r"no tokenizer endpoint.*tokenizer=HUB_ID_OR_PATH.*dialect=vllm"):
        server.backend()
    assert server.paths == ["/v1/models"]  # nothing was generated


# -- the command line says what happened, without a traceback --------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "debate_core", "run", "--quiet", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=HANG_GUARD_S,
    )


def test_the_command_line_reports_a_broken_server_and_a_missing_tokenizer_without_a_traceback(hostile):
    server = hostile(html_page)
    result = run_cli("--backend", "openai", "--base-url", server.url, "--model", "m", "--max-turns", "2")
    assert result.returncode == 1, result.stdout + result.stderr
    output = " ".join((result.stdout + result.stderr).split())
    assert "The model backend failed" in output and "HTML page" in output and server.url in output
    assert "Traceback" not in result.stderr

    def generic(handler: Handler) -> None:
        raw(handler, 200, "application/json", json.dumps({"data": [{"id": "m", "owned_by": "someone"}]}).encode())

    server = hostile(good, models=generic)
    result = run_cli("--backend", "openai", "--base-url", server.url, "--model", "m")
    assert result.returncode == 2, result.stdout + result.stderr
    output = " ".join((result.stdout + result.stderr).split())
    assert "Invalid debate set-up" in output and "--backend-option tokenizer=HUB_ID_OR_PATH" in output
    assert "Traceback" not in result.stderr


def test_the_web_apps_server_choice_takes_the_options_a_page_may_set_and_no_other(hostile):
    from ui.session import SERVER, backend_for

    def generic(handler: Handler) -> None:
        raw(handler, 200, "application/json", json.dumps({"data": [{"id": "m", "owned_by": "someone"}]}).encode())

    server = hostile(good, models=generic)
    config = make_config()
    with pytest.raises(ConfigError, match=r"no tokenizer endpoint"):
        backend_for(SERVER, config, f"{server.url} m")
    backend = backend_for(SERVER, config, f"  {server.url}  m  dialect=vllm headers_timeout_s=5 ")
    try:
        assert backend.count_tokens("B is it") == 3  # the server's /tokenize, as vLLM's
        events = Debate(config, backend, segmenter=SentenceSplitter()).run()
        assert isinstance(events[-1], DebateEnded)
    finally:
        backend.close()
    for typed in (f"{server.url} m api_key_env=HOME", f"{server.url} m base_url=http://elsewhere/v1"):
        with pytest.raises(
            ConfigError, match=r"the app takes only these server options: .*\(not (api_key_env|base_url)\)"
        ):
            backend_for(SERVER, config, typed)
    with pytest.raises(ConfigError, match=r"one model name"):
        backend_for(SERVER, config, f"{server.url} m other")
