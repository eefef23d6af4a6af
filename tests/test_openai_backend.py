"""The OpenAI-compatible backend against a server faked by a function (``httpx.MockTransport``).

What a user depends on and a real server cannot be made to do on demand: a clear error for a wrong
address, key or model; retries of 429/5xx with backoff, each recorded on the completion; no retry of
a request the server refused; the API key sent and never shown; each dialect's request shape
(llama.cpp's grammar, vLLM's continuation, the standard response_format); bounded concurrency; the
logprobs mapped onto NLL, a declared top-k entropy estimate and choice probabilities. The same
backend against a real llama.cpp server is in tests/contract and tests/servers.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from debate_core.backends.base import CancelToken, Capability, GenerationRequest, Message, SamplingParams, Signals
from debate_core.backends.factory import BackendSpec, make_backend, server_options
from debate_core.backends.openai import OpenAIBackend, api_root
from debate_core.backends.openai.logprobs import entropy_estimate
from debate_core.errors import BackendError, BackendUnavailable, CapabilityError, ConfigError

SCHEMA = {"type": "object", "properties": {"answer": {"type": "string", "enum": ["A", "B"]}}, "required": ["answer"]}


def models(owner: str = "vllm", *ids: str) -> dict[str, Any]:
    return {"object": "list", "data": [{"id": i, "object": "model", "owned_by": owner} for i in ids or ("m",)]}


def sse(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def reply(text: str, *, logprobs: list[dict[str, Any]] | None = None, usage: dict[str, Any] | None = None) -> bytes:
    words = text.split(" ")
    chunks: list[dict[str, Any]] = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    for i, word in enumerate(words):
        piece = word if i == 0 else " " + word
        choice: dict[str, Any] = {"index": 0, "delta": {"content": piece}}
        if logprobs is not None:
            choice["logprobs"] = {"content": logprobs[i : i + 1]}
        chunks.append({"choices": [choice]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    chunks.append(
        {"choices": [], "usage": usage or {"prompt_tokens": 11, "completion_tokens": len(words), "total_tokens": 0}}
    )
    return sse(*chunks)


def words(text: str) -> list[tuple[int, str]]:
    """A local tokenizer for a fake server of unknown kind: one token per word (with its leading space)."""
    pieces = text.split(" ")
    return [(i, p if i == 0 else " " + p) for i, p in enumerate(pieces)] if text else []


class Server:
    """A fake server: ``/v1/models`` and a chat handler; every request is kept."""

    def __init__(self, chat: Callable[[dict[str, Any]], httpx.Response], owner: str = "vllm", ids=("m",)) -> None:
        self.chat = chat
        self.owner = owner
        self.ids = ids
        self.seen: list[httpx.Request] = []
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if request.url.path == "/v1/models":
            return httpx.Response(200, json=models(self.owner, *self.ids))
        if request.url.path == "/tokenize":
            text = json.loads(request.content)["prompt"]
            words = text.split(" ")
            strs = [w if i == 0 else "Ġ" + w for i, w in enumerate(words)] if text else []
            return httpx.Response(200, json={"tokens": list(range(len(strs))), "token_strs": strs, "count": len(strs)})
        body = json.loads(request.content)
        self.bodies.append(body)
        return self.chat(body)

    def backend(self, **options: Any) -> OpenAIBackend:
        options.setdefault("sleep", lambda s: None)
        if self.owner not in ("vllm", "llamacpp"):  # a server without a tokenizer endpoint needs a local one
            options.setdefault("tokenizer", words)
        return OpenAIBackend("http://test:8000/v1", "m", transport=httpx.MockTransport(self), **options)


def ask(text: str = "Which?", **fields: Any) -> GenerationRequest:
    return GenerationRequest((Message("user", text),), SamplingParams(0.0, 16, 3), "plan", "Alex", 1, **fields)


def ok(body: dict[str, Any]) -> httpx.Response:
    return httpx.Response(200, content=reply("It is B."), headers={"content-type": "text/event-stream"})


# -- start: the model-list probe -------------------------------------------------------------


def test_a_dead_address_is_a_clear_error_at_start():
    with pytest.raises(BackendUnavailable, match=r"no OpenAI-compatible server answers at http://127.0.0.1:9/v1"):
        OpenAIBackend("http://127.0.0.1:9", "m", retries=1)


def test_a_model_the_server_does_not_serve_names_what_it_serves():
    server = Server(ok, ids=("llama-3.1-8b", "qwen"))
    with pytest.raises(BackendUnavailable, match=r"does not serve the model 'm'; it serves: llama-3.1-8b, qwen"):
        server.backend()


def test_a_refused_key_is_a_clear_error_and_the_key_is_never_shown(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-secret-123")

    def refuse(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer sk-secret-123"
        return httpx.Response(401, json={"error": {"message": "Incorrect API key provided"}})

    with pytest.raises(BackendUnavailable, match="refused the API key") as caught:
        OpenAIBackend("http://test/v1", "m", api_key_env="MY_KEY", transport=httpx.MockTransport(refuse))
    assert "sk-secret" not in str(caught.value) and "sk-secret" not in repr(caught.value)


def test_not_an_openai_server_is_refused():
    def html(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, text="<html>Not Found</html>")

    with pytest.raises(BackendUnavailable, match="HTTP 404"):
        OpenAIBackend("http://test", "m", transport=httpx.MockTransport(html))


def test_the_base_url_may_or_may_not_end_in_v1():
    assert api_root("http://h:8000") == api_root("http://h:8000/v1/") == "http://h:8000/v1"


def test_one_served_model_is_taken_when_none_is_named():
    server = Server(ok, ids=("only",))
    backend = OpenAIBackend("http://test", transport=httpx.MockTransport(server))
    assert backend.model == "only" and "only" in backend.model_id


# -- retries -----------------------------------------------------------------------------------


def test_overload_is_retried_with_backoff_and_every_retry_is_recorded():
    answers = iter([httpx.Response(503, text="busy"), httpx.Response(429, headers={"retry-after": "2"}, text="slow")])
    waits: list[float] = []

    def chat(body: dict[str, Any]) -> httpx.Response:
        return next(answers, None) or ok(body)

    completion = Server(chat).backend(sleep=waits.append).generate([ask()])[0]
    assert completion.text == "It is B."
    assert len(completion.retries) == 2
    assert "HTTP 503" in completion.retries[0] and "HTTP 429" in completion.retries[1]
    assert waits[1] == 2.0  # Retry-After honoured
    assert 0 < waits[0] <= 0.5


def test_a_server_that_stays_down_fails_the_batch_after_the_last_try():
    def chat(body: dict[str, Any]) -> httpx.Response:
        return httpx.Response(500, json={"error": {"message": "CUDA out of memory"}})

    server = Server(chat)
    with pytest.raises(BackendError, match=r"CUDA out of memory.*gave up after 3 tries"):
        server.backend(retries=3).generate([ask(), ask("other")])


def test_a_refused_request_is_not_retried():
    def chat(body: dict[str, Any]) -> httpx.Response:
        return httpx.Response(400, json={"error": {"message": "max_tokens is too large"}})

    server = Server(chat)
    with pytest.raises(BackendError, match=r"HTTP 400.*max_tokens is too large"):
        server.backend().generate([ask()])
    assert len(server.bodies) == 1


def test_timeouts_are_retried():
    calls = {"n": 0}

    def chat(body: dict[str, Any]) -> httpx.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            raise httpx.ReadTimeout("slow")
        return ok(body)

    completion = Server(chat).backend().generate([ask()])[0]
    assert completion.text == "It is B." and "in time" in completion.retries[0]


def test_a_server_error_in_the_middle_of_a_stream_is_a_backend_error():
    def chat(body: dict[str, Any]) -> httpx.Response:
        return httpx.Response(200, content=sse({"error": {"message": "slot crashed"}}))

    with pytest.raises(BackendError, match="slot crashed"):
        Server(chat).backend().generate([ask()])


# -- requests as each dialect wants them --------------------------------------------------------


def test_requests_carry_the_sampling_the_schema_and_stream_usage():
    server = Server(ok, owner="someone")
    server.backend().generate([ask(json_schema=SCHEMA)])
    body = server.bodies[0]
    assert body["model"] == "m" and body["temperature"] == 0.0 and body["max_tokens"] == 16
    assert "seed" not in body  # greedy: a seed means nothing
    server.backend().generate([GenerationRequest((Message("user", "Hi"),), SamplingParams(0.7, 8, 5), "plan", "A", 1)])
    assert server.bodies[1]["seed"] == 5 and server.bodies[1]["temperature"] == 0.7
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA


def test_a_temperature_left_to_the_backend_is_not_sent_so_the_server_samples_at_its_default():
    server = Server(ok, owner="someone")
    server.backend().generate([GenerationRequest((Message("user", "Hi"),), SamplingParams(None, 8, 5), "plan", "A", 1)])
    assert "temperature" not in server.bodies[0] and server.bodies[0]["seed"] == 5  # sampled, so seeded
    assert SamplingParams(None, 8).local_temperature == 1.0  # in process: the OpenAI API's default


def test_llamacpp_gets_a_grammar_without_free_whitespace():
    server = Server(ok, owner="llamacpp")
    server.backend().generate([ask(json_schema=SCHEMA)])
    grammar = server.bodies[0]["grammar"]
    assert grammar.startswith("%llguidance")
    assert '"whitespace_flexible": false' in grammar and "response_format" not in server.bodies[0]


def test_vllm_continues_a_partial_reply_and_only_the_rest_comes_back():
    def chat(body: dict[str, Any]) -> httpx.Response:
        return httpx.Response(200, content=reply("blue and green."))

    server = Server(chat, owner="vllm")
    backend = server.backend()
    assert Capability.CONTINUATION in backend.capabilities
    completion = backend.generate([ask(assistant_prefix="Red,")])[0]
    body = server.bodies[0]
    assert body["messages"][-1] == {"role": "assistant", "content": "Red,"}
    assert body["continue_final_message"] is True and body["add_generation_prompt"] is False
    assert completion.text == "blue and green."


def test_a_server_of_unknown_kind_declares_no_continuation_and_never_attention():
    backend = Server(ok, owner="openai").backend()
    assert Capability.CONTINUATION not in backend.capabilities
    assert Capability.ATTENTION not in backend.capabilities
    with pytest.raises(CapabilityError, match="continuation"):
        backend.generate([ask(assistant_prefix="Well,")])


def test_concurrency_is_bounded_and_order_is_kept():
    live = {"now": 0, "most": 0}
    lock = threading.Lock()

    def chat(body: dict[str, Any]) -> httpx.Response:
        with lock:
            live["now"] += 1
            live["most"] = max(live["most"], live["now"])
        time.sleep(0.05)
        with lock:
            live["now"] -= 1
        return httpx.Response(200, content=reply(body["messages"][0]["content"]))

    backend = Server(chat).backend(concurrency=3)
    texts = [c.text for c in backend.generate([ask(f"q{i}") for i in range(9)])]
    assert texts == [f"q{i}" for i in range(9)]
    assert live["most"] == 3


# -- signals -------------------------------------------------------------------------------------


def entry(token: str, logprob: float, top: list[tuple[str, float]]) -> dict[str, Any]:
    return {"token": token, "logprob": logprob, "top_logprobs": [{"token": t, "logprob": lp} for t, lp in top]}


def test_logprobs_give_nll_a_declared_entropy_estimate_and_choice_probabilities():
    first = entry("B", math.log(0.6), [("B", math.log(0.6)), ("A", math.log(0.3))])
    second = entry(" is", math.log(0.9), [(" is", math.log(0.9))])

    def chat(body: dict[str, Any]) -> httpx.Response:
        assert body["logprobs"] is True and body["top_logprobs"] == 20
        return httpx.Response(200, content=reply("B is", logprobs=[first, second]))

    backend = Server(chat).backend()
    assert "top 20" in backend.estimates[Capability.TOKEN_STATS]
    completion = backend.generate([ask(signals=Signals(token_stats=True, choices=("A", "B", "C")))])[0]
    assert completion.token_nll == pytest.approx((-math.log(0.6), -math.log(0.9)))
    assert completion.entropy_top_k == 20
    expected = -(0.6 * math.log(0.6) + 0.3 * math.log(0.3) + 0.1 * math.log(0.1))
    assert completion.token_entropy is not None and completion.token_entropy[0] == pytest.approx(expected)
    assert completion.choice_probs == pytest.approx({"A": 0.3, "B": 0.6, "C": 0.0})


def test_the_entropy_estimate_is_a_lower_bound_that_is_exact_when_the_top_holds_everything():
    whole = [{"logprob": math.log(p)} for p in (0.5, 0.25, 0.25)]
    assert entropy_estimate(whole) == pytest.approx(1.0397207708)
    assert entropy_estimate(whole[:2]) <= entropy_estimate(whole) + 1e-9


# -- cancellation -------------------------------------------------------------------------------


def test_cancelling_closes_the_stream_and_keeps_what_arrived():
    closed = threading.Event()

    class Endless(httpx.SyncByteStream):
        def __iter__(self):
            for i in range(10_000):
                yield b"data: " + json.dumps({"choices": [{"delta": {"content": f" w{i}"}}]}).encode() + b"\n\n"

        def close(self) -> None:
            closed.set()

    def chat(body: dict[str, Any]) -> httpx.Response:
        return httpx.Response(200, stream=Endless())

    cancel = CancelToken()
    cancel.cancel()
    completion = Server(chat).backend().generate([ask(cancel=cancel)])[0]
    assert completion.finish_reason == "cancelled" and completion.text == " w0"
    assert closed.is_set()


# -- the factory and the command line ----------------------------------------------------------


def test_the_factory_needs_an_address_and_refuses_unknown_options():
    with pytest.raises(ConfigError, match="--base-url"):
        make_backend(BackendSpec("openai", "m"))
    with pytest.raises(ConfigError, match="has no option colour"):
        make_backend(BackendSpec("openai", "m", options={"base_url": "http://x", "colour": "red"}))
    with pytest.raises(ConfigError, match="device"):
        make_backend(BackendSpec("openai", "m", device="cuda", options={"base_url": "http://x"}))


def test_backend_options_are_parsed_with_numbers_as_numbers():
    assert server_options("openai", "http://h/v1", ["concurrency=4", "timeout_s=2.5", "dialect=vllm"]) == {
        "concurrency": 4,
        "timeout_s": 2.5,
        "dialect": "vllm",
        "base_url": "http://h/v1",
    }
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        server_options("openai", None, ["concurrency"])
    with pytest.raises(ConfigError, match="--base-url is for --backend openai"):
        server_options("transformers", "http://h", [])


def test_tokens_are_counted_by_the_servers_tokenizer_and_cached():
    server = Server(ok)
    backend = server.backend()
    assert backend.count_tokens("Nitrogen is common") == 3 == backend.count_tokens("Nitrogen is common")
    assert [r.url.path for r in server.seen].count("/tokenize") == 1
    spans = backend.tokenize("Nitrogen is common")
    assert [(s.start, s.end) for s in spans] == [(0, 8), (8, 11), (11, 18)]


def test_vllm_is_asked_for_the_choices_own_tokens_so_their_probabilities_are_exact():
    server = Server(ok, owner="vllm")
    backend = server.backend()
    assert Capability.CHOICE_PROBS not in backend.estimates
    backend.generate([ask(signals=Signals(choices=("Yes", "No")))])
    assert server.bodies[0]["logprob_token_ids"] == [0]  # the fake tokenizer numbers tokens from 0 per text
    generic = Server(ok, owner="someone")
    generic.backend().generate([ask(signals=Signals(choices=("Yes", "No")))])
    assert "logprob_token_ids" not in generic.bodies[0]


def test_a_protocol_that_needs_attention_refuses_a_server_and_one_that_needs_token_statistics_runs():
    from debate_core import AgentSpec, Debate, DebateConfig, Question

    question = Question(text="Which gas is most of dry air?", options=("Oxygen", "Nitrogen"), answer="B")
    agents = tuple(AgentSpec(name=n) for n in ("Alex", "Chris", "Jenny"))
    backend = Server(ok).backend()
    with pytest.raises(CapabilityError, match="attention"):
        Debate(DebateConfig(question=question, agents=agents, protocol="sid", variant="compress"), backend)
    sized = Server(ok).backend(vocab_size=49152)
    gated = Debate(DebateConfig(question=question, agents=agents, protocol="sid", variant="exit"), sized)
    assert gated is not None  # its gate reads the declared entropy estimate


def test_a_gate_in_units_of_the_vocabulary_is_refused_before_the_debate_when_the_server_does_not_say_it():
    from debate_core import AgentSpec, Debate, DebateConfig, Question

    question = Question(text="Which gas is most of dry air?", options=("Oxygen", "Nitrogen"), answer="B")
    agents = tuple(AgentSpec(name=n) for n in ("Alex", "Chris", "Jenny"))
    sid = DebateConfig(question=question, agents=agents, protocol="sid", variant="exit")
    with pytest.raises(CapabilityError, match=r"vocabulary size.*vocab_size=N"):
        Debate(sid, Server(ok, owner="vllm").backend())  # vLLM's model list has no vocabulary size
    assert Debate(sid, Server(ok, owner="vllm").backend(vocab_size=49152)) is not None
    fixed = sid.model_copy(update={"params": {"gate": "fixed"}})
    assert Debate(fixed, Server(ok, owner="vllm").backend()) is not None  # the code's constants need no |V|
