"""Batched decoding with prefix reuse, grammar constraints, token statistics and cancellation.

What it does: ``BatchDecoder.run(rows)`` generates one completion per ``Row``
in a single left-padded batch:

1. **Prefill** each row on its own, starting from the longest cached prefix of
   its prompt (``PrefixCache``), so only new tokens are computed; the prompt's
   key/values are stored back for the next turn. A row's prompt may end with
   the tokens of a partial assistant reply (continuation); its grammar matcher
   then accepts them first. Choice probabilities are read off the prefill's
   last logits.
2. **Merge** the rows' key/value caches into one batch, left-padded with an
   attention mask, and decode step by step. Each row keeps its own positions,
   sampling generator (seeded per request) and, when it has a JSON schema, its
   own XGrammar matcher, whose token bitmask masks the logits before sampling.
   Rows that asked for token statistics get them from the raw logits, before
   the bitmask is applied in place.
3. A row stops at an end-of-sequence token, when its grammar terminates, at
   its ``max_new_tokens``, or when its cancel token is set (checked before its
   prefill and at every step; it keeps the tokens it had); finished rows leave
   the batch.

Greedy decoding (temperature 0) of a row in a batch gives the same tokens as
decoding it alone: prefill is per row in both cases, padding is masked out,
and decoding never runs with fewer than ``min_rows`` rows (tests check this).

What it does not do: load models, tokenize chat messages, or know about the
debate. torch is imported at import time; the backend imports this module
lazily.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
from transformers import DynamicCache

from debate_core.backends.base import FinishReason
from debate_core.backends.hf.prefix_cache import KV, PrefixCache
from debate_core.backends.hf.signals import TokenStats, choice_probs
from debate_core.errors import ConfigError


@dataclass
class Row:
    """One request inside a batch, with its decoding state."""

    prompt_ids: list[int]
    max_new_tokens: int
    temperature: float
    seed: int | None
    cache_key: str | None = None
    grammar: Any = None  # xgrammar.CompiledGrammar or None
    prefix_ids: list[int] = field(default_factory=list)  # the assistant prefix, last in prompt_ids
    token_stats: bool = False
    choice_ids: tuple[int, ...] = ()
    cancel: Any = None  # a CancelToken or None
    cached_tokens: int = 0
    generated: list[int] = field(default_factory=list)
    nll: list[float] = field(default_factory=list)
    entropy: list[float] = field(default_factory=list)
    choice_probs: list[float] | None = None
    finish_reason: FinishReason = "length"
    done: bool = False
    matcher: Any = None
    generator: Any = None

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and bool(self.cancel.cancelled)

    def stop(self, reason: FinishReason) -> None:
        self.done, self.finish_reason = True, reason


def _sample(row: Row, logits: torch.Tensor) -> int:
    if row.temperature <= 0:
        return int(torch.argmax(logits).item())
    probs = torch.softmax(logits / row.temperature, dim=-1)
    return int(torch.multinomial(probs, 1, generator=row.generator).item())


class BatchDecoder:
    """Decodes batches for one loaded model; holds what does not change per batch."""

    def __init__(self, model: Any, eos_ids: set[int], prefix_cache: PrefixCache, min_rows: int = 4) -> None:
        self.model = model
        self.eos_ids = eos_ids
        self.prefix_cache = prefix_cache
        self.min_rows = min_rows
        self.device = next(model.parameters()).device

    # -- public ---------------------------------------------------------------
    @torch.inference_mode()
    def run(self, rows: list[Row]) -> None:
        """Fill each row's ``generated``, ``finish_reason``, ``cached_tokens`` and signals."""
        for row in rows:
            if row.grammar is not None:
                import xgrammar as xgr

                row.matcher = xgr.GrammarMatcher(row.grammar)
                for token in row.prefix_ids:
                    if not row.matcher.accept_token(token):
                        raise ConfigError("the assistant prefix does not follow the request's JSON schema")
            if row.temperature > 0:
                row.generator = torch.Generator(device=self.device)
                row.generator.manual_seed(row.seed if row.seed is not None else torch.seed())
        live: list[Row] = []
        first_logits: list[torch.Tensor] = []
        caches: list[KV] = []
        for row in rows:
            if row.cancelled:
                row.stop("cancelled")
                continue
            logits, kv = self._prefill(row)
            if row.choice_ids:
                row.choice_probs = choice_probs(logits, row.choice_ids)
            live.append(row)
            first_logits.append(logits)
            caches.append(kv)
        if live:
            self._decode(live, torch.stack(first_logits), caches)

    # -- steps ------------------------------------------------------------------
    def _prefill(self, row: Row) -> tuple[torch.Tensor, KV]:
        cached, past_kv = self.prefix_cache.lookup(row.cache_key, row.prompt_ids)
        row.cached_tokens = cached
        past = DynamicCache(ddp_cache_data=past_kv) if past_kv else None
        new = row.prompt_ids[cached:]
        input_ids = torch.tensor([new], device=self.device)
        positions = torch.arange(cached, len(row.prompt_ids), device=self.device).unsqueeze(0)
        out = self.model(
            input_ids=input_ids,
            past_key_values=past,
            position_ids=positions,
            use_cache=True,
            logits_to_keep=1,
        )
        kv = [(layer.keys, layer.values) for layer in out.past_key_values.layers]
        self.prefix_cache.store(row.cache_key, row.prompt_ids, kv)
        return out.logits[0, -1].float(), kv

    def _merge(self, caches: list[KV], lengths: list[int]) -> tuple[DynamicCache, torch.Tensor]:
        width = max(lengths)
        layers = []
        for layer in range(len(caches[0])):
            keys, values = [], []
            for kv, length in zip(caches, lengths, strict=True):
                k, v = kv[layer]
                pad = width - length
                if pad:
                    k = torch.nn.functional.pad(k, (0, 0, pad, 0))
                    v = torch.nn.functional.pad(v, (0, 0, pad, 0))
                keys.append(k)
                values.append(v)
            layers.append((torch.cat(keys), torch.cat(values)))
        mask = torch.zeros((len(lengths), width), dtype=torch.long, device=self.device)
        for i, length in enumerate(lengths):
            mask[i, width - length :] = 1
        return DynamicCache(ddp_cache_data=layers), mask

    def _choose(self, rows: list[Row], logits: torch.Tensor) -> list[int]:
        """Check cancellation, take statistics, mask by grammar, sample, advance matchers, mark finished rows."""
        for row in rows:
            if not row.done and row.cancelled:
                row.stop("cancelled")
        stats = TokenStats(logits, [i for i, row in enumerate(rows) if row.token_stats and not row.done])
        constrained = [i for i, row in enumerate(rows) if row.matcher is not None and not row.done]
        if constrained:
            import xgrammar as xgr

            bitmask = xgr.allocate_token_bitmask(len(rows), logits.shape[-1])
            for i in constrained:
                rows[i].matcher.fill_next_token_bitmask(bitmask, i)
            xgr.apply_token_bitmask_inplace(logits, bitmask.to(logits.device), indices=constrained)
        tokens = []
        for i, row in enumerate(rows):
            if row.done:  # a filler: feed anything, ignore the result
                tokens.append(0)
                continue
            token = _sample(row, logits[i])
            tokens.append(token)
            if row.matcher is not None:
                if not row.matcher.accept_token(token):
                    raise RuntimeError(f"grammar rejected its own allowed token {token}")
                if row.matcher.is_terminated():
                    row.stop("stop")
                    continue
            if token in self.eos_ids and row.matcher is None:
                row.stop("stop")
                continue
            row.generated.append(token)
            if row.cancel is not None:
                row.cancel.advance()
            if i in stats:
                nll, entropy = stats.of(i, token)
                row.nll.append(nll)
                row.entropy.append(entropy)
            if len(row.generated) >= row.max_new_tokens:
                row.done = True
        return tokens

    def _decode(self, rows: list[Row], logits: torch.Tensor, caches: list[KV]) -> None:
        # Matrix kernels pick their algorithm by the number of rows, and different
        # algorithms round differently. Decoding never runs with fewer than
        # ``min_rows`` rows (fillers copy the first row and are ignored), so a
        # request decodes with the same kernels alone or in a small batch, and
        # greedy results do not depend on batching.
        fillers = max(0, self.min_rows - len(rows))
        if fillers:
            filler = Row(prompt_ids=rows[0].prompt_ids, max_new_tokens=0, temperature=0.0, seed=None)
            filler.done = True
            rows = rows + [filler] * fillers
            caches = caches + [caches[0]] * fillers
            logits = torch.cat([logits, logits[:1].expand(fillers, -1)])
        lengths = [len(row.prompt_ids) for row in rows]
        cache, mask = self._merge(caches, lengths)
        positions = torch.tensor(lengths, device=self.device)
        active = list(range(len(rows)))
        tokens = self._choose(rows, logits)
        while True:
            keep = [j for j, i in enumerate(active) if not rows[i].done]
            if not keep:
                return
            if len(keep) < self.min_rows:  # keep finished rows as fillers
                keep += [j for j, i in enumerate(active) if rows[i].done][: self.min_rows - len(keep)]
                keep.sort()
            if len(keep) < len(active):
                index = torch.tensor(keep, device=self.device)
                cache.batch_select_indices(index)
                mask, positions = mask[index], positions[index]
                tokens = [tokens[j] for j in keep]
                active = [active[j] for j in keep]
            mask = torch.cat([mask, mask.new_ones((len(active), 1))], dim=1)
            out = self.model(
                input_ids=torch.tensor(tokens, device=self.device).unsqueeze(1),
                attention_mask=mask,
                position_ids=positions.unsqueeze(1),
                past_key_values=cache,
                use_cache=True,
            )
            cache = out.past_key_values
            positions = positions + 1
            tokens = self._choose([rows[i] for i in active], out.logits[:, -1].float())
