"""SID's signals on the embedded model match a direct forward pass, its compression cuts a real short answer, and
a SID debate runs on it.

The backend's token statistics (NLL of the generated token, entropy of the full next-token
distribution) are compared with a plain forward pass over the prompt and the generated tokens; its
attention scores (recomputed from one layer's queries and keys, or every layer's, without building
the T x T matrix) with an eager-attention copy of the model asked for ``output_attentions``. Real
answers of this model (sampled by ``bench/sid_kept_spans.py``) are probed as round 2 probes them and
compressed at rho 0.4. Model work is bounded by tokens: a few generated tokens, two probes, one
short debate.
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
from protocols.sid.compression import CODE, PAPER, compress
from protocols.sid.events import ContextCompressed
from protocols.sid.forms import sid_forms
from protocols.sid.views import SidView
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


@pytest.mark.parametrize("all_layers", [False, True], ids=["last-layer", "all-layers"])
def test_attention_scores_match_an_eager_forward_pass(backend, all_layers):
    from transformers import AutoModelForCausalLM

    text = "Rules: [[ be brief and check item two ]] Alex: << I agree with B because nitrogen dominates. >>"
    query = AttentionQuery(rows=("<<", ">>"), cols=("[[", "]]"), layer=-1, all_layers=all_layers)
    request = ask(text, Signals(attention=query), 1)
    scores = backend.generate([request])[0].attention
    assert scores is not None and scores.layer == backend.loaded.model.config.num_hidden_layers - 1
    assert scores.all_layers is all_layers
    eager = AutoModelForCausalLM.from_pretrained(
        backend.loaded.model.name_or_path, attn_implementation="eager", dtype=torch.float32
    )
    prompt = tokenize_prompt(backend.loaded.tokenizer, request)
    with torch.no_grad():
        attentions = eager(input_ids=torch.tensor([prompt.ids]), output_attentions=True).attentions
    weights = torch.stack([a[0].float() for a in (attentions if all_layers else attentions[-1:])])  # [L, H, T, T]
    rows = tokens_in(prompt.offsets, span_between(prompt.text, query.rows))
    cols = tokens_in(prompt.offsets, span_between(prompt.text, query.cols))
    direct = weights[:, :, rows][:, :, :, cols].amax(dim=(0, 1, 3)).tolist()  # Eq. 5: max over layers, heads, q
    assert [t.score for t in scores.tokens] == pytest.approx(direct, abs=1e-4)
    assert scores.text.strip() == "I agree with B because nitrogen dominates."


# three answers of SmolLM2-135M-Instruct to SID's answer prompt (temperature 0.6, seeds 0-2, 128 new tokens)
ORGANELLE = Question(
    text="Which organelle produces most of a cell's ATP?",
    options=("Ribosome", "Nucleus", "Mitochondrion", "Golgi apparatus"),
    answer="C",
)
SAID = (
    ("Alex", 'The answer is "The answer is C) Nucleus"'),
    ("Chris", "The answer is indeed C) Mitochondrion."),
    (
        "Jenny",
        "To determine which organelle produces most of a cell's ATP, we need to consider the ATP synthesis process. "
        "Ribosome is the primary protein machine that carries out this process, and the mitochondria is the organelle "
        "responsible for this process. However, the ribosome represents the protein synthesis machinery in the "
        "mitochondria. Thus, the answer is A) Ribosome.",
    ),
)


def test_a_short_real_answer_is_compressed_at_rho_0_4(backend):
    """Alex's round-2 probe of Chris's and Jenny's answers (420 characters, 91 tokens): under the defaults (every
    layer, the paper's boundaries) about half is kept; the code's boundaries and the last layer keep more."""
    view = SidView(agent="Alex", question=ORGANELLE, round=2, own=SAID[0][1], others=SAID[1:])
    kept = {}
    for all_layers in (True, False):
        form = sid_forms(16, -1, measured=False, all_layers=all_layers).focus
        request = GenerationRequest(
            form.render(view), SamplingParams(0.0, 1, 0), "focus", "Alex", 2, None, None, signals=form.signals
        )
        scores = backend.generate([request])[0].attention
        assert scores is not None and len(scores.tokens) > 80
        for name, boundaries in (("paper", PAPER), ("code", CODE)):
            kept[("all" if all_layers else "last", name)] = compress(
                scores.text, scores.tokens, 0.4, boundaries=boundaries
            )
    print({key: round(c.ratio, 2) for key, c in kept.items()}, kept[("all", "paper")].text)
    assert kept[("all", "paper")].ratio < 0.7  # 0.55 on this machine: clearly less than the whole text
    assert kept[("all", "paper")].ratio < kept[("all", "code")].ratio  # commas and conjunctions cut finer
    assert kept[("all", "paper")].ratio < kept[("last", "paper")].ratio  # the last layer's top tokens spread wider


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
    last = backend.loaded.model.config.num_hidden_layers - 1
    assert all(0 < e.ratio <= 1 and e.layer == last and e.all_layers for e in compressed)  # Eq. 5: every layer
    assert events[-1].reason.value == "rounds"
