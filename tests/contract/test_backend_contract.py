"""The contract every backend honours (see ``debate_core.backends.base``).

Backends are listed in ``BACKENDS`` as (id, factory): the scripted backend and the
transformers backend on the embedded model run the very same assertions. To check a
new backend, add a factory that builds it; every test below then runs on it too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import pytest

from debate_core import Backend, GenerationRequest, Message, RequestKind, SamplingParams, ScriptedBackend
from debate_core.backends.base import Completion
from debate_core.plans import Action, plan_json_schema


def _echo(request: GenerationRequest) -> str:
    """A reply that depends on the request's content, so out-of-order answers show."""
    digest = hashlib.sha1(request.messages[-1].content.encode()).hexdigest()[:8]
    return f"Reply {digest} to {request.agent}."


def scripted_backend() -> Backend:
    return ScriptedBackend(_echo)


def embedded_transformers_backend() -> Backend:
    """The real backend on the embedded SmolLM2-135M (loaded once per process)."""
    from debate_core.backends.transformers_backend import TransformersBackend

    return TransformersBackend()


BACKENDS: list[tuple[str, Callable[[], Backend]]] = [
    ("scripted", scripted_backend),
    ("transformers-embedded", embedded_transformers_backend),
]


@pytest.fixture(params=[factory for _, factory in BACKENDS], ids=[name for name, _ in BACKENDS])
def backend(request) -> Backend:
    return request.param()


GREEDY = SamplingParams(temperature=0.0, max_new_tokens=16, seed=0)


def make_request(text: str, agent: str = "Alex", kind: RequestKind = RequestKind.UTTERANCE) -> GenerationRequest:
    schema = plan_json_schema((Action.LISTEN, Action.SPEAK), ("A", "B")) if kind is RequestKind.PLAN else None
    return GenerationRequest((Message("user", text),), GREEDY, kind, agent, turn=1, json_schema=schema)


BATCH = [
    make_request("Say one short sentence about the number one.", "Alex"),
    make_request("Say one short sentence about the colour red.", "Chris"),
    make_request("Reply with a JSON plan.", "Jenny", RequestKind.PLAN),
]


def test_backend_satisfies_the_protocol(backend):
    assert isinstance(backend, Backend)
    assert isinstance(backend.model_id, str) and backend.model_id


def test_one_completion_per_request(backend):
    completions = backend.generate(BATCH)
    assert isinstance(completions, list)
    assert len(completions) == len(BATCH)
    assert all(isinstance(c, Completion) for c in completions)


def test_completions_come_back_in_request_order(backend):
    batched = [c.text for c in backend.generate(BATCH)]
    alone = [backend.generate([request])[0].text for request in BATCH]
    assert batched == alone
    reversed_batch = [c.text for c in backend.generate(list(reversed(BATCH)))]
    assert reversed_batch == list(reversed(batched))


def test_empty_batch_returns_an_empty_list(backend):
    assert backend.generate([]) == []


def test_completions_carry_text_and_token_counts(backend):
    for completion in backend.generate(BATCH):
        assert isinstance(completion.text, str)
        for count in (completion.prompt_tokens, completion.completion_tokens):
            assert isinstance(count, int) and not isinstance(count, bool)
            assert count >= 0
        assert completion.prompt_tokens > 0
        assert completion.finish_reason in ("stop", "length")


@pytest.mark.parametrize("text", ["", "Beta.", "It's B, not A.", "Nitrogen is about 78 percent of dry air."])
def test_count_tokens_is_a_deterministic_non_negative_int(backend, text):
    count = backend.count_tokens(text)
    assert isinstance(count, int) and not isinstance(count, bool)
    assert count >= 0
    assert backend.count_tokens(text) == count
    assert (count == 0) == (text == "")


def test_count_tokens_grows_with_text(backend):
    sentence = "Nitrogen is about 78 percent of dry air."
    assert backend.count_tokens(sentence + " " + sentence) > backend.count_tokens(sentence) > 0
