"""Attention scores between marked spans of a prompt, from one layer or all, in one prefill-only pass.

What it does: ``attention_scores(model, prompt, query)`` finds the query's
marker strings in the chat-templated prompt (character offsets from the fast
tokenizer map them to tokens), runs the model forward **once, without a
cache** (only up to the chosen layer, or through every layer with the
query's ``all_layers``), and captures each scored layer's query and key
projections with forward hooks (and the rotary cos/sin the model passes the
layer). It then recomputes just the attention rows it needs:

1. RoPE (the model's own ``apply_rotary_pos_emb`` and rotary embedding),
   query/key norms where the architecture has them (Qwen3), key heads
   repeated for grouped-query attention;
2. for each **row token** (strictly between the row markers; a token that
   straddles a marker is included, its offsets clipped to the span) the
   scaled dot products with every key up to and including itself (a causal
   mask, and the sliding window when the layer has one), softmax over all of
   them, so the weights are the model's true attention probabilities;
3. its score: the maximum, over heads and over the **column tokens**, of its
   weight on them; with ``all_layers``, the maximum over every layer too
   (each layer's rows are scored inside its hook and folded into a running
   maximum, so one layer's queries and keys are held at a time).

Memory is bounded by ``heads x ROW_CHUNK x tokens`` for one layer: no
``T x T`` matrix is built, no layer is switched to eager attention, nothing
is cached.

Supported: Llama, Mistral, Qwen2 and Qwen3 style attention (``q_proj`` /
``k_proj`` / RoPE, with or without grouped-query attention). Other
architectures raise ``CapabilityError``.

What it does not do: generate, touch the prefix cache, or choose markers.
torch is imported at import time; the backend imports this module lazily.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import torch

from debate_core.backends.base import AttentionQuery, AttentionScores, ScoredSpan, span_between
from debate_core.backends.hf.prompt import TokenizedPrompt
from debate_core.errors import BackendError, CapabilityError, ConfigError

SUPPORTED_TYPES = frozenset({"llama", "mistral", "qwen2", "qwen3"})
ROW_CHUNK = 256


class _Captured(Exception):
    """Raised from a hook to stop the forward pass once the layer's keys are captured."""


def tokens_in(offsets: Sequence[tuple[int, int]], span: tuple[int, int]) -> list[int]:
    """Indices of the tokens that overlap ``span`` (empty-offset special tokens excluded)."""
    start, end = span
    return [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]


def resolve_layer(model: Any, layer: int) -> int:
    count = int(model.config.num_hidden_layers)
    index = layer + count if layer < 0 else layer
    if not 0 <= index < count:
        raise ConfigError(f"attention layer {layer} is out of range for a model with {count} layers")
    return index


def _attention_module(model: Any, index: int) -> Any:
    model_type = getattr(model.config, "model_type", "?")
    layers = getattr(getattr(model, "model", None), "layers", None)
    attn = getattr(layers[index], "self_attn", None) if layers is not None else None
    if (
        model_type not in SUPPORTED_TYPES
        or attn is None
        or not hasattr(attn, "q_proj")
        or not hasattr(attn, "k_proj")
        or not hasattr(sys.modules.get(type(attn).__module__), "apply_rotary_pos_emb")
    ):
        raise CapabilityError(
            f"attention scores are implemented for {', '.join(sorted(SUPPORTED_TYPES))} style models "
            f"(q_proj/k_proj with rotary embeddings); this model is {model_type!r}"
        )
    return attn


def attention_scores(model: Any, prompt: TokenizedPrompt, query: AttentionQuery) -> AttentionScores:
    """Score the row span's tokens by their attention to the column span's tokens (see the module doc)."""
    rows_span, cols_span = span_between(prompt.text, query.rows), span_between(prompt.text, query.cols)
    if rows_span is None or cols_span is None:
        raise BackendError(f"attention markers {query.rows} / {query.cols} are not in the prompt")
    index = resolve_layer(model, -1 if query.all_layers else query.layer)
    layers = list(range(index + 1)) if query.all_layers else [index]
    modules = [_attention_module(model, i) for i in layers]
    rows = tokens_in(prompt.offsets, rows_span)
    cols = tokens_in(prompt.offsets, cols_span)
    text = prompt.text[rows_span[0] : rows_span[1]]
    if not rows:
        return AttentionScores(text=text, tokens=(), layer=index, all_layers=query.all_layers)
    if not cols:
        raise BackendError(f"no token lies between the attention column markers {query.cols}")
    ids = prompt.ids[: max(rows[-1], cols[-1]) + 1]  # later tokens change nothing here
    scores = _scores(model, modules, ids, rows, cols)
    start, end = rows_span
    tokens = tuple(
        ScoredSpan(max(prompt.offsets[i][0], start) - start, min(prompt.offsets[i][1], end) - start, score)
        for i, score in zip(rows, scores, strict=True)
    )
    return AttentionScores(text=text, tokens=tokens, layer=index, all_layers=query.all_layers)


def _window(model: Any, attn: Any) -> int | None:
    if hasattr(attn, "sliding_window"):  # Qwen2/Qwen3: per layer
        return attn.sliding_window  # type: ignore[no-any-return]
    return getattr(model.config, "sliding_window", None)  # Mistral: the whole model


@torch.inference_mode()
def _scores(model: Any, modules: Sequence[Any], ids: list[int], rows: list[int], cols: list[int]) -> list[float]:
    """Each row token's score: its maximum over ``modules``' layers (one or all), each layer scored inside its
    key projection's hook from that layer's queries and keys, RoPE applied; the pass stops after the last one."""
    device = next(model.parameters()).device
    best: torch.Tensor | None = None
    handles = []

    def hooks(attn: Any, last: bool) -> None:
        seen: dict[str, Any] = {}

        def before(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            seen["position_embeddings"] = kwargs.get("position_embeddings")

        def on_q(_module: Any, _args: Any, output: torch.Tensor) -> None:
            seen["q"] = output

        def on_k(_module: Any, _args: Any, output: torch.Tensor) -> None:
            nonlocal best
            if "q" not in seen:
                raise CapabilityError(f"could not capture the attention projections of {type(attn).__name__}")
            q, k = _rotated(model, attn, seen["q"], output, seen.get("position_embeddings"), len(ids))
            layer = _row_scores(attn, q, k, rows, cols, _window(model, attn))
            best = layer if best is None else torch.maximum(best, layer)
            seen.clear()
            if last:
                raise _Captured

        handles.extend(
            [
                attn.register_forward_pre_hook(before, with_kwargs=True),
                attn.q_proj.register_forward_hook(on_q),
                attn.k_proj.register_forward_hook(on_k),
            ]
        )

    for position, attn in enumerate(modules):
        hooks(attn, position == len(modules) - 1)
    try:
        model(input_ids=torch.tensor([ids], device=device), use_cache=False, logits_to_keep=1)
    except _Captured:
        pass
    finally:
        for handle in handles:
            handle.remove()
    if best is None:
        raise CapabilityError(f"could not capture the attention projections of {type(modules[-1]).__name__}")
    return [float(s) for s in best.tolist()]


def _rotated(
    model: Any, attn: Any, q_out: torch.Tensor, k_out: torch.Tensor, cos_sin: Any, size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """The layer's queries ``[1, H, T, D]`` and keys ``[1, KV, T, D]`` from its projections, RoPE applied."""
    head_dim = int(attn.head_dim)
    q = q_out.view(1, size, -1, head_dim)
    k = k_out.view(1, size, -1, head_dim)
    if hasattr(attn, "q_norm"):  # Qwen3 normalises each head before RoPE
        q, k = attn.q_norm(q), attn.k_norm(k)
    q, k = q.transpose(1, 2), k.transpose(1, 2)
    if cos_sin is None:
        rotary = getattr(model.model, "rotary_emb", None)
        if rotary is None:
            raise CapabilityError(f"{type(attn).__name__} gets no rotary embeddings this code can reproduce")
        cos_sin = rotary(q, torch.arange(size, device=q.device).unsqueeze(0))
    cos, sin = cos_sin
    rope = sys.modules[type(attn).__module__].apply_rotary_pos_emb
    q, k = rope(q, k, cos, sin)
    return q, k


@torch.inference_mode()
def _row_scores(
    attn: Any, q: torch.Tensor, k: torch.Tensor, rows: list[int], cols: list[int], window: int | None
) -> torch.Tensor:
    """One layer's score per row token (float32, on the model's device)."""
    heads, kv_heads = q.shape[1], k.shape[1]
    keys = k[0].float().repeat_interleave(heads // kv_heads, dim=0)  # [H, T, D], as repeat_kv does
    scaling = float(attn.scaling)
    key_positions = torch.arange(keys.shape[1], device=keys.device)
    col_index = torch.tensor(cols, device=keys.device)
    scores: list[torch.Tensor] = []
    for begin in range(0, len(rows), ROW_CHUNK):
        chunk = torch.tensor(rows[begin : begin + ROW_CHUNK], device=keys.device)
        queries = q[0].float()[:, chunk]  # [H, R, D]
        logits = torch.matmul(queries, keys.transpose(1, 2)) * scaling  # [H, R, T]
        hidden = key_positions[None, :] > chunk[:, None]
        if window is not None:
            hidden |= key_positions[None, :] <= chunk[:, None] - window
        logits = logits.masked_fill(hidden[None], float("-inf"))
        weights = torch.softmax(logits, dim=-1)[:, :, col_index]  # [H, R, C]
        scores.append(weights.amax(dim=(0, 2)))
    return torch.cat(scores)
