"""Properties of the fourth boundary: what an OpenAI-compatible inference server may send.

A fake vLLM (``httpx.MockTransport``; its handler runs on the backend's I/O thread, so it may
stall) answers every chat request with a drawn behaviour: a good stream, a stream with hostile
usage counts, logprobs, choices or chunks, arbitrary bytes, any status with any body, a stream
cut short, a stall before or after its headers, a trickle of keep-alive comments, a flood that
ignores ``max_tokens``; and every ``/tokenize`` with good or hostile token ids and texts.

* **The debate ends within its deadline**: with ``DebateEnded`` (an error names the server),
  never another exception, in at most its requests x (the whole-answer deadline + slack).
* **Stored == yielded**: every integer that reaches the store from the server is bounded and
  clean, so the recorder never fails on a value the engine accepted.
* **Stop is prompt**: ``Debate.stop()`` at a drawn moment ends the debate ``stopped`` within
  2 s, whatever the server is doing then.

``make fuzz`` runs them with FUZZ_EXAMPLES examples each; CI with the ``ci`` profile's 25.
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from hypothesis import event, given, note
from hypothesis import strategies as st

from debate_core import AgentSpec, Debate, DebateConfig
from debate_core.backends.openai import OpenAIBackend
from debate_core.errors import BackendError, ConfigError
from debate_core.events import EndReason
from tests.conftest import QUESTION, SentenceSplitter
from tests.properties.strategies import JSON_VALUE, MODEL_OUTPUT, TEXT
from tests.recorded import run_recorded

BASE = "http://test:8000"
HEADERS_TIMEOUT_S = 0.3
ANSWER_TIMEOUT_S = 0.6
STOP_WITHIN_S = 2.0
SLACK_S = 5.0  # per debate, for a busy 2-core machine
PROTOCOLS: dict[str, dict[str, Any]] = {
    "kimura/interruptible": {"protocol": "kimura", "variant": "interruptible"},
    "kimura/fixed": {"protocol": "kimura", "variant": "fixed"},
    "handraiser/prompted": {"protocol": "handraiser", "variant": "prompted", "params": {"max_rounds": 2}},
}

COUNT = st.one_of(
    st.integers(0, 5_000),
    st.integers(-(10**40), 10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([None, True, "12", 1e300, -1, 2**63, 2**64, 12.0, 12.5]),
)
USAGE = st.one_of(
    st.fixed_dictionaries({"prompt_tokens": st.integers(0, 5_000), "completion_tokens": st.integers(0, 500)}),
    st.fixed_dictionaries(
        {"prompt_tokens": COUNT, "completion_tokens": COUNT},
        optional={"prompt_tokens_details": st.one_of(st.fixed_dictionaries({"cached_tokens": COUNT}), JSON_VALUE)},
    ),
    JSON_VALUE,
)
TOKEN_ID = st.one_of(st.integers(0, 50_000), st.integers(-(2**70), 2**70), st.floats(), st.booleans(), TEXT)
LOGPROB_ENTRY = st.one_of(
    st.fixed_dictionaries(
        {
            "token": st.one_of(TEXT, JSON_VALUE),
            "logprob": st.one_of(st.floats(max_value=0), st.floats(), JSON_VALUE),
            "top_logprobs": st.one_of(
                st.lists(st.fixed_dictionaries({"token": TEXT, "logprob": st.floats()}), max_size=3), JSON_VALUE
            ),
        }
    ),
    JSON_VALUE,
)
GOOD_CHAT = st.tuples(st.just("good"), MODEL_OUTPUT, st.just({"prompt_tokens": 20, "completion_tokens": 5}))
HOSTILE_CHAT = st.one_of(
    st.tuples(st.just("good"), MODEL_OUTPUT, USAGE),
    st.tuples(st.just("logprobs"), st.lists(LOGPROB_ENTRY, max_size=3)),
    st.tuples(st.just("choice"), JSON_VALUE),
    st.tuples(st.just("chunk"), JSON_VALUE),
    st.tuples(st.just("chunk"), st.fixed_dictionaries({"error": st.one_of(TEXT, JSON_VALUE)})),
    st.tuples(st.just("bytes"), st.binary(max_size=300)),
    st.tuples(
        st.just("status"),
        st.sampled_from([200, 201, 204, 301, 302, 400, 404, 408, 429, 500, 503]),
        st.sampled_from(["text/event-stream", "application/json", "text/html", "text/plain", ""]),
        st.one_of(st.binary(max_size=200), TEXT.map(lambda t: json.dumps({"error": {"message": t}}).encode())),
    ),
    st.tuples(st.just("cut"), st.integers(0, 200)),
    st.tuples(st.just("stall_head"), st.floats(0, 2 * HEADERS_TIMEOUT_S)),
    st.tuples(st.just("stall_body"), st.floats(0, 2 * ANSWER_TIMEOUT_S)),
    st.tuples(st.just("trickle"), st.integers(1, 40)),
    st.tuples(st.just("flood"), st.integers(1, 8)),
)
CHAT = st.one_of(GOOD_CHAT, GOOD_CHAT, HOSTILE_CHAT)  # a debate gets far enough to disclose (and tokenize)
TOKENIZE = st.one_of(
    st.just(("good",)),
    st.just(("good",)),
    st.tuples(st.just("ids"), st.lists(TOKEN_ID, min_size=1, max_size=3)),
    st.tuples(st.just("json"), JSON_VALUE),
    st.tuples(st.just("bytes"), st.binary(max_size=100)),
)


def sse(*chunks: Any) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def good_stream(text: str, usage: Any) -> bytes:
    half = len(text) // 2
    pieces = [{"choices": [{"index": 0, "delta": {"content": p}}]} for p in (text[:half], text[half:]) if p]
    end = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return sse(*pieces, end, {"choices": [], "usage": usage})


class Slow(httpx.SyncByteStream):
    """A body that waits before (and between) its parts: a stall or a trickle, bounded."""

    def __init__(self, parts: list[bytes], pause_s: float) -> None:
        self.parts, self.pause_s = parts, pause_s

    def __iter__(self) -> Iterator[bytes]:
        for part in self.parts:
            time.sleep(self.pause_s)
            yield part


class FakeVllm:
    """``/v1/models`` (vLLM), ``/tokenize`` and the chat endpoint, each answering its next drawn behaviour."""

    def __init__(self, chats: list[Any], tokenizes: list[Any]) -> None:
        self.chats, self.tokenizes = chats, tokenizes
        self.requests = 0
        self.lock = threading.Lock()

    def next(self, plan: list[Any]) -> Any:
        with self.lock:
            self.requests += 1
            return plan[self.requests % len(plan)]

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"data": [{"id": "m", "owned_by": "vllm"}]})
        if request.url.path == "/tokenize":
            return self.tokenize(json.loads(request.content)["prompt"], self.next(self.tokenizes))
        return self.chat(self.next(self.chats))

    def tokenize(self, text: str, behaviour: Any) -> httpx.Response:
        words = text.split(" ")
        strs = [w if i == 0 else "Ġ" + w for i, w in enumerate(words)]
        kind = behaviour[0]
        if kind == "ids":
            return httpx.Response(200, json={"tokens": behaviour[1], "token_strs": strs[: len(behaviour[1])]})
        if kind == "json":
            return httpx.Response(200, json=behaviour[1])
        if kind == "bytes":
            return httpx.Response(200, content=behaviour[1])
        return httpx.Response(200, json={"tokens": list(range(len(strs))), "token_strs": strs})

    def chat(self, behaviour: Any) -> httpx.Response:
        kind = behaviour[0]
        stream = {"content-type": "text/event-stream"}
        if kind == "good":
            return httpx.Response(200, headers=stream, content=good_stream(behaviour[1], behaviour[2]))
        if kind == "logprobs":
            choice = {"index": 0, "delta": {"content": "B"}, "logprobs": {"content": behaviour[1]}}
            return httpx.Response(200, headers=stream, content=sse({"choices": [choice]}))
        if kind == "choice":
            return httpx.Response(200, headers=stream, content=sse({"choices": [behaviour[1]]}))
        if kind == "chunk":
            return httpx.Response(200, headers=stream, content=sse(behaviour[1]))
        if kind == "bytes":
            return httpx.Response(200, headers=stream, content=behaviour[1])
        if kind == "status":
            _, status, content_type, body = behaviour
            return httpx.Response(status, headers={"content-type": content_type} if content_type else {}, content=body)
        if kind == "cut":
            whole = good_stream("B is right.", {"prompt_tokens": 3, "completion_tokens": 3})
            return httpx.Response(200, headers=stream, content=whole[: behaviour[1]])
        if kind == "stall_head":
            time.sleep(behaviour[1])
            return httpx.Response(200, headers=stream, content=good_stream("B.", None))
        if kind == "stall_body":
            parts = [good_stream("B.", {"prompt_tokens": 3, "completion_tokens": 1})]
            return httpx.Response(200, headers=stream, stream=Slow(parts, behaviour[1]))
        if kind == "trickle":
            return httpx.Response(200, headers=stream, stream=Slow([b": keep-alive\n\n"] * behaviour[1], 0.05))
        if kind == "flood":  # megabytes for a request of a few hundred tokens: it ignores max_tokens
            block = (b'data: {"choices": [{"index": 0, "delta": {"content": "' + b"x" * 60_000 + b'"}}]}\n\n') * 16
            return httpx.Response(200, headers=stream, content=block * behaviour[1])
        raise AssertionError(kind)


def config_for(protocol: str) -> DebateConfig:
    agents = tuple(AgentSpec(name=n) for n in ("Ann", "Ben", "Cy"))
    return DebateConfig(
        question=QUESTION, agents=agents, token_budget=60, max_turns=6, max_silent_turns=3, **PROTOCOLS[protocol]
    )


def run(server: FakeVllm, protocol: str, stop_after_s: float | None = None) -> dict[str, Any]:
    backend = OpenAIBackend(
        BASE,
        "m",
        api_key_env="",
        transport=httpx.MockTransport(server),
        retries=2,
        sleep=lambda s: None,
        headers_timeout_s=HEADERS_TIMEOUT_S,
        timeout_s=ANSWER_TIMEOUT_S,
        vocab_size=50_000,
    )
    debate = Debate(config_for(protocol), backend, segmenter=SentenceSplitter())
    with tempfile.TemporaryDirectory() as root:
        recorded = run_recorded(debate, Path(root) / "debates.sqlite3", backend=backend, stop_after_s=stop_after_s)
    last, error = recorded.ended, recorded.error
    if error is not None:
        assert last.reason is EndReason.ERROR and last.error == str(error)
        assert BASE in str(error), f"the error does not name the server: {error}"
    else:
        assert last.reason is not EndReason.ERROR
    return {"ended": last, "elapsed": recorded.elapsed, "after_stop": recorded.after_stop}


@given(
    protocol=st.sampled_from(sorted(PROTOCOLS)),
    chats=st.lists(CHAT, min_size=1, max_size=12),
    tokenizes=st.lists(TOKENIZE, min_size=1, max_size=4),
)
def test_no_server_answer_can_crash_a_debate_hang_it_or_lose_an_event(
    protocol: str, chats: list[Any], tokenizes: list[Any]
) -> None:
    server = FakeVllm(chats, tokenizes)
    outcome = run(server, protocol)
    ended = outcome["ended"]
    note(f"{server.requests} requests, {outcome['elapsed']:.2f} s, ended {ended.reason.value}: {ended.error}")
    event(f"{protocol} ended: {ended.reason.value}")
    # every try is bounded by the whole-answer deadline; a request has at most 2 tries
    bound = server.requests * (ANSWER_TIMEOUT_S + 0.5) + SLACK_S
    assert outcome["elapsed"] <= bound, f"{outcome['elapsed']:.1f} s for {server.requests} requests"


@given(
    chats=st.lists(CHAT, min_size=1, max_size=6),
    stop_after_s=st.floats(0, 0.5),
)
def test_stop_ends_a_debate_within_two_seconds_whatever_the_server_does(chats: list[Any], stop_after_s: float) -> None:
    stalls = [("stall_head", 2 * HEADERS_TIMEOUT_S), ("stall_body", 2 * ANSWER_TIMEOUT_S), ("trickle", 40)]
    server = FakeVllm([*chats, *stalls], [("good",)])
    outcome = run(server, "kimura/interruptible", stop_after_s=stop_after_s)
    event(f"ended: {outcome['ended'].reason.value}")
    if outcome["after_stop"] is not None:  # else it ended before the stop
        assert outcome["after_stop"] < STOP_WITHIN_S, outcome["after_stop"]


MODEL_ENTRY = st.fixed_dictionaries(
    {"id": st.one_of(st.just("m"), TEXT, JSON_VALUE)},
    optional={
        "aliases": st.one_of(st.lists(st.one_of(st.just("m"), TEXT), max_size=2), JSON_VALUE),
        "owned_by": st.one_of(st.sampled_from(["vllm", "llamacpp", "openai"]), JSON_VALUE),
        "meta": st.one_of(st.fixed_dictionaries({"n_vocab": COUNT}), JSON_VALUE),
    },
)
MODEL_LIST = st.one_of(
    st.fixed_dictionaries({"data": st.lists(st.one_of(MODEL_ENTRY, MODEL_ENTRY, JSON_VALUE), max_size=4)}),
    st.lists(MODEL_ENTRY, max_size=2).map(lambda more: {"data": [{"id": "m", "owned_by": "vllm"}, *more]}),
    JSON_VALUE,
)


@given(models=MODEL_LIST, model=st.sampled_from([None, "m"]))
def test_any_model_list_gives_a_backend_or_a_refusal_naming_the_server(models: Any, model: str | None) -> None:
    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=json.dumps(models, allow_nan=True).encode())  # Infinity too

    try:
        backend = OpenAIBackend(BASE, model, api_key_env="", transport=httpx.MockTransport(serve), retries=1)
    except (BackendError, ConfigError) as error:  # BackendUnavailable, or no tokenizer (ConfigError)
        event(f"refused: {type(error).__name__}")
        assert BASE in str(error)
        str(error).encode("utf-8")  # clean text: a terminal, a page or a store can take it
        return
    event(f"built: {backend.dialect.name}")
    assert backend.vocab_size is None or 0 < backend.vocab_size < 2**31
    backend.close()
