"""SID's section of a comparison report: Table 3's shape, early exits, the gate's statistic, the correction flow.

What it does: ``sid_debates(store, runs, systems)`` folds every finished debate
of a ``sid/...`` system into a ``SidDebate`` (its question, whether it was
right, whether it ended early, the tokens the backend computed, split into
the debate's own (the prompt and generated tokens of every answer and
revision, each utterance's ``generation``) and the side requests' (the
rest: the attention probes' prefill, and the ``summary`` variant's
summaries), the first measured answer's gate score, its eight statistics
and whether that answer was right (``right``: an option as the engine
scores it, a free-form answer as the report's normalized match), the mean
fraction of the others' text the recipients kept, and each agent's first
and last answer, right or wrong). ``section(debates, systems)`` writes the
report's markdown:

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
* the significance of right against wrong first answers (Fig. 2(c), Fig. 7):
  for the gate statistic and each of U's eight measures, a two-sided
  Mann–Whitney U test (``significance``; the paper names no test) with n,
  the medians, U and p, each question's first answer counted once; with
  fewer than ``MIN_GROUP`` right or wrong answers it says so instead;
* the correction flow (Fig. 2(d), Fig. 7): per system, how many agents'
  answers went from wrong in round 1 to right at the end, right to wrong,
  stayed right, stayed wrong (the answer standing at the end: a revision
  naming none keeps the last, an agent that exited keeps its first);
* the sweeps of rounds, alpha and rho where the study ran them (``sweep``);
* the paper's Table 3, and Table 1 where the study has one of its
  baselines, each cell the mean ± SE over repeats (``tables``).

What it does not do: run debates (``compare``) or write files (``compare_report``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import plotly.graph_objects as go

from debate_core.config import Question
from debate_core.events import DebateEnded, DebateStarted, EndReason, SignalsMeasured, UtteranceGenerated
from debate_core.events.records import TokenStats
from debate_core.kernel.endings import is_correct
from experiments import scoring
from experiments.accuracy import Accuracy
from experiments.extensions import ReportSection, Section
from experiments.workers import finished_debates
from protocols.sid.events import ContextCompressed
from protocols.sid.study.significance import mann_whitney, stars
from storage import Store
from storage.experiments import RunRecord

PREFIX = "sid/"
BASE = "sid/mad"
BINS = 10
MIN_GROUP = 3  # right and wrong first answers each, before a test is reported
MEASURES = (
    ("gate statistic, max(NLL max, entropy max)", lambda s: max(s.nll_max, s.ent_max)),
    ("NLL max", lambda s: s.nll_max),
    ("NLL average", lambda s: s.nll_avg),
    ("NLL first", lambda s: s.nll_first),
    ("NLL penultimate", lambda s: s.nll_penultimate),
    ("entropy max", lambda s: s.ent_max),
    ("entropy average", lambda s: s.ent_avg),
    ("entropy first", lambda s: s.ent_first),
    ("entropy penultimate", lambda s: s.ent_penultimate),
)
FLOWS = ("wrong → right", "right → wrong", "stayed right", "stayed wrong")


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
    first_stats: TokenStats | None = None  # the first measured answer's statistics (U's eight measures)
    flow: tuple[tuple[bool, bool], ...] = ()  # per agent that answered: (first answer right, last answer right)


def right(answer: object, question: Question) -> bool:
    """Whether ``answer`` is ``question``'s: an option as the engine scores it, a free-form answer as the report's
    normalized match (MATH's LaTeX compared as ``math_equal`` does)."""
    said = answer if isinstance(answer, str) else None
    if not question.options:
        return scoring.exact_match(said, question.answer)
    return bool(is_correct(said, question.answer))


def _flow(events: Sequence[object], question: Question) -> tuple[tuple[bool, bool], ...]:
    """Each agent's first answer against the answer it held at the end, both scored, in the order they first
    answered."""
    end = events[-1]
    assert isinstance(end, DebateEnded)
    last = {a.agent: a.answer for a in end.answers}
    first: dict[str, object] = {}
    for e in events:
        if isinstance(e, UtteranceGenerated) and e.kind == "answer" and e.speaker not in first:
            first[e.speaker] = (e.structured or {}).get("answer")
    return tuple((right(said, question), right(last.get(name), question)) for name, said in first.items())


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
            first_right = right(answer, start.config.question)
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
                first_stats=measured.stats if measured is not None else None,
                flow=_flow(events, start.config.question) if isinstance(start, DebateStarted) else (),
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


def token_ratio(debates: Sequence[SidDebate], system: str, *, probes: bool = False, base: str = BASE) -> float | None:
    """``system``'s tokens over MAD's (``base``: ``sid/mad`` unless another MAD is named) on the questions both
    ran (None without it): the debate's own (the paper's count), or with ``probes`` everything the backend
    computed, the probes' prefill included."""
    count = (lambda d: d.tokens) if probes else debate_tokens
    mad = base
    base_tokens = {d.question_key: count(d) for d in debates if d.system == mad}
    pairs = [
        (count(d), base_tokens[d.question_key]) for d in debates if d.system == system and d.question_key in base_tokens
    ]
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
    return lines + histogram_lines(debates) + significance_lines(debates) + flow_lines(debates, present)


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


def _first_answers(debates: Sequence[SidDebate]) -> list[SidDebate]:
    """One measured first answer per question, under any gate (every gated variant asks the first agent the same
    prompt with the same seed)."""
    seen: dict[str, SidDebate] = {}
    for d in debates:
        if d.first_stats is not None and d.first_right is not None:
            seen.setdefault(d.question_key, d)
    return list(seen.values())


def significance_lines(debates: Sequence[SidDebate]) -> list[str]:
    """Right against wrong first answers, measure by measure: a two-sided Mann–Whitney U test (Fig. 2(c))."""
    first = _first_answers(debates)
    if not first:
        return []
    rights = [d.first_stats for d in first if d.first_right and d.first_stats is not None]
    wrongs = [d.first_stats for d in first if not d.first_right and d.first_stats is not None]
    title = "## SID: right against wrong first answers, a two-sided Mann–Whitney U test (Fig. 2(c), Fig. 7)"
    if len(rights) < MIN_GROUP or len(wrongs) < MIN_GROUP:
        return [
            title,
            "",
            f"Too few first answers to test: {len(rights)} right and {len(wrongs)} wrong (at least {MIN_GROUP} "
            "of each are needed); no p-value is given.",
            "",
        ]
    lines = [
        title,
        "",
        "| measure | right: n, median | wrong: n, median | U | p | |",
        "|---|---|---|---|---|---|",
    ]
    for name, measure in MEASURES:
        x, y = [measure(s) for s in rights], [measure(s) for s in wrongs]
        test = mann_whitney(x, y)
        lines.append(
            f"| {name} | {len(x)}, {statistics.median(x):.3f} | {len(y)}, {statistics.median(y):.3f} "
            f"| {test.u:g} | {test.p:.3g}{'' if test.exact else ' (normal approx.)'} | {stars(test.p)} |"
        )
    lines += [
        "",
        "Each question's first measured answer counted once. The paper marks its tests (* p < 0.05, ** p < 0.01, "
        "*** p < 0.001) without naming them; this is a two-sided Mann–Whitney U test, exact where no value is tied "
        "in small groups, else the normal approximation with tie and continuity corrections; no correction for "
        "the nine tests.",
        "",
    ]
    return lines


def flow_lines(debates: Sequence[SidDebate], systems: Sequence[str]) -> list[str]:
    """The correction flow per system: each agent's first answer against its last (Fig. 2(d), Fig. 7)."""
    rows = []
    for system in systems:
        flows = [f for d in debates if d.system == system for f in d.flow]
        if not flows:
            continue
        counts = (
            sum(not a and b for a, b in flows),
            sum(a and not b for a, b in flows),
            sum(a and b for a, b in flows),
            sum(not a and not b for a, b in flows),
        )
        rows.append(f"| {system} | {len(flows)} | {' | '.join(str(c) for c in counts)} |")
    if not rows:
        return []
    return [
        "## SID: the correction flow, each agent's first answer against its last (Fig. 2(d), Fig. 7)",
        "",
        f"| system | answers | {' | '.join(FLOWS)} |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "An agent's last answer is the one it held when the debate ended (a revision naming no answer keeps the "
        "last; an agent that exited early keeps its first, so it stayed); agents that never answered (the others "
        "of a debate the first answer ended) are not counted.",
        "",
    ]


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
    """SID's part of a comparison report (``register_report_sections``): its tables, the gate's histogram, the
    significance test and the correction flow, the paper's Table 3 and (with a Table 1 baseline in the study)
    Table 1 (``tables``), and the sweeps where the study ran them (``sweep``: a table and the figure
    ``sid_sweeps``)."""
    from protocols.sid.study import sweep, tables

    debates = sid_debates(store, runs, systems)
    gate = figure(debates)
    lines = section(debates, systems)
    if lines:
        found = tables.results(store, runs)
        baselines = {base for base, _ in tables.TABLE_ONE if not base.startswith(PREFIX)}
        if any(s.partition(":")[0] in baselines for s in systems):
            lines += tables.table_one(found, systems)
        lines += tables.table_three(found, debates, systems)
        lines += sweep.table_lines(debates, systems)
    swept = sweep.figure(debates, systems)
    figures = [(name, fig) for name, fig in (("sid_gate_statistic", gate), ("sid_sweeps", swept)) if fig is not None]
    return Section(lines, figures)


REPORT_SECTION = ReportSection("sid", report_section)
