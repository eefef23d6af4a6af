"""HandRaiser's results in the shape of the paper's Table 6: success and cost per listener policy.

What it does: ``policy_rows(store, runs)`` folds every finished HandRaiser
debate, Text Pictionary game and Meeting Scheduling game of a comparison
study with ``handraiser.cost`` and gives, per system
(``handraiser/<policy>[:overrides]``, ``pictionary/<policy>[...]`` and
``scheduling/<policy>[...]``: the task is the system's protocol, one task
per column of the paper's table): the success rate with n and a 95%
Wilson interval, the paper's mean cost (and its standard deviation over
debates), what the
backend really generated and the prompt tokens it computed, seconds per
debate, statements (messages) and interruptions per debate, the share of
statements cut after their first chunk, and where interruptions fell (chunk
histogram). In a study run several times (``compare --repeats``) each row
also has its success rate and mean cost per run, summarised as mean ±
standard deviation over runs (``by_run``): the paper evaluates every setting
three times with different seeds and reports the average and the standard
deviation (Appendix D, Tables 6-7), so this section shows the SD, not the
standard error (``experiments.statistics``, shared with every report).
``tau_sweep`` picks the threshold systems (``tau=...``) for the
sweep plot; the section ends with Table 6's shape (``tables.table_six``:
rows the policies, columns the tasks present, success with n and interval
and cost). ``section`` writes the report's Markdown section and
``figures`` the plotly figures (chunk histogram, tau sweep) that the report
saves as HTML and PNG and the Analysis tab shows.

What it does not do: run debates (``compare``) or read the store's other
studies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import plotly.graph_objects as go

from debate_core.events import UtteranceGenerated
from experiments.accuracy import Accuracy
from experiments.extensions import ReportSection, Section
from experiments.repeats import repeat_of
from experiments.statistics import Spread, mean, sample_sd, spread
from experiments.workers import finished_debates
from protocols.handraiser.cost import SPEAKER_KINDS, Cost, debate_cost
from protocols.handraiser.study.tables import table_six
from storage import Store
from storage.experiments import RunRecord

PREFIX = "handraiser/"
TASKS = (PREFIX, "pictionary/", "scheduling/")  # the debate, Text Pictionary and Meeting Scheduling


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
    by_run: tuple[Spread, Spread] | None = None  # success rate and mean cost over runs (several runs only)

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
    folded: dict[str, list[tuple[bool, Cost, int]]] = {s: [] for s in systems if s.startswith(TASKS)}
    per_run: dict[str, dict[int, list[tuple[bool, float]]]] = {}
    for run, events, end in finished_debates(store, runs, folded.__contains__):
        long = [e for e in events if isinstance(e, UtteranceGenerated) and e.kind in SPEAKER_KINDS and len(e.units) > 1]
        cost = debate_cost(events)
        folded[run.condition].append((bool(end.correct), cost, len(long)))
        per_run.setdefault(run.condition, {}).setdefault(repeat_of(run), []).append((bool(end.correct), cost.total))
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
                cost=mean(totals),
                cost_sd=sample_sd(totals),
                generated=mean([c.generated_tokens for c in costs]),
                prompt_computed=mean([c.prompt_tokens_computed for c in costs]),
                wall_s=mean([c.wall_time_s for c in costs]),
                messages=mean([c.statements for c in costs]),
                interruptions=mean([c.interruptions for c in costs]),
                first_chunk_rate=chunks.get(1, 0) / long_statements if long_statements and listened else None,
                chunks=chunks,
                by_run=_over_runs(per_run.get(system, {})),
            )
        )
    return rows


def _over_runs(runs: dict[int, list[tuple[bool, float]]]) -> tuple[Spread, Spread] | None:
    """Success rate and mean cost per run, as mean ± SD over runs; None for a study of one run."""
    if len(runs) < 2:
        return None
    success = [sum(ok for ok, _ in found) / len(found) for found in runs.values()]
    return spread(success), spread([mean([cost for _, cost in found]) for found in runs.values()])


def section(rows: Sequence[PolicyRow]) -> list[str]:
    """The report's Markdown lines for the HandRaiser systems."""
    if not rows:
        return []
    lines = [
        "## HandRaiser: success and cost per listener policy (the shape of the paper's Table 6)",
        "",
        "Cost is the paper's: every token the agents generated until the end, a cut statement (or Text "
        "Pictionary description) only up to the cut, one token per listener decision (the moderator's, the "
        "guesser's, the traveler's). The task is the system's protocol: handraiser/ the debate, pictionary/ Text "
        "Pictionary, scheduling/ Meeting Scheduling (success: a schedule that holds every hard constraint). "
        "Generated is what the backend really produced (whole statements, decisions); prompt is what it "
        "computed (not served from its prefix cache).",
        "",
        "| system | success (n, 95% CI) | cost (sd over debates) | generated | prompt computed | s per debate "
        "| messages | interruptions | cut after chunk 1 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        first = "-" if r.first_chunk_rate is None else f"{100 * r.first_chunk_rate:.0f}%"
        lines.append(
            f"| {r.system} | {r.success} | {r.cost:,.1f} ({r.cost_sd:,.1f}) | {r.generated:,.0f} "
            f"| {r.prompt_computed:,.0f} | {r.wall_s:.1f} | {r.messages:.2f} | {r.interruptions:.2f} | {first} |"
        )
    over_runs = [(r.system, r.by_run) for r in rows if r.by_run is not None]
    if over_runs:
        lines += [
            "",
            "### Over runs: mean ± standard deviation (the paper's three trials with different seeds)",
            "",
            "Each run's success rate and mean cost, averaged over the runs, ± their standard deviation "
            "(the SD, as the paper's Tables 6-7; the comparison's own table above gives the standard error).",
            "",
            "| system | runs | success, mean ± SD | cost, mean ± SD |",
            "|---|---|---|---|",
        ]
        lines += [
            f"| {system} | {success.n} | {success.sd_text(1, 3)} | {cost.sd_text(1, 1)} |"
            for system, (success, cost) in over_runs
        ]
    histogram = sorted({k for r in rows for k in r.chunks})
    if histogram:
        lines += [
            "",
            "### Where the listener cut in (interruptions after chunk k)",
            "",
            "| system | " + " | ".join(f"k={k}" for k in histogram) + " |",
            "|---|" + "---|" * len(histogram),
        ]
        lines += [f"| {r.system} | " + " | ".join(str(r.chunks.get(k, 0)) for k in histogram) + " |" for r in rows]
    sweep = tau_sweep(rows)
    if sweep:
        lines += ["", "### Threshold sweep", "", "| tau | success | cost |", "|---|---|---|"]
        lines += [f"| {r.tau:g} | {r.success} | {r.cost:,.1f} |" for r in sweep if r.tau is not None]
    return [*lines, "", *table_six(rows)]


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
