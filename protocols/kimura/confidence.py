"""Urgency from the model's measured confidence (beyond the paper; the SID issue's option).

What it does: with the parameter ``urgency`` set to ``confidence`` or
``both``, every model plan is generated with its token statistics
(``Signals(token_stats=True)``), and ``measured_urgency(stats, vocab)`` turns
them into an urgency on the plan's own 0-9 scale: ``round(9 * (1 - s /
ln|V|))`` with s = max(NLL average, entropy average) over the plan's tokens,
so a plan the model wrote without hesitation is urgent and one it hesitated
over is not (ln|V| is the largest entropy a next-token distribution can
have). Averages, not SID's maxima: a plan is decoded under its JSON grammar,
and the tokens the grammar forces (``{"``, the field names) can be ones the
raw model would never write, with an NLL near ln|V|; their maximum would make
every plan look unsure (on SmolLM2 every measured urgency came out 0).
``effective(stated, measured, mode)`` is the urgency the turn rule then
uses: the measured one (``confidence``) or the rounded mean of both
(``both``). The plan as the model stated it stays on the ``PlansMade``
event; a ``SignalsMeasured`` per plan records the statistics, the measured
urgency and the one used (``rule``), with ``passed`` meaning confident by
SID's alpha rule applied to the averages (s <= 0.5 ln|V|, the ``threshold``).

What it does not do: choose the speaker (``rules``) or change a person's
plan (a person has no token statistics: their stated urgency stands).
"""

from __future__ import annotations

import math
from typing import Literal

from debate_core.events.records import TokenStats

UrgencyMode = Literal["stated", "confidence", "both"]
CONFIDENT = 0.5  # SID's alpha for general-purpose models


def measured_urgency(stats: TokenStats, vocab_size: int) -> tuple[int, float, float]:
    """(urgency 0-9, the score s, ln|V|) for a plan's token statistics."""
    ceiling = math.log(vocab_size)
    score = max(stats.nll_avg, stats.ent_avg)
    return round(9 * (1 - min(1.0, score / ceiling))), score, ceiling


def effective(stated: int, measured: int, mode: UrgencyMode) -> int:
    """The urgency the turn rule uses."""
    if mode == "confidence":
        return measured
    if mode == "both":
        return math.floor((stated + measured) / 2 + 0.5)
    return stated
