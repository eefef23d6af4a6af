"""HTML for the page, drawn from a ``DebateView``: transcript, budget, plans, result.

What it does: pure functions from a view to an HTML string. Every piece of
text that a model or a person wrote (sentences, thoughts, purposes, answers,
names, the question) goes through ``html.escape``, so a message containing
``<script>`` or ``<img onerror=...>`` shows as text and never runs. Live view
and replay call the same functions.

``audience=True`` (classroom mode) hides private thoughts and purposes.
``show_discarded=True`` shows the units an interruption or a revision
discarded, struck through, after the cut. Phases, points of information and
questions, analyses, composed acts and resumed speeches get their own
transcript lines; an utterance of another kind than a speech or a statement
(a vote, a wait, an opening) has a badge naming it (unless it only repeats
the speaker's role: TAR's affirmative), a speaker's role follows their
name, and an error on a reply (one kept because the new one was unusable)
follows its words. Units are drawn as their text had them: a token
chunk that ends inside a word is followed by the rest of the word, with no
space between, and a unit that ended a line (ACE's items) by a line break
(``Utterance.gap``). Listeners' private decisions (``ListenerDecision``)
follow the unit they were made after, shown only in the researcher view.

A protocol's own transcript lines (an event its plugin folds into a line)
are drawn by the renderer its web plugin registered for the event type
(``web_plugins.line_renderer``), else generically (the event's type and
fields); the answers per round by ``render_rounds``; names, roles and
unusable replies by ``render_bits``. The result lists invalid plans only for
a debate that makes plans, and the budget only for one that keeps it; the
budget says what it means (``BUDGET_RULE``: the debate ends in the turn the
count reaches it, and that sentence is said whole, so 507/500 is no error).

What it does not do: build Gradio components or plots.
"""

from __future__ import annotations

from html import escape

from ui import web_plugins
from ui.render_bits import invalid_html, name_html, role_html
from ui.render_rounds import rounds_html
from ui.view_model import DebateView, Line, Utterance

__all__ = ["rounds_html"]


def question_html(view: DebateView) -> str:
    """The question card: the question (as its protocol draws it, ``web_plugins.question_body``: Text Pictionary
    hides its secret from a seated guesser), the condition and the model, or each seat's model when they differ."""
    if not view.started:
        return '<div class="question muted">No debate yet: set one up and press Start.</div>'
    body = web_plugins.question_body(view)
    models = f"model {escape(view.model_id)}"
    if view.seat_models:  # which model sits in which seat
        seats = ", ".join(
            f'<span class="seat-model">{escape(a)}: {escape(m)}</span>' for a, m in view.seat_models.items()
        )
        models = f"models: {seats}"
    return (
        f'<div class="question">{_question_body(view) if body is None else body}'
        f'<div class="muted">{escape(view.condition)} · {models}</div></div>'
    )


def _question_body(view: DebateView) -> str:
    pairs = zip(view.labels, view.options, strict=True)
    options = "".join(f"<li><b>{escape(label)}</b> {escape(option)}</li>" for label, option in pairs)
    if view.shown_answer:
        correct = f'<div class="muted">Correct answer: {escape(view.shown_answer)}</div>'
    elif view.correct_answer:
        correct = '<div class="muted">Correct answer: hidden while a person is seated, shown when the debate ends</div>'
    else:
        correct = ""
    return f'<div class="qtext">{escape(view.question)}</div><ul class="options">{options}</ul>{correct}'


# Utterances that answer an intervention: drawn as a side exchange, indented under the speech they interrupted.
SIDE_KINDS = frozenset({"poi_reply"})


def _line_html(view: DebateView, line: Line, show_discarded: bool) -> str:
    if line.silence:
        return f'<div class="line silence" data-turn="{line.turn}">turn {line.turn} · … silence</div>'
    if line.phase is not None:
        phase = line.phase
        label = escape(phase.phase.replace("_", " ")) + (f" {phase.round}" if phase.round is not None else "")
        detail = f" · {escape(phase.detail)}" if phase.detail else ""
        return f'<div class="line phase" data-turn="{line.turn}">{label}{detail}</div>'
    if line.intervention is not None:
        item = line.intervention
        kind = escape(item.kind.replace("_", " "))
        style = f"border-left-color:{view.colour(item.author)}"
        return (
            f'<div class="line intervention{" blocking" if item.blocking else ""}" style="{style}" '
            f'data-turn="{line.turn}">{name_html(view, item.author)}<span class="badge">{kind} to '
            f'{escape(item.target)}</span><div class="words">{escape(item.text)}</div></div>'
        )
    drawn = _protocol_line(view, line)
    if drawn is not None:
        return drawn
    u = line.utterance
    assert u is not None
    if u.total == 0:
        why = f" ({escape(u.error)})" if u.error else ""
        return (
            f'<div class="line silence passed" data-utterance="{u.id}" data-turn="{u.turn}">'
            f"{name_html(view, u.speaker)} had the floor and said nothing{why}</div>"
        )
    badge = ""
    if u.interrupting and line.start == 0:
        badge = f'<span class="badge interrupt">interrupting {escape(u.interrupting)}</span>'
    if line.start > 0:
        badge = '<span class="badge resumed">resumes</span>'
    if u.kind not in ("speech", "statement", view.roles.get(u.speaker)):  # not "affirmative affirmative"
        badge += f'<span class="badge kind">{escape(u.kind.replace("_", " "))}</span>'
    side = " side" if u.kind in SIDE_KINDS else ""
    cut, going_on = "", False
    if line.end is not None:
        cut, going_on = '<span class="more">…</span>', True
    elif u.suspended:
        cut = f'<span class="cut suspended">held for {escape(u.interrupted_by or "")}</span>'
    elif u.interrupted_by:
        who = escape(u.interrupted_by)
        cut = f'<span class="cut" title="cut off by {who}">✂ cut off by {who}</span>'
        if show_discarded and u.discarded:
            cut += " " + _pieces(
                u.discarded, "discarded", [u.gap(len(u.disclosed) + i) for i in range(len(u.discarded))]
            )
    elif not u.completed and view.ended is None:  # still speaking
        cut, going_on = '<span class="more">…</span>', True
    elif show_discarded and u.discarded:  # a revision replaced part of it
        cut = _pieces(u.discarded, "discarded", [" "] * len(u.discarded))
    units = u.disclosed[line.start : line.end]
    # token chunks may end inside a word: each unit is followed by what followed it in the text (a space or
    # nothing); the last is followed by a space before a cut, and by nothing before "…" mid-word
    gaps = [u.gap(line.start + i) for i in range(len(units))]
    if gaps and not (going_on and gaps[-1] == ""):
        gaps[-1] = " "
    checks = [_checks(u, line.start + i) for i in range(len(units))]
    sentences = "".join(
        f'<span class="sentence">{escape(s)}</span>{check}{_gap(gap)}'
        for s, check, gap in zip(units, checks, gaps, strict=True)
    )
    style = f"border-left-color:{view.colour(u.speaker)}"
    error = invalid_html(True, u.error) if u.error and line.start == 0 else ""  # a reply kept or cut, and why
    return (
        f'<div class="line speech{side}" style="{style}" data-utterance="{u.id}" data-turn="{u.turn}">'
        f'{name_html(view, u.speaker)}{role_html(view, u.speaker)}{badge}<div class="words">{sentences}{cut}</div>'
        f"{error}</div>"
    )


def _protocol_line(view: DebateView, line: Line) -> str | None:
    """A line holding a protocol's event: its registered renderer's HTML, else the generic one; None otherwise."""
    event = line.event
    if event is None and line.analysis is not None:
        event = line.analysis
    elif event is None and line.acts:
        event = line.acts[0]
    if event is None:
        return None
    renderer = web_plugins.line_renderer(str(event.type))
    if renderer is not None:
        try:
            return renderer(view, line)
        except Exception as error:  # the plugin's mistake: recorded, and the line drawn generically
            web_plugins.record_problem(f"web line renderer of {event.type} failed: {type(error).__name__}: {error}")
    if line.event is None:
        line = Line(turn=line.turn, event=event)
    return web_plugins.generic_event_html(view, line)


def _checks(u: Utterance, index: int) -> str:
    """The listeners' private decisions after unit ``index`` (hidden unless the researcher view is on)."""
    return "".join(f'<span class="decision">{escape(label)}</span>' for label in u.checks.get(index, ()))


def _gap(gap: str) -> str:
    """A gap between units on the page: a line break where the text broke the line, else as it is."""
    return "<br>" if gap == "\n" else gap


def _pieces(units: list[str], css: str, gaps: list[str]) -> str:
    """Units as spans of class ``css``, each followed by its gap (a space, a line break, or nothing inside a word)."""
    return "".join(f'<span class="{css}">{escape(s)}</span>{_gap(gap)}' for s, gap in zip(units, gaps, strict=True))


def transcript_lines(view: DebateView, *, show_discarded: bool = False) -> list[str]:
    """The transcript as one HTML string per line (the live page appends and replaces lines, not the whole)."""
    return [*(_line_html(view, line, show_discarded) for line in view.lines), *tail_lines(view)]


def line_html(view: DebateView, line: Line, *, show_discarded: bool = False) -> str:
    """One line of ``transcript_lines`` (the live pages' shared cache, ``live_cache``, draws them one at a time)."""
    return _line_html(view, line, show_discarded)


def tail_lines(view: DebateView) -> list[str]:
    """What ``transcript_lines`` draws after the lines: who prepares to speak, or, with no line yet, a placeholder."""
    if view.preparing and view.ended is None:
        return [f'<div class="line preparing">{name_html(view, view.preparing)} is preparing to speak…</div>']
    if not view.lines:
        return ['<div class="line muted">The transcript appears here, one unit per turn.</div>']
    return []


def transcript_html(
    view: DebateView, *, show_discarded: bool = False, element_id: str = "transcript", private: bool = False
) -> str:
    """The whole transcript; ``private`` shows listeners' private decisions (the researcher view)."""
    body = "".join(transcript_lines(view, show_discarded=show_discarded))
    classes = "transcript private" if private else "transcript"
    return f'<div class="{classes}" id="{element_id}" aria-live="polite" role="log">{body}</div>'


def status_html(text: str, *, error: str | None = None, link: str | None = None, debate: str | None = None) -> str:
    """The status line, every word of it escaped (it can quote what a person typed).

    ``debate``: the live debate's id, which the page's script puts in the address (``?live=``).
    """
    parts = [f'<span class="status-text">{escape(text)}</span>']
    if error:
        parts.append(f'<span class="bad"> · {escape(error)}</span>')
    if link:
        parts.append(f' · <a class="share" href="{escape(link)}">link to this debate</a>')
    marked = f' data-debate="{escape(debate)}"' if debate else ""
    return f'<div class="status"{marked}>{"".join(parts)}</div>'


BUDGET_LAST = "the sentence that reached it is said whole"
BUDGET_RULE = (
    "Public tokens count the words disclosed to everyone. The debate ends in the turn the count reaches the "
    f"budget, and {BUDGET_LAST} (the paper's rule), so the count may end a little past the budget."
)


def budget_html(view: DebateView) -> str:
    if not view.started:
        return '<div class="budget muted">Token budget: -</div>'
    if not view.budget:
        phase = f" · {escape(view.phase)}" if view.phase else ""
        return (
            f'<div class="budget"><div class="budget-label">Turn {view.turn}{phase} · public tokens '
            f"<b>{view.public_tokens}</b></div></div>"
        )
    share = min(100.0, 100.0 * view.public_tokens / max(1, view.budget))
    left = f"<b>{view.tokens_left}</b> left" if view.tokens_left else f"budget reached ({escape(BUDGET_LAST)})"
    return (
        f'<div class="budget" title="{escape(BUDGET_RULE)}"><div class="budget-label">Turn {view.turn} · '
        f"public tokens <b>{view.public_tokens}</b> / {view.budget} · {left}</div>"
        f'<div class="budget-bar"><div class="budget-fill" style="width:{share:.1f}%"></div></div></div>'
    )


def plans_html(view: DebateView, *, audience: bool = False) -> str:
    if not view.plans:
        return '<div class="muted">Plans appear here each turn.</div>'
    cards = []
    for agent in view.agents:
        record = view.plans.get(agent)
        if record is None:
            continue
        plan = record.plan
        stale = " stale" if view.plans_turn >= 0 and record is not None and agent == view.floor_holder else ""
        details = ""
        if not audience:
            details = (
                f'<div class="thought">{escape(plan.thought)}</div><div class="purpose">{escape(plan.purpose)}</div>'
            )
        invalid = f'<div class="invalid">invalid plan: {escape(record.error or "")}</div>' if not record.valid else ""
        cards.append(
            f'<div class="plan{stale}" style="border-top-color:{view.colour(agent)}">'
            f'{name_html(view, agent)} <span class="action {plan.action.value}">{plan.action.value}</span> '
            f'<span class="urgency">urgency {plan.urgency}</span> '
            f'<span class="answer">answer {escape(plan.answer or "-")}</span>{details}{invalid}</div>'
        )
    return f'<div class="plans">{"".join(cards)}</div>'


def result_html(view: DebateView) -> str:
    ended = view.ended
    if ended is None:
        return ""
    verdict = ""
    if ended.correct is not None:
        verdict = '<span class="ok">✓ correct</span>' if ended.correct else '<span class="bad">✗ incorrect</span>'
    votes = ", ".join(f"{escape(v.answer)}: {v.count}" for v in ended.votes) or "none"
    broken = (
        f"to {escape(ended.decided_by)}'s answer, given first"
        if ended.rule == "majority" and ended.decided_by
        else "broken by the seeded random choice"
    )
    tie = f" (tie among {escape(', '.join(ended.tie))}, {broken})" if ended.tie else ""
    error = f'<div class="bad">Error: {escape(ended.error)}</div>' if ended.error else ""
    rule = ""
    if ended.rule != "majority":
        by = f" by {escape(ended.decided_by)}" if ended.decided_by else ""
        rule = f' <span class="muted">({escape(ended.rule)}{by})</span>'
    budget = f"/{view.budget}" if view.budget else ""
    if view.budget and ended.public_tokens > view.budget:
        budget += f" ({BUDGET_LAST})"
    stats = ended.stats
    plans = f"{stats.invalid_plans} invalid plans · " if view.plans or stats.invalid_plans else ""
    return (
        f'<div class="result"><div class="final">Final answer: <b>{escape(ended.final_answer or "-")}</b> '
        f"{verdict}{rule}</div><div>Votes: {votes}{tie}</div>"
        f"<div>Ended by <b>{escape(ended.reason.value)}</b> at turn {ended.turn}, "
        f"{ended.public_tokens}{budget} public tokens.</div>{error}"
        f'<div class="muted">{stats.utterances} utterances · {stats.interruptions} interruptions · '
        f"{stats.silent_turns} silent turns · {plans}"
        f"{stats.model_calls} model calls · {stats.wall_time_s:.1f} s</div></div>"
    )
