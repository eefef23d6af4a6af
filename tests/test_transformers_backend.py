"""The real backend on the embedded SmolLM2-135M: loading, batching, grammar, prefix reuse, signals.

These tests run a real (tiny) language model on the CPU, offline. The first one in a
fresh environment converts the embedded GGUF once (about 20 s); later loads are fast.
What every backend must do is in tests/contract; this module checks what is particular
to the transformers backend. It imports only the backend seam, never the engine (a
whole debate on the embedded model is in test_embedded_debate.py).
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import types
import weakref
from typing import Any

import pytest

from debate_core.backends.base import (
    NO_SIGNALS,
    AttentionQuery,
    CancelToken,
    Capability,
    GenerationRequest,
    Message,
    SamplingParams,
    Signals,
)
from debate_core.backends.hf import LoadedModel, ModelSpec, TransformersBackend, embedded, load_model, unload_model
from debate_core.backends.hf.attention import attention_scores
from debate_core.backends.hf.embedded import EMBEDDED_MODEL_ID, embedded_model_dir
from debate_core.backends.hf.loading import loaded_specs, max_loaded_models
from debate_core.backends.hf.prompt import TokenizedPrompt
from debate_core.errors import BackendError, CapabilityError, ConfigError

LABELS = ("A", "B", "C", "D")
QUESTION = (
    "Which of the following is the body cavity that contains the pituitary gland?\n"
    "A) Abdominal\nB) Cranial\nC) Pleural\nD) Spinal"
)
FIELDS = ("thought", "action", "urgency", "purpose", "answer")


def plan_schema(actions: tuple[str, ...]) -> dict[str, Any]:
    """A plan's JSON schema as the engine writes it: the allowed actions, urgency 0-9, a label."""
    return {
        "type": "object",
        "properties": {
            "thought": {"type": "string", "maxLength": 240},
            "action": {"type": "string", "enum": list(actions)},
            "urgency": {"type": "integer", "minimum": 0, "maximum": 9},
            "purpose": {"type": "string", "maxLength": 80},
            "answer": {"type": "string", "enum": list(LABELS)},
        },
        "required": list(FIELDS),
        "additionalProperties": False,
    }


WHEN_FLOOR_FREE = ("listen", "speak")
WHEN_FLOOR_HELD = ("listen", "interrupt")


@pytest.fixture(scope="module")
def backend() -> TransformersBackend:
    return TransformersBackend()


def request(
    text: str,
    agent: str = "Alex",
    *,
    schema=None,
    temperature=0.0,
    seed=0,
    max_new=40,
    key=None,
    signals=NO_SIGNALS,
    prefix="",
    cancel=None,
) -> GenerationRequest:
    return GenerationRequest(
        (Message("user", text),),
        SamplingParams(temperature, max_new, seed),
        "plan" if schema else "utterance",
        agent,
        1,
        schema,
        key,
        signals=signals,
        assistant_prefix=prefix,
        cancel=cancel,
    )


# -- loading -----------------------------------------------------------------------


def test_importing_the_package_imports_no_heavy_library():
    code = (
        "import sys; import debate_core.backends.hf; "
        "heavy = [m for m in ('torch', 'transformers', 'xgrammar') if m in sys.modules]; "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_embedded_model_is_the_default_and_loads_offline(backend):
    loaded = backend.loaded
    assert backend.model_id == EMBEDDED_MODEL_ID and backend.is_embedded
    assert loaded.device == "cpu"
    assert type(loaded.model).__name__ == "LlamaForCausalLM"
    assert backend.capabilities == frozenset(Capability)
    assert backend.vocab_size == loaded.model.config.vocab_size == 49152
    # one loaded model per process, shared by every backend with the same spec
    assert TransformersBackend().loaded is loaded
    assert load_model(backend.spec) is loaded


def test_converted_copy_is_reused_not_converted_again(monkeypatch):
    first = embedded_model_dir()
    written = (first / "model.safetensors").stat().st_mtime_ns

    def convert_again(gguf, destination):
        raise AssertionError("the GGUF was converted a second time")

    monkeypatch.setattr(embedded, "_convert", convert_again)
    again = embedded_model_dir()
    assert again == first and (first / "model.safetensors").stat().st_mtime_ns == written


def test_loaded_models_are_a_bounded_lru(backend, monkeypatch):
    assert max_loaded_models() == 2
    default = backend.loaded
    monkeypatch.setenv("DEBATE_MAX_LOADED_MODELS", "1")
    other_spec = ModelSpec(device="cpu")  # the same weights under another spec: another entry
    other = load_model(other_spec)
    assert loaded_specs() == [other_spec]
    freed = weakref.ref(other.model)
    evicted = weakref.ref(default.model)
    del default
    gc.collect()
    assert evicted() is None  # the registry held the last reference
    reloaded = backend.loaded  # loading the default again evicts the other
    assert loaded_specs() == [backend.spec]
    del other
    gc.collect()
    assert freed() is None
    assert isinstance(reloaded, LoadedModel) and backend.generate([request("Hi.", max_new=2)])
    monkeypatch.setenv("DEBATE_MAX_LOADED_MODELS", "zero")
    with pytest.raises(ConfigError):
        max_loaded_models()


def test_close_unloads_and_release_never_loads():
    spec = ModelSpec(device="cpu", dtype="float32")
    closing = TransformersBackend(device="cpu", dtype="float32")
    closing.release("no-such-debate")
    assert spec not in loaded_specs()
    closing.count_tokens("load it")
    assert spec in loaded_specs()
    closing.close()
    assert spec not in loaded_specs()
    assert not unload_model(spec)


def test_tokens_are_counted_with_the_models_tokenizer(backend):
    text = "Nitrogen is about 78 percent of dry air."
    expected = len(backend.loaded.tokenizer.encode(text, add_special_tokens=False))
    assert backend.count_tokens(text) == expected
    assert backend.count_tokens(text) != len(text.split())  # not a word count
    assert [t.id for t in backend.tokenize(text)] == backend.loaded.tokenizer.encode(text, add_special_tokens=False)


# -- batching, grammar, prefix reuse -------------------------------------------------


def test_greedy_batch_equals_each_request_alone(backend):
    batch = [
        request("Name three colours of the rainbow.", "Alex", max_new=30),
        request(
            f"{QUESTION}\nGive your action plan as JSON.", "Chris", schema=plan_schema(WHEN_FLOOR_HELD), max_new=200
        ),
        request("Explain in one sentence why the sky is blue. Be brief, please.", "Jenny", max_new=30),
    ]
    together = backend.generate(batch)
    alone = [backend.generate([item])[0] for item in batch]
    assert [c.text for c in together] == [c.text for c in alone]
    assert [c.completion_tokens for c in together] == [c.completion_tokens for c in alone]


def test_constrained_plans_always_parse_and_validate(backend):
    prompts = [
        f"{QUESTION}\nYou are {name}. Decide your action plan and reply in JSON." for name in ("Alex", "Chris", "Jenny")
    ]
    for allowed in (WHEN_FLOOR_FREE, WHEN_FLOOR_HELD):
        batch = [
            request(text, f"agent{i}", schema=plan_schema(allowed), temperature=0.7, seed=seed, max_new=600)
            for i, text in enumerate(prompts)
            for seed in (1, 2)
        ]
        for completion in backend.generate(batch):
            plan = json.loads(completion.text)
            assert tuple(plan) == FIELDS
            assert plan["action"] in allowed and 0 <= plan["urgency"] <= 9 and plan["answer"] in LABELS
            assert len(plan["thought"]) <= 240 and len(plan["purpose"]) <= 80
            assert completion.finish_reason == "stop"


def test_sampling_is_reproducible_with_a_seed(backend):
    item = request("Write a short sentence about the sea.", "Alex", temperature=0.9, seed=42, max_new=20)
    first, second = backend.generate([item])[0], backend.generate([item])[0]
    assert first.text == second.text


def test_prefix_reuse_computes_only_new_tokens_and_changes_nothing(backend):
    base = f"{QUESTION}\nDebate so far:\nTurn 1 Alex: I think the answer is B."
    grown = base + "\nTurn 2 Chris: The pituitary sits in the skull, so B."
    key = "test-debate/Alex/plan"
    backend.generate([request(base, "Alex", key=key, max_new=5)])
    reused = backend.generate([request(grown, "Alex", key=key, max_new=25)])[0]
    fresh = backend.generate([request(grown, "Alex", max_new=25)])[0]
    assert fresh.cached_tokens == 0
    assert reused.cached_tokens > 0.7 * reused.prompt_tokens
    assert reused.text == fresh.text
    backend.release("test-debate")
    after = backend.generate([request(grown, "Alex", key=key, max_new=1)])[0]
    assert after.cached_tokens == 0


# -- signals ---------------------------------------------------------------------------


def test_signals_change_no_text_and_batching_changes_no_signal(backend):
    prompts = ["Name three colours of the rainbow.", "Say one short sentence about the colour red."]
    stats = Signals(token_stats=True, choices=("The", "Red", "1"))
    plain = backend.generate([request(text, max_new=12) for text in prompts])
    measured = backend.generate([request(text, max_new=12, signals=stats) for text in prompts])
    alone = [backend.generate([request(text, max_new=12, signals=stats)])[0] for text in prompts]
    assert [c.text for c in plain] == [c.text for c in measured] == [c.text for c in alone]
    for together, single in zip(measured, alone, strict=True):
        assert together.token_nll == pytest.approx(single.token_nll, abs=1e-5)
        assert together.token_entropy == pytest.approx(single.token_entropy, abs=1e-5)
        assert together.choice_probs == pytest.approx(single.choice_probs, abs=1e-6)


def test_token_stats_of_a_constrained_plan_come_from_the_raw_distribution(backend):
    stats = Signals(token_stats=True)
    item = request(f"{QUESTION}\nReply in JSON.", schema=plan_schema(WHEN_FLOOR_FREE), max_new=120, signals=stats)
    completion = backend.generate([item])[0]
    assert completion.token_nll is not None and completion.token_entropy is not None
    assert len(completion.token_nll) == completion.completion_tokens
    # the grammar forces the first token ('{"'); under the raw distribution it is far from
    # certain (a masked distribution would give it an NLL of 0 and an entropy of 0)
    assert completion.token_nll[0] > 0.5 and completion.token_entropy[0] > 0.5


def test_choices_sharing_a_first_token_are_refused(backend):
    with pytest.raises(CapabilityError, match="share their first token"):
        backend.generate([request("Pick one.", signals=Signals(choices=("Yes", "Yes, surely")))])
    with pytest.raises(ConfigError):
        backend.generate([request("Pick one.", signals=Signals(choices=("Yes", "")))])


def test_a_continuation_reuses_the_prompt_it_continues(backend):
    key = "test-continuation/Alex/utterance"
    first = backend.generate([request("Say one short sentence about the colour red.", key=key, max_new=10)])[0]
    spans = backend.tokenize(first.text)
    prefix = first.text[: spans[3].start]
    again = backend.generate([request("Say one short sentence about the colour red.", key=key, prefix=prefix)])[0]
    assert again.cached_tokens == first.prompt_tokens
    assert again.prompt_tokens == first.prompt_tokens + 3
    backend.release("test-continuation")


def test_a_constrained_continuation_follows_its_schema(backend):
    schema = plan_schema(WHEN_FLOOR_FREE)
    prefix = '{"thought": "The skull holds it.", "action": "'  # XGrammar's default separators
    item = request(f"{QUESTION}\nReply in JSON.", schema=schema, prefix=prefix, max_new=200)
    completion = backend.generate([item])[0]
    plan = json.loads(prefix + completion.text)
    assert plan["thought"] == "The skull holds it." and plan["action"] in WHEN_FLOOR_FREE
    with pytest.raises(ConfigError, match="does not follow"):
        backend.generate([request(f"{QUESTION}\nReply in JSON.", schema=schema, prefix="Sure! ", max_new=5)])


def test_cancelled_rows_stop_and_the_others_carry_on(backend):
    cancel = CancelToken()
    cancel.cancel()
    batch = [
        request("Name three colours of the rainbow.", max_new=12),
        request("Count from 1 to 1000: 1, 2, 3,", max_new=1000, cancel=cancel),
    ]
    passes: list[int] = []  # the model's forward passes during the batch (a machine's speed is no measure)
    hook = backend.loaded.model.register_forward_pre_hook(lambda module, args: passes.append(1))
    try:
        completions = backend.generate(batch)
    finally:
        hook.remove()
    # the cancelled row never ran: the other's prompt and its 12 tokens take a dozen passes, 1,000 tokens a thousand
    assert len(passes) <= 1 + 12
    assert completions[1].finish_reason == "cancelled" and completions[1].completion_tokens == 0
    assert completions[0].text == backend.generate(batch[:1])[0].text
    query = AttentionQuery(rows=("<<", ">>"), cols=("[[", "]]"))
    attention = backend.generate([request("[[ a ]] << b >>", signals=Signals(attention=query), cancel=cancel)])[0]
    assert attention.finish_reason == "cancelled" and attention.attention is None


def test_attention_leaves_the_prefix_cache_alone_and_checks_its_query(backend):
    cache = backend.loaded.prefix_cache
    before = len(cache)
    text = "Rules: [[ be brief ]] Alex: << I agree with B. >>"
    query = AttentionQuery(rows=("<<", ">>"), cols=("[[", "]]"), layer=0)
    item = request(text, key="test-attention/Alex/plan", signals=Signals(attention=query))
    completion = backend.generate([item])[0]
    assert completion.attention is not None and completion.attention.layer == 0
    assert len(cache) == before
    with pytest.raises(ConfigError, match="out of range"):
        backend.generate([request(text, signals=Signals(attention=AttentionQuery(query.rows, query.cols, 30)))])
    with pytest.raises(BackendError, match="markers"):
        backend.generate([request(text, signals=Signals(attention=AttentionQuery(("{{", "}}"), query.cols)))])


def test_attention_refuses_architectures_it_cannot_reproduce():
    config = types.SimpleNamespace(num_hidden_layers=2, model_type="gpt2")
    model = types.SimpleNamespace(config=config, model=types.SimpleNamespace(layers=[None, None]))
    prompt = TokenizedPrompt(
        "[[ a ]] << b >>", [1, 2, 3, 4, 5, 6], [(0, 2), (2, 4), (4, 7), (7, 10), (10, 12), (12, 15)]
    )
    with pytest.raises(CapabilityError, match="gpt2"):
        attention_scores(model, prompt, AttentionQuery(rows=("<<", ">>"), cols=("[[", "]]")))


# -- failures ---------------------------------------------------------------------------


@pytest.mark.parametrize("failure", [RuntimeError("CUDA out of memory"), MemoryError()])
def test_device_failures_become_backend_errors(backend, monkeypatch, failure):
    from debate_core.backends.hf.decoding import BatchDecoder

    def fail(*_: Any, **__: Any) -> None:
        raise failure

    monkeypatch.setattr(BatchDecoder, "_prefill", fail)
    with pytest.raises(BackendError, match="generation failed"):
        backend.generate([request("Hi.", max_new=2)])
