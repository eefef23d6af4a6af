"""Per-token statistics and choice probabilities from a model's raw next-token logits.

What it does:

* ``choice_token_ids(tokenizer, choices)``: the first token of each choice
  string (as the tokenizer encodes the string alone, without special tokens);
  raises ``CapabilityError`` when two choices share it, since their
  probabilities could then not be told apart by one forward pass.
* ``TokenStats``: for the rows that asked, the log-softmax of a step's raw
  logits (computed before the caller applies temperature or masks logits in
  place with a grammar bitmask), the entropy of that **full** distribution and,
  once a token is chosen, its negative log-likelihood; all in nats. Only rows
  that ask pay the O(vocabulary) cost.
* ``choice_probs(logits, ids)``: the softmax probabilities of the given token
  ids at one position.

What it does not do: sample, mask or run the model. torch is imported at
import time; the backend imports this module lazily.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from debate_core.errors import CapabilityError, ConfigError


def choice_token_ids(tokenizer: Any, choices: Sequence[str]) -> tuple[int, ...]:
    """The first token id of each choice; distinct, or ``CapabilityError``."""
    first: dict[int, str] = {}
    ids: list[int] = []
    for choice in choices:
        encoded = tokenizer.encode(choice, add_special_tokens=False)
        if not choice or not encoded:
            raise ConfigError(f"a choice must be a non-empty string, got {choice!r}")
        token = int(encoded[0])
        if token in first:
            piece = tokenizer.convert_ids_to_tokens(token)
            raise CapabilityError(
                f"choices {first[token]!r} and {choice!r} share their first token {piece!r}: "
                "their probabilities cannot be told apart at the first generated position"
            )
        first[token] = choice
        ids.append(token)
    return tuple(ids)


def choice_probs(logits: torch.Tensor, ids: Sequence[int]) -> list[float]:
    """Softmax probabilities of ``ids`` under the raw ``logits`` of one position (shape ``[V]``)."""
    probs = torch.softmax(logits.float(), dim=-1)
    return [float(p) for p in probs[list(ids)].tolist()]


class TokenStats:
    """The log-probabilities of one decode step, for the rows that asked for statistics."""

    __slots__ = ("_entropy", "_logp", "_where")

    def __init__(self, logits: torch.Tensor, rows: Sequence[int]) -> None:
        """``logits``: the step's raw logits ``[batch, V]``, before any in-place masking."""
        self._where = {row: j for j, row in enumerate(rows)}
        if rows:
            self._logp = torch.log_softmax(logits[list(rows)].float(), dim=-1)  # a copy: masking cannot touch it
            self._entropy = -(self._logp.exp() * self._logp).sum(dim=-1)
        else:
            self._logp = self._entropy = torch.empty(0)

    def __contains__(self, row: int) -> bool:
        return row in self._where

    def of(self, row: int, token: int) -> tuple[float, float]:
        """(negative log-likelihood of ``token``, entropy of the distribution) for ``row``."""
        j = self._where[row]
        return -float(self._logp[j, token]), float(self._entropy[j])
