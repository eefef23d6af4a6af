"""Key/value prefix reuse across turns: a small LRU of per-conversation caches.

What it does: an agent's plan prompt at turn t+1 repeats its prompt at turn t
up to the point where something changed (with the cache-friendly layout: the
whole static header and the history, since new lines are only appended).
``PrefixCache`` keeps, per ``cache_key`` (debate / agent / request kind), the
token ids of the last prompt and the model's key/value tensors for them. A new
prompt reuses the longest common token prefix, so only the tokens after it are
prefilled. Matching on token ids rather than on text makes reuse exact
whatever the prompt layout: with the paper's layout, where the remaining-token
count appears near the top, the reused prefix is simply short.

What it does not do: run the model, or share entries between different keys.
Entries hold tensors of shape ``[1, heads, tokens, head_dim]`` per layer.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

KV = list[tuple[Any, Any]]  # one (keys, values) pair of tensors per layer


@dataclass(frozen=True)
class CachedPrefix:
    token_ids: tuple[int, ...]
    kv: KV


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class PrefixCache:
    """At most ``max_entries`` conversations, least recently used evicted first."""

    def __init__(self, max_entries: int = 64) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, CachedPrefix] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def lookup(self, key: str | None, token_ids: Sequence[int]) -> tuple[int, KV | None]:
        """How many leading tokens are cached for ``key``, and their key/value tensors.

        At least one token is always left uncached, since the model must run on
        something to produce the next-token logits.
        """
        if key is None or self.max_entries <= 0:
            return 0, None
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return 0, None
            self._entries.move_to_end(key)
        usable = min(common_prefix_length(entry.token_ids, token_ids), len(token_ids) - 1)
        if usable <= 0:
            return 0, None
        return usable, [(k[:, :, :usable], v[:, :, :usable]) for k, v in entry.kv]

    def store(self, key: str | None, token_ids: Sequence[int], kv: KV) -> None:
        if key is None or self.max_entries <= 0:
            return
        with self._lock:
            self._entries[key] = CachedPrefix(tuple(token_ids), kv)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def forget(self, prefix: str) -> None:
        """Drop every entry whose key starts with ``prefix`` (e.g. a finished debate)."""
        with self._lock:
            for key in [k for k in self._entries if k.startswith(prefix)]:
                del self._entries[key]
