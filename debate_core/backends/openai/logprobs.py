"""A server's ``logprobs`` turned into the signals the engine asks for, honestly.

What it does: from the ``logprobs.content`` entries of a chat completion (one
per generated token: the chosen token's log-probability and the ``top_logprobs``
alternatives), ``token_stats`` gives per token the negative log-likelihood of
the chosen token (exact, as the server reports it) and an **estimate** of the
next-token entropy from the top k alternatives: the top-k terms plus the rest
of the probability mass counted as one outcome. That is a lower bound of the
full distribution's entropy (equal when the top k hold all the mass), and is
declared as such on the completion (``entropy_top_k``). ``choice_probs`` gives,
for each choice, the probability of its first token at the first generated
position, matched by the token's text among the top k; a choice whose first
token is not among them gets 0 (its probability is below the smallest one
listed). ``checked_entries`` checks a chunk's entries as they arrive (a
logprob is a number, a token's text is text), so the signals never meet a
malformed one.

What it does not do: ask for logprobs (``backend``) or know which server
computed them from raw logits (``dialects``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from debate_core.errors import BackendError


def checked_entries(content: Any) -> list[Mapping[str, Any]]:
    """A chunk's ``logprobs.content`` (None: no entries), every field the signals read checked (``BackendError``)."""
    if content is None:
        return []
    entries = _entries(content)
    for entry in entries:
        _logprob(entry)
        token = entry.get("token")
        if token is not None and not isinstance(token, str):
            raise BackendError(f"a token's text is not text: {token!r:.60}")
        for alternative in _entries(entry.get("top_logprobs") or []):
            _logprob(alternative)
            if alternative.get("token") is not None and not isinstance(alternative.get("token"), str):
                raise BackendError(f"a top_logprobs token's text is not text: {alternative.get('token')!r:.60}")
    return entries


def _entries(content: Any) -> list[Mapping[str, Any]]:
    if not isinstance(content, list) or not all(isinstance(e, Mapping) for e in content):
        raise BackendError("logprobs are not a list of token entries")
    return content


def _logprob(entry: Mapping[str, Any]) -> float:
    value = entry.get("logprob")
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise BackendError(f"a token's logprob is not a number: {value!r:.60}")
    return max(float(value), -1e4) if math.isfinite(value) else -1e4


def entropy_estimate(top: Sequence[Mapping[str, Any]]) -> float:
    """Entropy (nats) of a distribution known by its top entries; the unlisted mass counts as one outcome."""
    probs = [math.exp(_logprob(e)) for e in top]
    listed = min(sum(probs), 1.0)
    terms = -sum(p * math.log(p) for p in probs if p > 0)
    rest = 1.0 - listed
    return terms - (rest * math.log(rest) if rest > 1e-12 else 0.0)


def token_stats(content: Any) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per generated token: NLL of the chosen token and the top-k entropy estimate."""
    entries = _entries(content)
    nll = tuple(-_logprob(e) for e in entries)
    entropy = tuple(entropy_estimate(_entries(e.get("top_logprobs") or [])) for e in entries)
    return nll, entropy


def choice_probs(content: Any, first_tokens: Mapping[str, str]) -> dict[str, float]:
    """P(choice) at the first generated position, by each choice's first token text (0 when not listed)."""
    entries = _entries(content)
    if not entries:
        return dict.fromkeys(first_tokens, 0.0)
    top = _entries(entries[0].get("top_logprobs") or [])
    by_text: dict[str, float] = {}
    for entry in top:
        text = entry.get("token")
        if isinstance(text, str) and text not in by_text:
            by_text[text] = math.exp(_logprob(entry))
    return {choice: by_text.get(token, 0.0) for choice, token in first_tokens.items()}
