"""The numbers bench/classroom.py prints: latencies from each disclosure to a page, their percentiles, one line.

``latencies`` pairs the engine's disclosures (text, wall-clock time, in order) with when a page first had each
copy of each text, leaving out what was disclosed before the page's first update; ``percentiles`` gives p50,
p95 and the maximum (nearest rank); ``quarters`` the first and the last quarter of a debate's sentences;
``Outcome`` holds one classroom's figures and ``report`` writes them as the bench's line (with the machine's
load average).

It does not measure anything itself: no clients, no app, no store (bench/classroom_clients.py,
bench/app_process.py, bench/classroom.py). Checked by tests/test_classroom_bench.py.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass


def latencies(disclosed: Sequence[tuple[str, float]], first: dict[tuple[str, int], float], since: float) -> list:
    """Per disclosure (text, engine time) in order: seconds until the client had it, None if never; a
    disclosure before ``since`` (the client's first update) is left out (None too)."""
    copies: Counter[str] = Counter()
    found: list[float | None] = []
    for text, at in disclosed:
        copies[text.strip()] += 1
        seen = first.get((text.strip(), copies[text.strip()]))
        found.append(seen - at if seen is not None and at >= since else None)
    return found


def percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    """p50, p95 and the maximum (nearest rank), in the values' unit; NaN for none."""
    if not values:
        return (float("nan"),) * 3
    ordered = sorted(values)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]

    return rank(0.5), rank(0.95), ordered[-1]


def quarters(count: int) -> tuple[range, range]:
    """The indices of the first and of the last quarter of ``count`` disclosures."""
    size = max(1, count // 4)
    return range(0, min(size, count)), range(max(0, count - size), count)


@dataclass
class Outcome:
    """One classroom's figures, every debate's pages pooled, as ``report`` writes them."""

    viewers: int
    first: tuple[float, float, float]
    last: tuple[float, float, float]
    arrived: int
    expected: int
    sentences: int
    cpu: float
    wall: float
    updates: int
    client_cpu: float = 0.0  # this bench's own CPU over the debate (its clients must not be what is slow)
    debates: int = 1
    seated: int = 0  # per debate
    worst: tuple[float, float] = (math.nan, math.nan)  # the worst debate's p95, first and last quarter
    presses: int = 0
    accepted: int = 0
    asked: int = 0  # the requests the seated people answered
    sent: int = 0  # of which the debate took


def report(outcome: Outcome) -> str:
    """The bench's line for one classroom: who, the latencies per quarter, what arrived, the server's CPU, the load."""

    def ms(values: tuple[float, float, float]) -> str:
        return "p50 {:.0f} / p95 {:.0f} / max {:.0f} ms".format(*values)

    who = f"{outcome.viewers:>3} viewers" + (f" + {outcome.seated} seated" if outcome.seated else "")
    if outcome.debates > 1:
        who = f"{outcome.debates} debates × {who.strip()}"
    worst = (
        " · the worst debate's p95 {:.0f} / {:.0f} ms (first / last quarter)".format(*outcome.worst)
        if outcome.debates > 1
        else ""
    )
    seats = (
        f" · presses accepted {outcome.accepted}/{outcome.presses} · requests answered {outcome.sent}/{outcome.asked}"
        if outcome.seated
        else ""
    )
    return (
        f"{who} · {outcome.sentences} sentences · first quarter {ms(outcome.first)} · "
        f"last quarter {ms(outcome.last)}{worst} · arrived {outcome.arrived}/{outcome.expected} · "
        f"{outcome.updates} updates{seats} · server CPU {100 * outcome.cpu / max(outcome.wall, 1e-9):.0f} % of a core "
        f"({1000 * outcome.cpu / max(outcome.updates, 1):.1f} ms per page update, heartbeats included) "
        f"over {outcome.wall:.0f} s (the clients' {100 * outcome.client_cpu / max(outcome.wall, 1e-9):.0f} %) · "
        f"load average {os.getloadavg()[0]:.2f}"
    )
