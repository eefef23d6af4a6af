"""A model's own signals about a reply, summarised: per-token NLL and entropy aggregated.

What it does: ``token_stats(completion)`` turns a completion's per-token
negative log-likelihoods and entropies (``Signals(token_stats=True)``) into
the eight aggregates SID uses (max, average, first and penultimate of each),
as a ``TokenStats`` record for a ``SignalsMeasured`` event. A completion of
one token uses that token for "penultimate"; one of none (an empty reply)
has no statistics: None, and the protocol decides what that means. A
completion that never asked for them is a programming error
(``ValueError``).

What it does not do: decide anything (a protocol compares the stats with its
threshold) or compute signals (backends do).
"""

from __future__ import annotations

from collections.abc import Sequence

from debate_core.backends.base import Completion
from debate_core.events.records import TokenStats


def _aggregate(values: Sequence[float]) -> tuple[float, float, float, float]:
    return max(values), sum(values) / len(values), values[0], values[-2] if len(values) > 1 else values[-1]


def token_stats(completion: Completion) -> TokenStats | None:
    """The eight aggregates of a completion's token statistics (None for an empty one)."""
    nll, entropy = completion.token_nll, completion.token_entropy
    if nll is None or entropy is None:
        raise ValueError("the completion carries no token statistics (ask with Signals(token_stats=True))")
    if not nll or not entropy:
        return None
    n_max, n_avg, n_first, n_pen = _aggregate(nll)
    e_max, e_avg, e_first, e_pen = _aggregate(entropy)
    return TokenStats(
        nll_max=n_max,
        nll_avg=n_avg,
        nll_first=n_first,
        nll_penultimate=n_pen,
        ent_max=e_max,
        ent_avg=e_avg,
        ent_first=e_first,
        ent_penultimate=e_pen,
        entropy_top_k=completion.entropy_top_k,
    )
