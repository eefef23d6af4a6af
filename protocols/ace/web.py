"""ACE in the web app: its analyses, composed acts and replies, folded and drawn (live view and replay alike).

What it does: ``WEB`` (registered by ``plugin`` through ``register_web_renderers``)
folds ACE's own events into the view (``fold_analysis``: an analysis line
with each agent's latest structured reply as the analyst saw it, and an
observer's pick; ``fold_acts``: the acts every agent composed in a round on
one line) and draws them: ``analysis_html`` draws an analysis of a pair of
agents as a panel (its verdict and reason, whether the answers agree and the
explanations are similar overall, and the two agents' explanation items as
the analyst saw them, in two columns, each matched pair with the same
numbered badge on both sides and a line between them, each differing pair in
amber), or an analyst's pick ("Olive picks B"); ``acts_html`` the acts every
agent composed in a round, one line. ``Reply.of`` reads a debater's
structured reply (answer, explanation items, comments). Every text a model
or a person wrote goes through ``html.escape``.

What it does not do: draw the rest of the transcript or the answers per
round (``ui.render``, ``ui.render_rounds``), or run the protocol (the engine
modules never import this one).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from protocols.ace.events import ActionComposed, AnalysisMade
from ui.render_bits import invalid_html, name_html, role_html
from ui.view_model import DebateView, Line, Pick
from ui.web_plugins import WebRenderers


@dataclass(frozen=True)
class Reply:
    """A structured reply's public content (an ACE debater's): its answer, its explanation items, its comment."""

    answer: str | None
    items: tuple[str, ...] = ()
    comments: str = ""

    @classmethod
    def of(cls, structured: dict[str, Any] | None) -> Reply | None:
        """The reply in an utterance's ``structured`` content, or None when it holds no explanation items."""
        if not isinstance(structured, dict) or not isinstance(structured.get("explanation"), list | tuple):
            return None
        answer = structured.get("answer")
        comments = structured.get("comments")
        return cls(
            answer if isinstance(answer, str) else None,
            tuple(str(item) for item in structured["explanation"]),
            comments if isinstance(comments, str) else "",
        )


def fold_analysis(view: DebateView, event: AnalysisMade) -> None:
    """An analysis: a transcript line that keeps the replies it compared; a pick is the debate's pick so far."""
    view.lines.append(Line(turn=event.turn, analysis=event, compared=dict(view.replies)))
    if "pick" in event.findings:
        picked = event.findings["pick"]
        view.pick = Pick(event.analyst, str(picked) if picked else None)


def fold_acts(view: DebateView, event: ActionComposed) -> None:
    """Composed acts: every agent's acts of a round on one line; each agent's latest kept (``view.acts``)."""
    view.acts[event.agent] = event
    last = view.lines[-1] if view.lines else None
    if last is not None and last.acts and last.acts[-1].round == event.round:
        last.acts.append(event)
    else:
        view.lines.append(Line(turn=event.turn, acts=[event]))


def _pairs(value: Any) -> list[tuple[int, int]]:
    """Item pairs as the findings hold them (``[[i, j], ...]``); anything else is skipped."""
    pairs = []
    for pair in value if isinstance(value, list | tuple) else ():
        if isinstance(pair, list | tuple) and len(pair) == 2 and all(isinstance(n, int) for n in pair):
            pairs.append((int(pair[0]), int(pair[1])))
    return pairs


def analysis_html(view: DebateView, line: Line) -> str:
    """An analysis: its verdict and reason; for pairs of agents, their items side by side with the links
    the analyst drew between them; for a pick, the answer picked."""
    analysis = line.analysis
    assert analysis is not None
    findings = analysis.findings
    head = (
        f"{name_html(view, analysis.analyst)}{role_html(view, analysis.analyst)}"
        f'<span class="badge">{"pick" if "pick" in findings else "analysis"}, round {analysis.round}</span>'
    )
    invalid = invalid_html(analysis.valid, analysis.error, "reply")
    note = f'<div class="muted note">{escape(analysis.note)}</div>' if analysis.note else ""
    if "pick" in findings:
        pick = findings["pick"]
        said = (
            f'{name_html(view, analysis.analyst)} picks <b class="picked">{escape(str(pick))}</b>'
            if pick
            else '<span class="picked none">no usable pick: the majority decides</span>'
        )
        reason = f'<div class="reason muted">{escape(analysis.reason)}</div>' if analysis.reason else ""
        return (
            f'<div class="line analysis pick" data-turn="{line.turn}">{head}<div class="verdict-line">{said}</div>'
            f"{reason}{invalid}{note}</div>"
        )
    verdict = "stop" if analysis.stop else "go on"
    reason = f": {escape(analysis.reason)}" if analysis.reason else ""
    found = findings.get("pairs")
    pairs = (
        [_pair_html(view, line, pair) for pair in found if isinstance(pair, dict)] if isinstance(found, list) else []
    )
    return (
        f'<div class="line analysis{" paired" if pairs else ""}" data-turn="{line.turn}">{head}'
        f'<span class="verdict {"stop" if analysis.stop else "go"}">{verdict}</span>{reason}'
        f"{''.join(pairs)}{invalid}{note}</div>"
    )


def _pair_html(view: DebateView, line: Line, pair: dict[str, Any]) -> str:
    """Two agents' explanation items in two columns, matched pairs and differing pairs linked between them.

    Each link has a badge (the same on both sides: ``1``, ``2`` for matches, ``≠1`` for differences) and a
    line in the middle column (``1 ↔ 2 match``, ``2 ≠ 2 differ``); items in no pair stay plain.
    """
    first, second = str(pair.get("first", "")), str(pair.get("second", ""))
    sides = (Reply.of(line.compared.get(first)), Reply.of(line.compared.get(second)))
    counts = tuple(len(reply.items) if reply is not None else 0 for reply in sides)
    marks: tuple[dict[int, list[tuple[str, str]]], ...] = ({}, {})
    links = []
    for kind, key, sign in (("match", "similar", "↔"), ("differ", "dissimilar", "≠")):
        for k, (i, j) in enumerate(_pairs(pair.get(key)), 1):
            label = f"{k}" if kind == "match" else f"≠{k}"
            badge = f'<span class="link-badge {kind} c{(k - 1) % 6}">{label}</span>'
            marks[0].setdefault(i, []).append((kind, badge))
            marks[1].setdefault(j, []).append((kind, badge))
            missing = [n for n, count in ((i, counts[0]), (j, counts[1])) if not 1 <= n <= count]
            gone = f' <span class="muted">(no item {missing[0]})</span>' if missing else ""
            links.append(f'<div class="link {kind}" data-link="{i}-{j}">{badge}{i} {sign} {j} {kind}{gone}</div>')
    agree, similar = bool(pair.get("answers_agree")), bool(pair.get("explanations_similar"))
    summary = (
        f'<div class="pair-summary"><span class="flag {"yes" if agree else "no"}">'
        f"{'answers agree' if agree else 'answers disagree'}</span>"
        f'<span class="flag {"yes" if similar else "no"}">'
        f"{'explanations similar overall' if similar else 'explanations not similar overall'}</span></div>"
    )
    left = _side_html(view, first, sides[0], marks[0])
    right = _side_html(view, second, sides[1], marks[1])
    middle = "".join(links) or '<div class="link none muted">no items linked</div>'
    return (
        f'<div class="pair" data-first="{escape(first)}" data-second="{escape(second)}">{summary}'
        f'<div class="pair-grid">{left}<div class="links">{middle}</div>{right}</div></div>'
    )


def _side_html(view: DebateView, agent: str, reply: Reply | None, marks: dict[int, list[tuple[str, str]]]) -> str:
    """One agent's column of a pair: its answer and its numbered items, each with the badges of its links."""
    answer = f' · answer <b class="side-answer">{escape(reply.answer or "-")}</b>' if reply is not None else ""
    rows = []
    for n, text in enumerate(reply.items if reply is not None else (), 1):
        found = marks.get(n, [])
        kinds = "".join(f" {kind}" for kind in ("match", "differ") if any(k == kind for k, _ in found))
        rows.append(
            f'<li class="item{kinds}" data-item="{n}"><span class="item-no">{n}.</span> '
            f'<span class="item-text">{escape(text)}</span>{"".join(badge for _, badge in found)}</li>'
        )
    body = f'<ol class="items">{"".join(rows)}</ol>' if rows else '<div class="muted">no explanation items</div>'
    style = f"border-top-color:{view.colour(agent)}"
    head = f'<div class="side-head">{name_html(view, agent)}{answer}</div>'
    return f'<div class="pair-side" style="{style}">{head}{body}</div>'


ORIENTATION_WORDS = ("about their own answer", "about the other's answer")


def acts_html(view: DebateView, line: Line) -> str:
    """The acts every agent composed in a round, one row each: the acts as badges, then the action."""
    rows = []
    for composed in line.acts:
        acts = "".join(
            f'<span class="act" title="{ORIENTATION_WORDS[i] if i < 2 else ""}">{escape(act)}</span>'
            + ('<span class="plus">+</span>' if i < len(composed.acts) - 1 else "")
            for i, act in enumerate(composed.acts)
        )
        drawn = '<span class="badge random">drawn at random</span>' if composed.source.value == "policy" else ""
        action = f'<span class="action-text">— {escape(composed.action_text)}</span>' if composed.action_text else ""
        invalid = invalid_html(composed.valid, composed.error, "reply")
        rows.append(
            f'<div class="act-row" data-agent="{escape(composed.agent)}" '
            f'style="border-left-color:{view.colour(composed.agent)}">{name_html(view, composed.agent)}'
            f"{acts}{drawn}{action}{invalid}</div>"
        )
    return (
        f'<div class="line acts" data-turn="{line.turn}"><span class="badge">acts chosen, round '
        f"{line.acts[0].round}</span>{''.join(rows)}</div>"
    )


WEB = WebRenderers(
    protocols=("ace",),
    lines={"analysis_made": analysis_html, "action_composed": acts_html},
    folds={"analysis_made": fold_analysis, "action_composed": fold_acts},
)
