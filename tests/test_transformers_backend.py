"""The real backend on the embedded SmolLM2-135M: batching, grammar, prefix reuse, a whole debate.

These tests run a real (tiny) language model on the CPU, offline. The first one in a
fresh environment converts the embedded GGUF once (about 20 s); later loads are fast.
"""

from __future__ import annotations

import json
import time

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, GenerationRequest, Message, Question
from debate_core.backends.base import RequestKind, SamplingParams
from debate_core.backends.embedded import EMBEDDED_MODEL_ID, embedded_model_dir
from debate_core.backends.transformers_backend import TransformersBackend, load_model
from debate_core.events import DebateEnded, InitialAnswersGiven, PlansMade, SentenceDisclosed
from debate_core.plans import WHEN_FLOOR_FREE, WHEN_FLOOR_HELD, plan_json_schema, validate_plan

LABELS = ("A", "B", "C", "D")
MMLU_STYLE = Question(
    text="Which of the following is the body cavity that contains the pituitary gland?",
    options=("Abdominal", "Cranial", "Pleural", "Spinal"),
    answer="B",
)


@pytest.fixture(scope="module")
def backend() -> TransformersBackend:
    return TransformersBackend()


def request(text: str, agent: str, *, schema=None, temperature=0.0, seed=0, max_new=40, key=None):
    return GenerationRequest(
        (Message("user", text),),
        SamplingParams(temperature, max_new, seed),
        RequestKind.PLAN if schema else RequestKind.UTTERANCE,
        agent,
        1,
        schema,
        key,
    )


def test_embedded_model_is_the_default_and_loads_offline(backend):
    loaded = backend.loaded
    assert backend.model_id == EMBEDDED_MODEL_ID and backend.is_embedded
    assert loaded.device == "cpu"
    assert type(loaded.model).__name__ == "LlamaForCausalLM"
    # one loaded model per process, shared by every backend with the same spec
    assert TransformersBackend().loaded is loaded
    assert load_model(backend.spec) is loaded


def test_converted_copy_is_reused_quickly():
    first = embedded_model_dir()
    started = time.perf_counter()
    again = embedded_model_dir()
    assert again == first and (first / "model.safetensors").is_file()
    assert time.perf_counter() - started < 0.5


def test_tokens_are_counted_with_the_models_tokenizer(backend):
    text = "Nitrogen is about 78 percent of dry air."
    expected = len(backend.loaded.tokenizer.encode(text, add_special_tokens=False))
    assert backend.count_tokens(text) == expected
    assert backend.count_tokens(text) != len(text.split())  # not a word count


def test_greedy_batch_equals_each_request_alone(backend):
    schema = plan_json_schema(WHEN_FLOOR_HELD, LABELS)
    batch = [
        request("Name three colours of the rainbow.", "Alex", max_new=30),
        request(f"{MMLU_STYLE.render()}\nGive your action plan as JSON.", "Chris", schema=schema, max_new=200),
        request("Explain in one sentence why the sky is blue. Be brief, please.", "Jenny", max_new=30),
    ]
    together = backend.generate(batch)
    alone = [backend.generate([item])[0] for item in batch]
    assert [c.text for c in together] == [c.text for c in alone]
    assert [c.completion_tokens for c in together] == [c.completion_tokens for c in alone]


def test_constrained_plans_always_parse_and_validate(backend):
    prompts = [
        f"{MMLU_STYLE.render()}\nYou are {name}. Decide your action plan and reply in JSON."
        for name in ("Alex", "Chris", "Jenny")
    ]
    for allowed in (WHEN_FLOOR_FREE, WHEN_FLOOR_HELD):
        schema = plan_json_schema(allowed, LABELS)
        batch = [
            request(text, f"agent{i}", schema=schema, temperature=0.7, seed=seed, max_new=600)
            for i, text in enumerate(prompts)
            for seed in (1, 2)
        ]
        for completion in backend.generate(batch):
            plan = validate_plan(json.loads(completion.text), allowed, LABELS)
            assert plan.action in allowed and 0 <= plan.urgency <= 9 and plan.answer in LABELS
            assert completion.finish_reason == "stop"


def test_sampling_is_reproducible_with_a_seed(backend):
    item = request("Write a short sentence about the sea.", "Alex", temperature=0.9, seed=42, max_new=20)
    first, second = backend.generate([item])[0], backend.generate([item])[0]
    assert first.text == second.text


def test_prefix_reuse_computes_only_new_tokens_and_changes_nothing(backend):
    base = f"{MMLU_STYLE.render()}\nDebate so far:\nTurn 1 Alex: I think the answer is B."
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


@pytest.mark.timeout(900)
def test_three_agent_interruptible_debate_on_the_embedded_model(backend):
    config = DebateConfig(
        question=MMLU_STYLE,
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny")),
        condition="interruptible",
        token_budget=150,
        seed=3,
        utterance_max_new_tokens=40,
        prompt_layout="cached",
    )
    events = Debate(config, backend).run()
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert end.final_answer in LABELS
    assert end.reason.value in ("budget", "silence")
    initial = next(e for e in events if isinstance(e, InitialAnswersGiven))
    assert all(answer.valid and answer.answer in LABELS for answer in initial.answers)
    records = [record for e in events if isinstance(e, PlansMade) for record in e.plans]
    assert records and all(record.valid for record in records), [r.error for r in records if not r.valid]
    if end.reason.value == "budget":
        assert any(isinstance(e, SentenceDisclosed) for e in events)
        assert end.public_tokens >= 150
    # the public budget is counted with the model's tokenizer
    for event in events:
        if isinstance(event, SentenceDisclosed):
            assert event.tokens == backend.count_tokens(event.text)
    # prefix reuse was at work on the plan prompts
    assert end.stats.cached_prompt_tokens > end.stats.prompt_tokens / 2
