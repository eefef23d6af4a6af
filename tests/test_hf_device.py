"""The transformers backend's device and dtype choices, and that its tensors follow the model's device.

A GPU run (bench/gpu_check.py on CUDA) found no device bug; these keep it so on machines without
one. The dtype and device choices are checked with torch's CUDA and MPS queries patched. The
device-following checks run a tiny random Llama (built in the test, on the CPU) with PyTorch's
default device set to ``meta`` (shapes, no data): a tensor the decoder or the attention probe makes
without ``device=`` then lands on ``meta`` and fails, as it would on a GPU ("expected all tensors to
be on the same device"), and every tensor handed to the model is seen on the model's device.
No model files are read.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from debate_core.backends.base import AttentionQuery
from debate_core.backends.hf import attention
from debate_core.backends.hf.decoding import BatchDecoder, Row
from debate_core.backends.hf.loading import pick_device, pick_dtype
from debate_core.backends.hf.prefix_cache import PrefixCache
from debate_core.backends.hf.prompt import TokenizedPrompt
from debate_core.errors import ConfigError

# -- dtype and device choice -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("device", "bf16", "expected"),
    [
        ("cuda", True, torch.bfloat16),
        ("cuda:1", True, torch.bfloat16),
        ("cuda", False, torch.float16),  # pre-Ampere GPUs
        ("mps", True, torch.float16),
        ("cpu", True, torch.float32),  # greedy results independent of batching
    ],
)
def test_the_dtype_is_chosen_per_device(monkeypatch, device, bf16, expected):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)
    assert pick_dtype(None, device) is expected


def test_a_named_dtype_wins_and_an_unknown_one_is_refused():
    assert pick_dtype("float32", "cuda") is torch.float32
    assert pick_dtype("float16", "cpu") is torch.float16
    with pytest.raises(ConfigError, match="unknown dtype"):
        pick_dtype("float33", "cuda")
    with pytest.raises(ConfigError, match="unknown dtype"):
        pick_dtype("cuda", "cuda")  # a torch attribute, but not a dtype


def test_the_device_is_cuda_then_mps_then_cpu_unless_named(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pick_device(None) == "cuda"
    assert pick_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert pick_device(None) == "mps"
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert pick_device(None) == "cpu"


# -- tensors follow the model's device ---------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_model() -> Any:
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=96,
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,  # grouped-query attention, as SmolLM2 and Llama 3 have
        head_dim=4,
        max_position_embeddings=256,
    )
    torch.manual_seed(0)
    return LlamaForCausalLM(config).eval()


@pytest.fixture
def seen(tiny_model) -> Any:
    """The devices of every tensor argument the model's forward is called with; the work runs with meta as default."""
    devices: set[str] = set()

    def record(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        devices.update(v.device.type for v in [*args, *kwargs.values()] if isinstance(v, torch.Tensor))

    handle = tiny_model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        with torch.inference_mode(), torch.device("meta"):  # a tensor made without device= lands on meta
            yield devices
    finally:
        handle.remove()


def test_the_decoder_makes_every_tensor_on_the_models_device(tiny_model, seen):
    cache = PrefixCache(max_entries=4)
    decoder = BatchDecoder(tiny_model, {2}, cache)
    rows = [
        Row([5, 6, 7, 8, 9], 3, temperature=0.0, seed=None, cache_key="d/a", token_stats=True),
        Row([5, 6, 7], 3, temperature=0.7, seed=1, cache_key="d/b", choice_ids=(3, 4)),
    ]
    decoder.run(rows)  # left padding, fillers, a seeded generator, token statistics, choice probabilities
    again = Row(prompt_ids=[5, 6, 7, 8, 9, 10], max_new_tokens=2, temperature=0.0, seed=None, cache_key="d/a")
    decoder.run([again])  # from the cached prefix
    assert [len(r.generated) for r in rows] == [3, 3] and len(rows[0].nll) == 3 and rows[1].choice_probs
    assert again.cached_tokens == 5
    assert seen == {"cpu"}


def test_the_attention_probe_makes_every_tensor_on_the_models_device(tiny_model, seen):
    text = "ab[cdefg]hijk<lmnopqrstu>vw"  # one character per token: the columns c..g, the rows l..u
    prompt = TokenizedPrompt(text, list(range(10, 10 + len(text))), [(i, i + 1) for i in range(len(text))])

    def scores(**query: Any) -> list[float]:
        made = attention.attention_scores(tiny_model, prompt, AttentionQuery(("<", ">"), ("[", "]"), **query))
        assert made.text == "lmnopqrstu" and len(made.tokens) == 10
        assert all(0.0 < t.score <= 1.0 for t in made.tokens)
        return [t.score for t in made.tokens]

    last, first = scores(layer=-1), scores(layer=0)  # one layer: the pass stops after it
    every = scores(all_layers=True)  # every layer scored in its hooks, one prefill
    assert every == pytest.approx([max(a, b) for a, b in zip(first, last, strict=True)])
    assert seen == {"cpu"}


def test_the_probes_own_rotary_embedding_is_made_on_the_models_device(tiny_model, seen):
    attn = attention._attention_module(tiny_model, 1)  # a layer not handed its cos/sin: the probe makes them
    hidden = torch.randn(1, 6, 16, generator=torch.Generator().manual_seed(0), device="cpu")
    q_out, k_out = attn.q_proj(hidden), attn.k_proj(hidden)
    positions = torch.arange(6, device="cpu").unsqueeze(0)
    handed = attention._rotated(tiny_model, attn, q_out, k_out, tiny_model.model.rotary_emb(q_out, positions), 6)
    q, k = attention._rotated(tiny_model, attn, q_out, k_out, None, 6)
    assert q.shape == (1, 4, 6, 4) and k.shape == (1, 2, 6, 4)  # [1, heads, tokens, head_dim], RoPE applied
    assert q.device.type == k.device.type == "cpu"
    assert torch.equal(q, handed[0]) and torch.equal(k, handed[1])
