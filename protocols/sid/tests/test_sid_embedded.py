"""SID's signals on the embedded model match a direct forward pass, and a SID debate runs on it.

The backend's token statistics (NLL of the generated token, entropy of the full next-token
distribution) are compared with a plain forward pass over the prompt and the generated tokens; its
attention scores (recomputed from one layer's queries and keys, without building the T x T matrix)
with an eager-attention copy of the model asked for ``output_attentions``. Model work is bounded by
tokens: a few generated tokens, one short debate.
"""

from __future__ import annotations

import pytest
import torch

from debate_core import AgentSpec, Debate, DebateConfig, Question
from debate_core.backends.base import (
    AttentionQuery,
    GenerationRequest,
    Message,
    SamplingParams,
    Signals,
    span_between,
)
from debate_core.backends.hf import TransformersBackend
from debate_core.backends.hf.attention import tokens_in
from debate_core.backends.hf.prompt import tokenize_prompt
from debate_core.events import SignalsMeasured
from protocols.sid.events import ContextCompressed
from tests.conftest import of_type


@pytest.fixture(scope="module")
def backend() -> TransformersBackend:
    return TransformersBackend()


def ask(text: str, signals: Signals, max_new: int) -> GenerationRequest:
    return GenerationRequest(
        (Message("user", text),), SamplingParams(0.0, max_new, 0), "answer", "Alex", 1, None, None, signals=signals
    )


def test_token_statistics_match_a_direct_forward_pass(backend):
    request = ask("Name the largest planet of the solar system.", Signals(token_stats=True), 8)
    completion = backend.generate([request])[0]
    tokenizer, model = backend.loaded.tokenizer, backend.loaded.model
    prompt = tokenize_prompt(tokenizer, request)
    generated = tokenizer(completion.text, add_special_tokens=False)["input_ids"]
    assert len(generated) == completion.completion_tokens == len(completion.token_nll)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt.ids + generated])).logits[0].float()
    log_probs = torch.log_softmax(logits[len(prompt.ids) - 1 : -1], dim=-1)
    nll = [-float(log_probs[i, token]) for i, token in enumerate(generated)]
    entropy = [float(-(log_probs[i].exp() * log_probs[i]).sum()) for i in range(len(generated))]
    assert completion.token_nll == pytest.approx(nll, abs=1e-3)
    assert completion.token_entropy == pytest.approx(entropy, abs=1e-3)


def test_attention_scores_match_an_eager_forward_pass(backend):
    from transformers import AutoModelForCausalLM

    text = "Rules: [[ be brief and check item two ]] Alex: << I agree with B because nitrogen dominates. >>"
    query = AttentionQuery(rows=("<<", ">>"), cols=("[[", "]]"), layer=-1)
    request = ask(text, Signals(attention=query), 1)
    scores = backend.generate([request])[0].attention
    assert scores is not None and scores.layer == backend.loaded.model.config.num_hidden_layers - 1
    eager = AutoModelForCausalLM.from_pretrained(
        backend.loaded.model.name_or_path, attn_implementation="eager", dtype=torch.float32
    )
    prompt = tokenize_prompt(backend.loaded.tokenizer, request)
    with torch.no_grad():
        weights = eager(input_ids=torch.tensor([prompt.ids]), output_attentions=True).attentions[-1][0].float()
    rows = tokens_in(prompt.offsets, span_between(prompt.text, query.rows))
    cols = tokens_in(prompt.offsets, span_between(prompt.text, query.cols))
    direct = weights[:, rows][:, :, cols].amax(dim=(0, 2)).tolist()
    assert [t.score for t in scores.tokens] == pytest.approx(direct, abs=1e-4)
    assert scores.text.strip() == "I agree with B because nitrogen dominates."


def test_a_sid_debate_runs_on_the_embedded_model(backend):
    question = Question(text="Which gas makes up most of Earth's air?", options=("Oxygen", "Nitrogen"), answer="B")
    config = DebateConfig(
        question=question,
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris")),
        protocol="sid",
        variant="sid",
        params={"answer_tokens": 24, "rounds": 2, "alpha": 0.01},  # a strict gate: the debate goes on
        max_new_tokens=24,
    )
    events = Debate(config, backend).run()
    measured = of_type(events, SignalsMeasured)
    assert measured and not measured[0].passed and measured[0].threshold == pytest.approx(0.01 * 10.8025, abs=1e-3)
    compressed = of_type(events, ContextCompressed)
    assert {e.agent for e in compressed} == {"Alex", "Chris"}
    assert all(0 < e.ratio <= 1 and e.layer == backend.loaded.model.config.num_hidden_layers - 1 for e in compressed)
    assert events[-1].reason.value == "rounds"
