"""SID's section of a comparison report: the paper's Table 3 shape, early exits, and the gate's statistic.

What it does: ``sid_debates(store, runs, systems)`` folds every finished debate
of a ``sid/...`` system into a ``SidDebate`` (its question, whether it was
right, whether it ended early, the tokens the backend computed, split into
the debate's own (the prompt and generated tokens of every answer and
revision, each utterance's ``generation``) and the side requests' (the
rest: the attention probes' prefill, and the ``summary`` variant's
summaries), the first
measured answer's gate score and whether that answer was right, the mean
fraction of the others' text the recipients kept). ``section(debates,
systems)`` writes the report's markdown:

* per system: accuracy with n and a 95% Wilson interval, the **token ratio
  against ``sid/mad``** as the paper's Table 3 counts it (the debate's own
  prompt and generated tokens, summed over the questions both ran, over
  MAD's on the same questions: the authors' code counts the agents'
  conversations, never the probe's forward pass), the side requests (the
  probes' prefill, the summaries) in a column of its own (mean per debate)
  and the ratio with them, the early-exit
  rate and the accuracy of the exits, and the kept fraction of the others'
  text;
* a histogram of the gate statistic (the first answer's score: max(NLL max,
  entropy max) for the ``alpha`` rule) for right and for wrong first answers,
  each question counted once, with the threshold, as a table here and a
  figure (``figure``);
* the paper's Table 3, and Table 1 where the study has one of its
  baselines, each cell the mean ± SE over repeats (``tables``).

What it does not do: run debates (``compare``) or write files (``compare_report``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from debate_core.events import DebateStarted, EndReason, SignalsMeasured, UtteranceGenerated
from debate_core.kernel.endings import is_correct
from experiments.accuracy import Accuracy
from experiments.extensions import ReportSection, Section
from experiments.workers import finished_debates
from protocols.sid.events import ContextCompressed
from storage import Store
from storage.experiments import RunRecord

PREFIX = "sid/"
BASE = "sid/mad"
BINS = 10


@dataclass(frozen=True)
class SidDebate:
    system: str
    question_key: str
    correct: bool
    early_exit: bool
    tokens: int  # everything the backend computed: the debate's tokens and the probes' prefill
    debate_tokens: int | None = None  # the answers' and revisions' prompt and generated tokens (the paper's count)
    gate_score: float | None = None
    gate_threshold: float | None = None
    gate_rule: str = ""
    first_right: bool | None = None
    kept: float | None = None


def sid_debates(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[SidDebate]:
    wanted = {s for s in systems if s.startswith(PREFIX)}
    found = []
    for run, events, end in finished_debates(store, runs, wanted.__contains__):
        measured = next((e for e in events if isinstance(e, SignalsMeasured)), None)
        start = events[0]
        first_right = None
        if measured is not None and isinstance(start, DebateStarted):
            said = next((e for e in events if isinstance(e, UtteranceGenerated) and e.speaker == measured.agent), None)
            answer = (said.structured or {}).get("answer") if said is not None else None
            first_right = is_correct(answer if isinstance(answer, str) else None, start.config.question.answer)
        ratios = [e.ratio for e in events if isinstance(e, ContextCompressed)]
        spoken = [e.generation for e in events if isinstance(e, UtteranceGenerated)]
        found.append(
            SidDebate(
                system=run.condition,
                question_key=run.question_key,
                correct=bool(end.correct),
                early_exit=end.reason == EndReason.EARLY_EXIT,
                tokens=end.stats.prompt_tokens + end.stats.generated_tokens,
                debate_tokens=sum(g.prompt_tokens + g.completion_tokens for g in spoken),
                gate_score=measured.score if measured is not None else None,
                gate_threshold=measured.threshold if measured is not None else None,
                gate_rule=measured.rule if measured is not None else "",
                first_right=first_right,
                kept=statistics.fmean(ratios) if ratios else None,
            )
        )
    return found


def debate_tokens(debate: SidDebate) -> int:
    """The paper's count: the debate's own prompt and generated tokens (all of them for a debate stored without
    the split)."""
    return debate.debate_tokens if debate.debate_tokens is not None else debate.tokens


def probe_tokens(debate: SidDebate) -> int:
    """The attention probes' prefill: what the backend computed beyond the debate's own tokens."""
    return debate.tokens - debate_tokens(debate)


def token_ratio(debates: Sequence[SidDebate], system: str, *, probes: bool = False) -> float | None:
    """``system``'s tokens over MAD's on the questions both ran (None without MAD): the debate's own (the paper's
    count), or with ``probes`` everything the backend computed, the probes' prefill included."""
    count = (lambda d: d.tokens) if probes else debate_tokens
    base = {d.question_key: count(d) for d in debates if d.system == BASE}
    pairs = [(count(d), base[d.question_key]) for d in debates if d.system == system and d.question_key in base]
    if not pairs or not sum(b for _, b in pairs):
        return None
    return sum(t for t, _ in pairs) / sum(b for _, b in pairs)


def section(debates: Sequence[SidDebate], systems: Sequence[str]) -> list[str]:
    """The SID section's markdown lines (empty without a ``sid/`` system)."""
    present = [s for s in systems if s.startswith(PREFIX) and any(d.system == s for d in debates)]
    if not present:
        return []
    lines = [
        "",
        "## SID: accuracy and cost in the shape of the paper's Table 3",
        "",
        "| system | accuracy (n, 95% CI) | token ratio vs sid/mad | side requests per debate "
        "| ratio with them | early exits | exits right | kept of others' text |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for system in present:
        mine = [d for d in debates if d.system == system]
        accuracy = Accuracy(sum(d.correct for d in mine), len(mine))
        ratio, with_probes = token_ratio(debates, system), token_ratio(debates, system, probes=True)
        exits = [d for d in mine if d.early_exit]
        kept = [d.kept for d in mine if d.kept is not None]
        probe = statistics.fmean(probe_tokens(d) for d in mine)
        lines.append(
            f"| {system} | {accuracy} | {_ratio(ratio)} | {f'{probe:,.0f}' if probe else '-'} | {_ratio(with_probes)} "
            f"| {len(exits)}/{len(mine)} | {f'{sum(d.correct for d in exits)}/{len(exits)}' if exits else '-'} "
            f"| {f'{100 * statistics.fmean(kept):.0f}%' if kept else '-'} |"
        )
    lines += [
        "",
        "The token ratio counts what the paper counts: the prompt and generated tokens of every answer and "
        "revision, summed over the questions both systems ran, over MAD's. The side requests (the attention "
        "probes' prefill, one forward pass per recipient per compressed round, no token generated; the summary "
        "variant's summaries, prompt and generation) are the column beside it, and the ratio with them the last "
        "cost column.",
        "",
        "The paper (MMLU-Pro, Llama-3.1-8B): MAD 39.50 / 1.00; + compression 41.67 / 0.73; + compression + early "
        "exit 46.83 / 0.53; without semantic preservation 34.50 / 0.46.",
    ]
    return lines + histogram_lines(debates)


def _ratio(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "-"


def _gated(debates: Sequence[SidDebate]) -> list[SidDebate]:
    """One measured first answer per question (every gated variant asks the first agent the same prompt with
    the same seed, so its first answer is the same one), under the alpha rule."""
    seen: dict[str, SidDebate] = {}
    for d in debates:
        if d.gate_score is not None and d.first_right is not None and "ln|V|" in d.gate_rule:
            seen.setdefault(d.question_key, d)
    return list(seen.values())


def histogram_lines(debates: Sequence[SidDebate]) -> list[str]:
    """The first answers' gate statistic, right against wrong (the alpha rule's score)."""
    gated = _gated(debates)
    if not gated:
        return [""]
    scores = [d.gate_score for d in gated if d.gate_score is not None]
    low, high = min(scores), max(scores)
    width = (high - low) / BINS or 1.0
    counts = [[0, 0] for _ in range(BINS)]
    for d in gated:
        assert d.gate_score is not None
        index = min(BINS - 1, int((d.gate_score - low) / width))
        counts[index][0 if d.first_right else 1] += 1
    threshold = gated[0].gate_threshold
    lines = [
        "",
        f"## SID: the gate statistic of first answers (max(NLL max, entropy max); threshold {threshold:.2f})",
        "",
        "| score from | to | right | wrong |",
        "|---|---|---|---|",
    ]
    for i, (right, wrong) in enumerate(counts):
        lines.append(f"| {low + i * width:.2f} | {low + (i + 1) * width:.2f} | {right} | {wrong} |")
    return [*lines, ""]


def figure(debates: Sequence[SidDebate]) -> go.Figure | None:
    """The histogram as a figure: right and wrong first answers, the threshold as a line."""
    gated = _gated(debates)
    if not gated:
        return None
    fig = go.Figure()
    for right, name in ((True, "right"), (False, "wrong")):
        values = [d.gate_score for d in gated if d.first_right is right]
        fig.add_trace(go.Histogram(x=values, name=f"{name} first answers", opacity=0.7, nbinsx=BINS))
    threshold = gated[0].gate_threshold
    if threshold is not None:
        fig.add_vline(x=threshold, line_dash="dash", annotation_text="exit threshold")
    fig.update_layout(barmode="overlay", xaxis_title="max(NLL max, entropy max)", yaxis_title="debates")
    return fig


def report_section(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> Section:
    """SID's part of a comparison report (``register_report_sections``): its tables, the gate's histogram, and the
    paper's Table 3 and (with a Table 1 baseline in the study) Table 1 (``tables``)."""
    from protocols.sid.study import tables

    debates = sid_debates(store, runs, systems)
    gate = figure(debates)
    lines = section(debates, systems)
    if lines:
        found = tables.results(store, runs)
        baselines = {base for base, _ in tables.TABLE_ONE if not base.startswith(PREFIX)}
        if any(s.partition(":")[0] in baselines for s in systems):
            lines += tables.table_one(found, systems)
        lines += tables.table_three(found, debates, systems)
    return Section(lines, [("sid_gate_statistic", gate)] if gate is not None else [])


REPORT_SECTION = ReportSection("sid", report_section)
