"""The contract every backend honours (see ``debate_core.backends.base``).

Backends are listed in ``REFERENCES``: each entry builds a backend and knows how to
compute, independently of it, what its signals must be (a small *reference adapter*).
The scripted backend and the transformers backend on the embedded model run the very
same assertions. To check a new backend, add an adapter; every test below then runs on
it too, and a test of a capability the backend does not declare is skipped.

Model work is bounded by tokens (small ``max_new_tokens``), never by wall-clock, except
the cancellation bound. This module imports only the backend seam, never the engine.
"""

from __future__ import annotations

import functools
import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from debate_core.backends.base import (
    NO_SIGNALS,
    AttentionQuery,
    AttentionScores,
    Backend,
    CancelToken,
    Capability,
    Completion,
    GenerationRequest,
    Message,
    SamplingParams,
    Signals,
)
from debate_core.backends.scripted import (
    SCRIPTED_LAYERS,
    ScriptedBackend,
    fake_attention,
    fake_choice_probs,
    fake_entropy,
    fake_nll,
    scripted_tokens,
)
from debate_core.errors import CapabilityError

TOLERANCE = 1e-4
GREEDY = SamplingParams(temperature=0.0, max_new_tokens=16, seed=0)
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "thought": {"type": "string", "maxLength": 240},
        "action": {"type": "string", "enum": ["listen", "speak"]},
        "urgency": {"type": "integer", "minimum": 0, "maximum": 9},
        "purpose": {"type": "string", "maxLength": 80},
        "answer": {"type": "string", "enum": ["A", "B"]},
    },
    "required": ["thought", "action", "urgency", "purpose", "answer"],
    "additionalProperties": False,
}
QUESTION = (
    "Which body cavity contains the pituitary gland? A) Abdominal B) Cranial C) Pleural D) Spinal. "
    "Answer with one letter."
)
CHOICES = ("A", "B", "C", "D")
# Markers are set off by spaces and newlines, so no token straddles a marker.
ATTENTION_PROMPT = (
    "Instruction: [[C]] Answer with one letter only. [[/C]]\n"
    "Alex said: <<R>> I think the answer is B, because the skull holds it.\n<</R>>\n"
    "What do you think?"
)
QUERY = AttentionQuery(rows=("<<R>>", "<</R>>"), cols=("[[C]]", "[[/C]]"))
COUNTING = "Count from 1 to 1000: 1, 2, 3, 4, 5,"


def make_request(
    text: str,
    agent: str = "Alex",
    kind: str = "utterance",
    *,
    sampling: SamplingParams = GREEDY,
    signals: Signals = NO_SIGNALS,
    assistant_prefix: str = "",
    cancel: CancelToken | None = None,
) -> GenerationRequest:
    schema = PLAN_SCHEMA if kind == "plan" else None
    return GenerationRequest(
        (Message("user", text),),
        sampling,
        kind,
        agent,
        turn=1,
        json_schema=schema,
        signals=signals,
        assistant_prefix=assistant_prefix,
        cancel=cancel,
    )


BATCH = [
    make_request("Say one short sentence about the number one.", "Alex"),
    make_request("Say one short sentence about the colour red.", "Chris"),
    make_request("Reply with a JSON plan.", "Jenny", "plan"),
]


# -- reference adapters -------------------------------------------------------------


def _echo(request: GenerationRequest) -> str:
    """A reply that depends on the request's content, so out-of-order answers show."""
    digest = hashlib.sha1(request.messages[-1].content.encode()).hexdigest()[:8]
    return f"Reply {digest} to {request.agent}, with several more words after it."


class ScriptedReference:
    """The scripted backend; its signals are the documented fakes of its tokens."""

    def make(self) -> Backend:
        return ScriptedBackend(_echo)

    def token_stats(self, backend: Any, request: GenerationRequest, completion: Completion) -> tuple[list, list]:
        pieces = [completion.text[s.start : s.end] for s in scripted_tokens(completion.text)]
        return [fake_nll(p) for p in pieces], [fake_entropy(p) for p in pieces]

    def choice_probs(self, backend: Any, request: GenerationRequest, completion: Completion) -> dict[str, float]:
        return fake_choice_probs(completion.text, request.signals.choices)

    def attention(self, backend: Any, request: GenerationRequest, scores: AttentionScores) -> tuple[list, int]:
        assert request.signals.attention is not None
        layer = request.signals.attention.layer % SCRIPTED_LAYERS
        return [fake_attention(scores.text[s.start : s.end]) for s in scores.tokens], layer

    def cancellable(self, cancel: CancelToken) -> tuple[Backend, GenerationRequest]:
        words = [f"w{i}" for i in range(1000)]

        def paced(request: GenerationRequest) -> str:  # as long as asked for, as a model is (the warm-up: one)
            return " ".join(words[: request.sampling.max_new_tokens])

        backend = ScriptedBackend(paced, seconds_per_token=0.01)
        return backend, make_request(COUNTING, sampling=SamplingParams(0.0, 1000, 0), cancel=cancel)


class TransformersReference:
    """The real backend on the embedded SmolLM2; signals recomputed by plain forward passes."""

    def make(self) -> Backend:
        from debate_core.backends.hf import TransformersBackend

        return TransformersBackend()

    @staticmethod
    def _last_logits(backend: Any, ids: list[int], count: int) -> Any:
        """Raw logits predicting the last ``count`` tokens of ``ids`` (and the one after), float32."""
        import torch

        with torch.inference_mode():
            logits = backend.loaded.model(input_ids=torch.tensor([ids])).logits[0].float()
        return logits[len(ids) - count - 1 :]

    def token_stats(self, backend: Any, request: GenerationRequest, completion: Completion) -> tuple[list, list]:
        import torch

        tokenizer = backend.loaded.tokenizer
        generated = tokenizer.encode(completion.text, add_special_tokens=False)
        assert tokenizer.decode(generated) == completion.text and len(generated) == completion.completion_tokens
        logits = self._last_logits(backend, backend.prompt_ids(request) + generated, len(generated))[:-1]
        logp = torch.log_softmax(logits, dim=-1)
        nll = -logp[torch.arange(len(generated)), torch.tensor(generated)]
        entropy = -(logp.exp() * logp).sum(dim=-1)
        return nll.tolist(), entropy.tolist()

    def choice_probs(self, backend: Any, request: GenerationRequest, completion: Completion) -> dict[str, float]:
        import torch

        probs = torch.softmax(self._last_logits(backend, backend.prompt_ids(request), 0)[-1], dim=-1)
        tokenizer = backend.loaded.tokenizer
        return {c: float(probs[tokenizer.encode(c, add_special_tokens=False)[0]]) for c in request.signals.choices}

    def attention(self, backend: Any, request: GenerationRequest, scores: AttentionScores) -> tuple[list, int]:
        """Max over heads and column tokens of an eager-attention copy's weights (``output_attentions``)."""
        import torch

        query = request.signals.attention
        assert query is not None
        text = backend.prompt_text(request)
        encoded = backend.loaded.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        offsets = encoded["offset_mapping"]

        def between(markers: tuple[str, str]) -> list[int]:
            start = text.index(markers[0]) + len(markers[0])
            end = text.index(markers[1], start)
            return [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]

        eager = _eager_embedded_model()
        layer = query.layer % eager.config.num_hidden_layers
        with torch.inference_mode():
            out = eager(input_ids=torch.tensor([encoded["input_ids"]]), output_attentions=True)
        weights = out.attentions[layer][0].float()  # [heads, T, T]
        rows, cols = between(query.rows), between(query.cols)
        return weights[:, rows][:, :, cols].amax(dim=(0, 2)).tolist(), layer

    def cancellable(self, cancel: CancelToken) -> tuple[Backend, GenerationRequest]:
        backend = self.make()
        backend.count_tokens("load the model before the clock starts")
        return backend, make_request(COUNTING, sampling=SamplingParams(0.0, 1000, 0), cancel=cancel)


@functools.cache
def _eager_embedded_model() -> Any:
    """A separately loaded copy of the embedded model with eager attention (the attention reference)."""
    import torch
    from transformers import AutoModelForCausalLM

    from debate_core.backends.hf.embedded import embedded_model_dir

    return AutoModelForCausalLM.from_pretrained(
        embedded_model_dir(), attn_implementation="eager", dtype=torch.float32
    ).eval()


@functools.cache
def _llamacpp_server() -> Any:
    """One llama.cpp server (xllamacpp) on the embedded GGUF for the whole session, stopped at exit.

    One slot: llama.cpp's continuous batching rounds a row differently when other rows share its batch,
    and these tests compare a batch with its requests alone (a property of the server, documented in
    docs/backend.md); the backend still sends the batch's requests concurrently.
    """
    import atexit

    from debate_core.backends.openai import LlamaCppServer

    server = LlamaCppServer(None, threads=1, parallel=1)
    atexit.register(server.stop)
    return server


class LlamaCppReference:
    """The OpenAI-compatible backend on a real llama.cpp server; signals recomputed by its native endpoint.

    The reference asks the server's own ``/completion`` endpoint (not the OpenAI one our backend uses)
    for the same prompt, rendered by ``/apply-template``, and recomputes NLL, the declared top-k entropy
    estimate and the first position's choice probabilities from its ``completion_probabilities``.
    """

    def make(self) -> Backend:
        from debate_core.backends.openai import OpenAIBackend

        server = _llamacpp_server()
        return OpenAIBackend(server.url, server.alias, api_key_env="")

    @staticmethod
    def _native(backend: Any, request: GenerationRequest, n_predict: int) -> list[dict[str, Any]]:
        import httpx

        root = backend.base_url.removesuffix("/v1")
        messages = [m.as_dict() for m in request.messages]
        prompt = httpx.post(root + "/apply-template", json={"messages": messages}, timeout=60).json()["prompt"]
        body = {"prompt": prompt, "n_predict": n_predict, "n_probs": backend.top_logprobs, "temperature": 0}
        return httpx.post(root + "/completion", json=body, timeout=120).json()["completion_probabilities"]

    def token_stats(self, backend: Any, request: GenerationRequest, completion: Completion) -> tuple[list, list]:
        from debate_core.backends.openai.logprobs import entropy_estimate

        assert completion.entropy_top_k == backend.top_logprobs  # declared as an estimate
        native = self._native(backend, request, completion.completion_tokens)
        assert "".join(e["token"] for e in native) == completion.text
        return [-e["logprob"] for e in native], [entropy_estimate(e["top_logprobs"]) for e in native]

    def choice_probs(self, backend: Any, request: GenerationRequest, completion: Completion) -> dict[str, float]:
        top = self._native(backend, request, 1)[0]["top_logprobs"]
        found = {e["token"]: math.exp(e["logprob"]) for e in top}
        return {c: found.get(c, 0.0) for c in request.signals.choices}

    def attention(self, backend: Any, request: GenerationRequest, scores: AttentionScores) -> tuple[list, int]:
        raise AssertionError("a server backend never declares attention")

    def cancellable(self, cancel: CancelToken) -> tuple[Backend, GenerationRequest]:
        return self.make(), make_request(COUNTING, sampling=SamplingParams(0.0, 1000, 0), cancel=cancel)


REFERENCES: list[tuple[str, Callable[[], Any]]] = [
    ("scripted", ScriptedReference),
    ("transformers-embedded", TransformersReference),
    ("openai-llamacpp", LlamaCppReference),
]


@pytest.fixture(params=[factory for _, factory in REFERENCES], ids=[name for name, _ in REFERENCES])
def reference(request) -> Any:
    return request.param()


@pytest.fixture
def backend(reference) -> Backend:
    return reference.make()


def requires(backend: Backend, capability: Capability) -> None:
    if capability not in backend.capabilities:
        pytest.skip(f"{backend.model_id} does not declare {capability.value}")


def close(actual: list[float] | tuple[float, ...], expected: list[float]) -> bool:
    return len(actual) == len(expected) and all(abs(a - e) <= TOLERANCE for a, e in zip(actual, expected, strict=True))


# -- the basic contract ---------------------------------------------------------------


def test_backend_satisfies_the_protocol(backend):
    assert isinstance(backend, Backend)
    assert isinstance(backend.model_id, str) and backend.model_id
    assert backend.capabilities <= frozenset(Capability)


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
        assert completion.token_nll is completion.token_entropy is completion.choice_probs is None
        assert completion.attention is None


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


# -- capabilities ----------------------------------------------------------------------


def test_token_stats_equal_a_direct_computation(backend, reference):
    requires(backend, Capability.TOKEN_STATS)
    asking = make_request("Say one short sentence about the colour red.", signals=Signals(token_stats=True))
    completions = backend.generate([BATCH[0], asking, BATCH[2]])
    for other in (completions[0], completions[2]):
        assert other.token_nll is None and other.token_entropy is None  # only the row that asks
    completion = completions[1]
    assert completion.token_nll is not None and completion.token_entropy is not None
    assert len(completion.token_nll) == len(completion.token_entropy) == completion.completion_tokens > 0
    vocab = backend.vocab_size
    ceiling = math.log(vocab) + TOLERANCE if vocab else math.inf
    assert all(nll >= 0 for nll in completion.token_nll)
    assert all(0 <= entropy <= ceiling for entropy in completion.token_entropy)
    nll, entropy = reference.token_stats(backend, asking, completion)
    assert close(completion.token_nll, nll)
    assert close(completion.token_entropy, entropy)


def test_choice_probabilities_are_probabilities_of_the_first_position(backend, reference):
    requires(backend, Capability.CHOICE_PROBS)
    request = make_request(QUESTION, signals=Signals(choices=CHOICES))
    completion = backend.generate([request])[0]
    probs = completion.choice_probs
    assert probs is not None and tuple(probs) == CHOICES
    assert all(0.0 <= p <= 1.0 for p in probs.values())
    assert sum(probs.values()) <= 1.0 + 1e-6
    expected = reference.choice_probs(backend, request, completion)
    assert close([probs[c] for c in CHOICES], [expected[c] for c in CHOICES])


def test_continuation_gives_the_rest_of_the_same_generation(backend):
    requires(backend, Capability.CONTINUATION)
    requires(backend, Capability.TOKENIZER)
    first = backend.generate([make_request("Say one short sentence about the colour red.")])[0]
    spans = backend.tokenize(first.text)
    assert len(spans) >= 6
    prefix = first.text[: spans[4].start]  # the first four tokens, ending before the fifth
    rest = first.completion_tokens - len(backend.tokenize(prefix))
    again = make_request(
        "Say one short sentence about the colour red.",
        sampling=SamplingParams(0.0, rest, 0),
        assistant_prefix=prefix,
    )
    second = backend.generate([again])[0]
    assert second.text == first.text[len(prefix) :]
    assert second.completion_tokens == rest


def test_attention_scores_one_finite_score_per_token_of_the_row_span(backend, reference):
    requires(backend, Capability.ATTENTION)
    requires(backend, Capability.TOKENIZER)
    request = make_request(ATTENTION_PROMPT, kind="attention", signals=Signals(attention=QUERY))
    completion = backend.generate([request])[0]
    assert completion.text == "" and completion.completion_tokens == 0 and completion.prompt_tokens > 0
    scores = completion.attention
    assert scores is not None
    assert scores.text.strip() == "I think the answer is B, because the skull holds it."
    assert scores.tokens
    previous_end = 0
    for span in scores.tokens:
        assert math.isfinite(span.score) and 0.0 <= span.score <= 1.0 + 1e-6
        assert previous_end <= span.start < span.end <= len(scores.text)
        previous_end = span.end
    tokens = backend.tokenize(scores.text)
    assert [(s.start, s.end) for s in scores.tokens] == [(t.start, t.end) for t in tokens]
    for span, token in zip(scores.tokens, tokens, strict=True):
        assert scores.text[span.start : span.end].lstrip() == backend.detokenize([token.id]).lstrip()
    expected, layer = reference.attention(backend, request, scores)
    assert close([s.score for s in scores.tokens], expected)
    assert scores.layer == layer


@pytest.mark.parametrize(
    "text", ["Beta.", "It's B, not A.", "Nitrogen is about 78 percent of dry air.", "  two  spaces\nand a newline"]
)
def test_tokenize_round_trips_with_character_offsets(backend, text):
    requires(backend, Capability.TOKENIZER)
    assert backend.tokenize("") == []
    tokens = backend.tokenize(text)
    assert len(tokens) == backend.count_tokens(text)
    assert backend.detokenize([t.id for t in tokens]) == text
    vocab = backend.vocab_size
    assert isinstance(vocab, int) and vocab > 0
    previous_end = 0
    for token in tokens:
        assert 0 <= token.id < vocab
        assert previous_end <= token.start < token.end <= len(text)
        assert text[token.start : token.end] == backend.detokenize([token.id])
        previous_end = token.end
    assert "".join(text[t.start : t.end] for t in tokens).split() == text.split()


def test_cancelling_stops_a_long_generation_promptly(backend, reference):
    requires(backend, Capability.CANCELLATION)
    cancel = CancelToken()
    slow, request = reference.cancellable(cancel)
    # Load (or convert) the model first: loading is not part of what cancellation promises.
    warm = replace(request, sampling=SamplingParams(0.0, 1, 0), cancel=None)
    slow.generate([warm])
    cancelled_at: list[float] = []

    def cancel_soon() -> None:
        time.sleep(0.5)
        cancelled_at.append(time.monotonic())
        cancel.cancel()

    canceller = threading.Thread(target=cancel_soon)
    canceller.start()
    completion = slow.generate([request])[0]
    returned_at = time.monotonic()
    canceller.join()
    assert cancelled_at and returned_at - cancelled_at[0] < 2.0
    assert completion.finish_reason == "cancelled"
    assert completion.completion_tokens < 1000  # what it had by then (none, on a slow machine)


def test_a_cancellable_generation_reports_its_tokens_as_it_goes(backend):
    """Viewers show "N tokens so far" from the request's cancel token while a model generates."""
    requires(backend, Capability.CANCELLATION)
    cancel = CancelToken()
    requests = [replace(r, cancel=cancel) for r in BATCH]
    completions = backend.generate(requests)
    assert cancel.tokens == sum(c.completion_tokens for c in completions) > 0


def test_a_request_needing_a_missing_capability_is_refused(backend):
    needing = {
        Capability.TOKEN_STATS: make_request("Hi.", signals=Signals(token_stats=True)),
        Capability.CHOICE_PROBS: make_request("Hi.", signals=Signals(choices=CHOICES)),
        Capability.CONTINUATION: make_request("Hi.", assistant_prefix="Well,"),
        Capability.ATTENTION: make_request(ATTENTION_PROMPT, signals=Signals(attention=QUERY)),
    }
    backend.capabilities = frozenset()  # type: ignore[misc]  # this instance now declares nothing
    for request in needing.values():
        with pytest.raises(CapabilityError):
            backend.generate([BATCH[0], request])
    assert len(backend.generate([BATCH[0]])) == 1  # plain requests need nothing


class _Bare(Backend):
    """A backend with no capabilities at all: the base class's defaults."""

    @property
    def model_id(self) -> str:
        return "bare"

    def generate(self, requests):
        self.check(requests)
        return [Completion("ok", 1, 1) for _ in requests]

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def test_the_base_class_refuses_what_a_backend_does_not_declare():
    bare = _Bare()
    assert bare.capabilities == frozenset() and bare.vocab_size is None
    with pytest.raises(CapabilityError, match="token"):
        bare.generate([make_request("Hi.", signals=Signals(token_stats=True))])
    with pytest.raises(CapabilityError):
        bare.generate([make_request("Hi.", assistant_prefix="Well,")])
    with pytest.raises(CapabilityError):
        bare.tokenize("Hi.")
    with pytest.raises(CapabilityError):
        bare.detokenize([1])
    assert bare.generate([make_request("Hi.")])[0].text == "ok"
    bare.release("debate")
    bare.close()
