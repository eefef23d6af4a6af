"""HTML for debates that answer in rounds: the answers per round, with the final decision.

What it does: ``rounds_html`` draws the answers per round (rows) of every
agent who answers (columns), from ``AnswersUpdated`` events whose cause is
``round N``, with the final decision and its rule, or, before the end, an
agent's pick so far (``DebateView.pick``, which a protocol's fold sets).
Every text a model or a person wrote goes through ``html.escape``.

What it does not do: draw the transcript (``render``) or a protocol's own
lines (its ``web`` module: ACE's analyses and acts are in
``protocols/ace/web.py``).
"""

from __future__ import annotations

from html import escape

from ui.render_bits import name_html
from ui.view_model import DebateView


def rounds_html(view: DebateView) -> str:
    """The answers after each round (rows) of every agent who answers (columns), then the final decision.

    Empty for a debate that does not answer in rounds. An answer that changed since the round before is
    marked, the correct one ticked when it is known and may be shown (``DebateView.shown_answer``); the
    decision row says by which rule it was reached (consensus, an agent's pick as judge, majority).
    """
    if not view.rounds:
        return ""
    speakers = {u.speaker for u in view.utterances.values()}
    columns = [a for a in view.agents if a in speakers or any(answers.get(a) for _, answers in view.rounds)]
    head = "".join(f"<th>{name_html(view, agent)}</th>" for agent in columns)
    rows, before = [], dict.fromkeys(columns)
    for number, answers in view.rounds:
        cells = []
        for agent in columns:
            answer = answers.get(agent)
            changed = " changed" if before[agent] is not None and answer != before[agent] else ""
            right = " right" if answer is not None and answer == view.shown_answer else ""
            tick = " ✓" if right else ""
            cells.append(f'<td class="answer{changed}{right}">{escape(answer or "-")}{tick}</td>')
            before[agent] = answer
        rows.append(f'<tr data-round="{number}"><th>{number}</th>{"".join(cells)}</tr>')
    decision = _decision_cell(view)
    if decision:
        rows.append(f'<tr class="decision"><th>final</th><td colspan="{len(columns)}">{decision}</td></tr>')
    return (
        '<div class="rounds"><table class="rounds-table"><caption>Answers per round</caption>'
        f"<thead><tr><th>round</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _decision_cell(view: DebateView) -> str:
    """The final answer and its rule once the debate has ended; before that, an analyst's pick if made."""
    ended, pick = view.ended, view.pick
    if ended is None:
        if pick is None:
            return ""
        said = f"picks <b>{escape(pick.answer)}</b>" if pick.answer else "made no usable pick"
        return f"{name_html(view, pick.agent)} {said}"
    answer = f"<b>{escape(ended.final_answer or '-')}</b>"
    right = " ✓" if ended.correct else (" ✗" if ended.correct is False else "")
    how = escape("early exit" if ended.reason.value == "early_exit" else ended.rule.replace("_", " "))
    first = ended.rule == "majority" and ended.decided_by is not None  # a tie that went to the first answer
    if ended.decided_by and not first:
        how += f": {'picked by ' if ended.rule == 'judge' else ''}{name_html(view, ended.decided_by)}"
    broken = f"to {name_html(view, ended.decided_by)}'s, given first" if first else "drawn"
    tie = f" (tie among {escape(', '.join(ended.tie))}, {broken})" if ended.tie else ""
    return f'{answer}{right} <span class="rule" data-rule="{escape(ended.rule)}">{how}{tie}</span>'
