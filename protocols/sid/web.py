"""SID in the web app: its confidence gauges and what each agent read (live view and replay alike).

What it does: ``confidence_html`` draws, per round, one gauge per measured
reply (``SignalsMeasured``): a horizontal bar of the score against the
gate's threshold (a marker at the threshold, the side that passes tinted),
green when it passed and red when it did not, with the NLL max, the entropy
max and the score against the threshold as numbers, and the rule and every
statistic in the gauge's tooltip and the panel's caption. The first agent's
round-1 gauge is the exit gate and says so ("early exit" when it passed).
Which side passes comes from the rule's words ("<=", "<": a low score
passes; ">=", "classifier": a high probability passes, the bar then running
from 0 to 1), else from the verdict itself. ``reading_html`` draws, for each
round and each recipient that was compressed (``ContextCompressed``), the
others' text as its probe saw it, the kept spans marked (``<mark>``) and the
dropped text greyed, how much was kept (of characters, with rho), and the
tokens the recipients did not read: per recipient and, live, the debate's
running total (source tokens × (1 − kept share of characters), an
approximation the panel says it is). A seated person reads the others whole;
the panel says so. Both are empty for a debate without such events, so their
components stay blank. A recipient of the ``summary`` variant read its
model's summary of the others: the panel shows the summary. Every text a model or a person wrote goes through
``html.escape``; kept spans are clipped to the text and overlapping ones
skipped.

``WEB`` (registered by ``plugin`` through ``register_web_renderers``) makes
them the two side panels of a SID debate (``confidence``, ``reading``) and
folds SID's own ``ContextCompressed`` events into the view
(``fold_compressed``: each recipient's latest and every one in order).

What it does not do: fold the generic events (``ui.view_model``), draw the
transcript (``ui.render``), or run the protocol (the engine modules never
import this one).
"""

from __future__ import annotations

from html import escape

from protocols.sid.events import ContextCompressed
from ui.render_bits import name_html
from ui.view_model import DebateView, Gauge
from ui.web_plugins import Panel, WebRenderers

HIGHER_WORDS = (">=", ">", "classifier", "probability")
LOWER_WORDS = ("<=", "<")


def higher_passes(gauge: Gauge) -> bool:
    """Whether a high score passes the gate (a classifier's probability against tau) rather than a low one."""
    signals = gauge.signals
    rule = signals.rule.lower()
    higher = any(word in rule for word in HIGHER_WORDS)
    lower = any(word in rule.replace(">=", "").replace(">", "") for word in LOWER_WORDS)
    if higher != lower:
        return higher
    if signals.threshold is not None and signals.score != signals.threshold:
        return signals.passed == (signals.score > signals.threshold)
    return False


def _scale(gauges: list[Gauge]) -> float:
    """The bar's full length for the gauges where a low score passes: twice the threshold, or the largest score."""
    top = 0.0
    for gauge in gauges:
        if not higher_passes(gauge):
            threshold = gauge.signals.threshold
            top = max(top, gauge.signals.score, 2 * threshold if threshold is not None else 0.0)
    return top or 1.0


def _share(value: float, top: float) -> float:
    return max(0.0, min(100.0, 100.0 * value / top)) if top > 0 else 0.0


def _gauge_html(view: DebateView, gauge: Gauge, top: float) -> str:
    signals, stats = gauge.signals, gauge.signals.stats
    higher = higher_passes(gauge)
    full = max(1.0, signals.score, signals.threshold or 0.0) if higher else top
    fill = _share(signals.score, full)
    verdict = "passed" if signals.passed else "not passed"
    marker, zone, against = "", "", ""
    if signals.threshold is not None:
        at = _share(signals.threshold, full)
        marker = f'<div class="gauge-mark" style="left:{at:.1f}%"></div>'
        zone = (
            f'<div class="gauge-zone" style="left:{at:.1f}%;width:{100 - at:.1f}%"></div>'
            if higher
            else f'<div class="gauge-zone" style="left:0;width:{at:.1f}%"></div>'
        )
        sign = ("≥" if signals.passed else "&lt;") if higher else ("≤" if signals.passed else "&gt;")
        against = f" {sign} {signals.threshold:.2f}"
    what = "P(right)" if higher else "score"
    numbers = (
        f'<span class="gauge-nums">NLL max <b>{stats.nll_max:.2f}</b> · entropy max <b>{stats.ent_max:.2f}</b>'
        f" · {what} {signals.score:.2f}{against}</span>"
    )
    label = ""
    first = view.agents[0] if view.agents else None
    if gauge.round == 1 and signals.agent == first and _is_first_reply(view, gauge):
        label = (
            '<span class="badge gate exit">exit gate: early exit</span>'
            if signals.passed
            else '<span class="badge gate">exit gate: not passed, the debate goes on</span>'
        )
    title = (
        f"{signals.rule} ({'a high score passes' if higher else 'a low score passes'}) — {verdict}. "
        f"NLL max {stats.nll_max:.3f}, avg {stats.nll_avg:.3f}, first {stats.nll_first:.3f}, "
        f"penultimate {stats.nll_penultimate:.3f}; entropy max {stats.ent_max:.3f}, avg {stats.ent_avg:.3f}, "
        f"first {stats.ent_first:.3f}, penultimate {stats.ent_penultimate:.3f}"
    )
    state = "pass" if signals.passed else "fail"
    return (
        f'<div class="gauge {state}" data-agent="{escape(signals.agent)}" data-round="{gauge.round}" '
        f'data-passed="{str(signals.passed).lower()}" title="{escape(title)}">'
        f'<div class="gauge-head">{name_html(view, signals.agent)}<span class="verdict {state}">{verdict}</span>'
        f"{label}</div>"
        f'<div class="gauge-bar" role="meter" aria-valuenow="{signals.score:.3f}" aria-valuemin="0" '
        f'aria-valuemax="{full:.3f}" aria-label="{escape(signals.agent)}, round {gauge.round}: {verdict}">'
        f'{zone}<div class="gauge-fill" style="width:{fill:.1f}%"></div>{marker}</div>{numbers}</div>'
    )


def _is_first_reply(view: DebateView, gauge: Gauge) -> bool:
    """Whether ``gauge`` is its agent's first measured reply (the exit gate reads only that one)."""
    return next(g for g in view.gauges if g.signals.agent == gauge.signals.agent) is gauge


def confidence_html(view: DebateView) -> str:
    """Every measured reply's gauge, grouped by round; empty for a debate that measured none."""
    if not view.gauges:
        return ""
    top = _scale(view.gauges)
    rounds: dict[int, list[str]] = {}
    for gauge in view.gauges:
        rounds.setdefault(gauge.round, []).append(_gauge_html(view, gauge, top))
    groups = "".join(
        f'<div class="gauge-round" data-round="{number}"><div class="round-head">Round {number}</div>'
        f"{''.join(rows)}</div>"
        for number, rows in rounds.items()
    )
    rules = list(dict.fromkeys(g.signals.rule for g in view.gauges))
    caption = (
        f'<div class="muted signals-caption">Gate: {"; ".join(escape(rule) for rule in rules)}. The bar is the score, '
        "the line the threshold, the tinted side passes; hover a gauge for every statistic.</div>"
    )
    return f'<div class="confidence"><div class="panel-title">Confidence</div>{groups}{caption}</div>'


def marked_html(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """``text`` with ``spans`` (character offsets) marked as kept and the rest greyed as dropped, all escaped.

    Spans are clipped to the text and taken in order; one that overlaps the last kept is skipped. Whitespace
    that opens or closes the text is not drawn.
    """
    pieces: list[tuple[str, int, int]] = []
    last = 0
    for start, end in sorted(spans):
        start, end = max(start, last), min(end, len(text))
        if end <= start:
            continue
        if start > last:
            pieces.append(("dropped", last, start))
        pieces.append(("kept", start, end))
        last = end
    if last < len(text):
        pieces.append(("dropped", last, len(text)))
    html = []
    for index, (kind, start, end) in enumerate(pieces):
        part = text[start:end]
        if kind == "dropped":
            part = part.lstrip() if index == 0 else part
            part = part.rstrip() if index == len(pieces) - 1 else part
            if part:
                html.append(f'<span class="dropped">{escape(part)}</span>')
        else:
            html.append(f'<mark class="kept" data-span="{start}-{end}">{escape(part)}</mark>')
    return "".join(html)


def unread_tokens(view: DebateView) -> tuple[float, int]:
    """The tokens the recipients did not read, all rounds so far (approximate), and the tokens they were given."""
    unread = sum(c.source_tokens * (1 - c.ratio) for c in view.readings)
    return unread, sum(c.source_tokens for c in view.readings)


def reading_html(view: DebateView) -> str:
    """What each compressed recipient read of the others, round by round; empty without compressions.

    The latest round is open, earlier ones folded (a ``<details>`` each).
    """
    if not view.readings:
        return ""
    latest = max(c.round for c in view.readings)
    rounds: dict[int, list[str]] = {}
    for reading in view.readings:
        unread = reading.source_tokens * (1 - reading.ratio)
        layer = f", layer {reading.layer}" if reading.layer is not None else ""
        if reading.all_layers and reading.layer is not None:
            layer = f", layers 0-{reading.layer}"
        head = (
            f"{name_html(view, reading.agent)} kept <b>{100 * reading.ratio:.0f}%</b> of the others' text "
            f"(rho = {reading.top_p:g}{layer}) · ≈{unread:.0f} of {reading.source_tokens} tokens not read"
        )
        body = marked_html(reading.source_text, reading.kept_spans)
        if reading.method == "summary":
            head = (
                f"{name_html(view, reading.agent)} read a summary of the others' text "
                f"(<b>{100 * reading.ratio:.0f}%</b> of its length), written by its own model"
            )
            body = escape(reading.kept_text)
        rounds.setdefault(reading.round, []).append(
            f'<details class="reading" data-agent="{escape(reading.agent)}" data-round="{reading.round}" '
            f'style="border-left-color:{view.colour(reading.agent)}"'
            f"{' open' if reading.round == latest else ''}><summary>{head}</summary>"
            f'<div class="reading-text">{body}</div></details>'
        )
    for number, rows in rounds.items():
        compressed = {c.agent for c in view.readings if c.round == number}
        whole = [h for h in view.humans if h not in compressed]
        rows.extend(
            f'<div class="reading whole muted" data-agent="{escape(h)}">{name_html(view, h)} (a person) read the '
            "others whole</div>"
            for h in whole
        )
    groups = "".join(
        f'<div class="reading-round" data-round="{number}"><div class="round-head">Round {number}</div>'
        f"{''.join(rows)}</div>"
        for number, rows in rounds.items()
    )
    unread, given = unread_tokens(view)
    share = f" ({100 * unread / given:.0f}%)" if given else ""
    saving = (
        f'<div class="saving" data-unread="{unread:.0f}">Not read so far: <b>≈{unread:.0f}</b> of {given} tokens'
        f"{share}</div>"
        "<div class=\"muted signals-caption\">Approximate: each recipient's tokens of the others' text × the share "
        "of its characters it did not keep. Highlighted: kept; grey: dropped.</div>"
    )
    return f'<div class="reading-panel"><div class="panel-title">What each agent read</div>{saving}{groups}</div>'


def fold_compressed(view: DebateView, event: ContextCompressed) -> None:
    """A recipient's compression: its latest (``view.compressed``) and every one in order (``view.readings``)."""
    view.compressed[event.agent] = event
    view.readings.append(event)


WEB = WebRenderers(
    protocols=("sid",),
    panels=(
        Panel("confidence", "Confidence gauges", confidence_html),
        Panel("reading", "What each agent read", reading_html),
    ),
    folds={"context_compressed": fold_compressed},
)
