"""HandRaiser's results in the shape of the paper's Table 6: success and cost per listener policy.

What it does: ``policy_rows(store, runs)`` folds every finished HandRaiser
debate of a comparison study with ``handraiser.cost`` and gives, per system
(``handraiser/<policy>[:overrides]``): the success rate with n and a 95%
Wilson interval, the paper's mean cost (and its standard deviation), what the
backend really generated and the prompt tokens it computed, seconds per
debate, statements (messages) and interruptions per debate, the share of
statements cut after their first chunk, and where interruptions fell (chunk
histogram). ``tau_sweep`` picks the threshold systems (``tau=...``) for the
sweep plot. ``section`` writes the report's Markdown section and
``figures`` the plotly figures (chunk histogram, tau sweep) that the report
saves as HTML and PNG and the Analysis tab shows.

What it does not do: run debates (``compare``) or read the store's other
studies.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import plotly.graph_objects as go

from debate_core.events import UtteranceGenerated
from experiments.accuracy import Accuracy
from experiments.extensions import ReportSection, Section
from experiments.workers import finished_debates
from protocols.handraiser.cost import Cost, debate_cost
from storage import Store
from storage.experiments import RunRecord

PREFIX = "handraiser/"


@dataclass
class PolicyRow:
    system: str
    success: Accuracy
    cost: float
    cost_sd: float
    generated: float
    prompt_computed: float
    wall_s: float
    messages: float
    interruptions: float
    first_chunk_rate: float | None
    chunks: Counter[int] = field(default_factory=Counter)

    @property
    def tau(self) -> float | None:
        _, _, tail = self.system.partition(":")
        for pair in tail.split(","):
            key, _, value = pair.partition("=")
            if key.strip() == "tau":
                try:
                    return float(value)
                except ValueError:
                    return None
        return None


def policy_rows(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[PolicyRow]:
    """One row per HandRaiser system, in the study's order (see the module docstring)."""
    folded: dict[str, list[tuple[bool, Cost, int]]] = {s: [] for s in systems if s.startswith(PREFIX)}
    for run, events, end in finished_debates(store, runs, folded.__contains__):
        long = [e for e in events if isinstance(e, UtteranceGenerated) and e.kind == "statement" and len(e.units) > 1]
        folded[run.condition].append((bool(end.correct), debate_cost(events), len(long)))
    rows = []
    for system, found in folded.items():
        if not found:
            continue
        costs = [c for _, c, _ in found]
        chunks: Counter[int] = Counter(k for c in costs for k in c.interrupt_chunks)
        long_statements = sum(n for _, _, n in found)
        listened = any(c.decision_tokens for c in costs)
        totals = [c.total for c in costs]
        rows.append(
            PolicyRow(
                system=system,
                success=Accuracy(sum(1 for ok, *_ in found if ok), len(found)),
                cost=statistics.fmean(totals),
                cost_sd=statistics.stdev(totals) if len(totals) > 1 else 0.0,
                generated=statistics.fmean(c.generated_tokens for c in costs),
                prompt_computed=statistics.fmean(c.prompt_tokens_computed for c in costs),
                wall_s=statistics.fmean(c.wall_time_s for c in costs),
                messages=statistics.fmean(c.statements for c in costs),
                interruptions=statistics.fmean(c.interruptions for c in costs),
                first_chunk_rate=chunks.get(1, 0) / long_statements if long_statements and listened else None,
                chunks=chunks,
            )
        )
    return rows


def section(rows: Sequence[PolicyRow]) -> list[str]:
    """The report's Markdown lines for the HandRaiser systems."""
    if not rows:
        return []
    lines = [
        "## HandRaiser: success and cost per listener policy (the shape of the paper's Table 6)",
        "",
        "Cost is the paper's: every token the agents generated until the end, a cut statement only up to "
        "the cut, one token per moderator decision. Generated is what the backend really produced (whole "
        "statements, decisions); prompt is what it computed (not served from its prefix cache).",
        "",
        "| system | success (n, 95% CI) | cost (sd) | generated | prompt computed | s per debate | messages "
        "| interruptions | cut after chunk 1 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        first = "-" if r.first_chunk_rate is None else f"{100 * r.first_chunk_rate:.0f}%"
        lines.append(
            f"| {r.system} | {r.success} | {r.cost:,.1f} ({r.cost_sd:,.1f}) | {r.generated:,.0f} "
            f"| {r.prompt_computed:,.0f} | {r.wall_s:.1f} | {r.messages:.2f} | {r.interruptions:.2f} | {first} |"
        )
    histogram = sorted({k for r in rows for k in r.chunks})
    if histogram:
        lines += [
            "",
            "### Where the moderator cut in (interruptions after chunk k)",
            "",
            "| system | " + " | ".join(f"k={k}" for k in histogram) + " |",
            "|---|" + "---|" * len(histogram),
        ]
        lines += [f"| {r.system} | " + " | ".join(str(r.chunks.get(k, 0)) for k in histogram) + " |" for r in rows]
    sweep = tau_sweep(rows)
    if sweep:
        lines += ["", "### Threshold sweep", "", "| tau | success | cost |", "|---|---|---|"]
        lines += [f"| {r.tau:g} | {r.success} | {r.cost:,.1f} |" for r in sweep if r.tau is not None]
    return [*lines, ""]


def tau_sweep(rows: Sequence[PolicyRow]) -> list[PolicyRow]:
    return sorted((r for r in rows if r.system.startswith(PREFIX + "threshold") and r.tau is not None),
                  key=lambda r: r.tau or 0.0)  # fmt: skip


def figures(rows: Sequence[PolicyRow]) -> list[tuple[str, go.Figure]]:
    """(file stem, figure): the chunk histogram and, with two or more taus, the sweep."""
    found = []
    histogram = go.Figure()
    for r in rows:
        if r.chunks:
            ks = sorted(r.chunks)
            histogram.add_bar(x=ks, y=[r.chunks[k] for k in ks], name=r.system)
    if histogram.data:
        histogram.update_layout(
            title="Where the moderator cut in", xaxis_title="after chunk", yaxis_title="interruptions", barmode="group"
        )
        found.append(("handraiser-interruption-chunks", histogram))
    sweep = tau_sweep(rows)
    if len(sweep) >= 2:
        fig = go.Figure()
        taus = [r.tau for r in sweep]
        fig.add_scatter(x=taus, y=[r.cost for r in sweep], name="cost (paper's)", mode="lines+markers")
        fig.add_scatter(
            x=taus, y=[r.success.value for r in sweep], name="success rate", mode="lines+markers", yaxis="y2"
        )
        fig.update_layout(
            title="Threshold policy: cost and success against tau",
            xaxis_title="tau (interrupt iff P(Yes) >= tau)",
            yaxis={"title": "tokens"},
            yaxis2={"title": "success", "overlaying": "y", "side": "right", "range": [0, 1]},
        )
        found.append(("handraiser-tau-sweep", fig))
    return found


def report_section(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> Section:
    """HandRaiser's part of a comparison report (``register_report_sections``): its policies and their figures."""
    rows = policy_rows(store, runs, systems)
    return Section(section(rows), figures(rows)) if rows else Section()


REPORT_SECTION = ReportSection("handraiser", report_section)
