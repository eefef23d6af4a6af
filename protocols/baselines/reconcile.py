"""RTC (ReConcile, Chen, Saha and Bansal): answers with confidence, the round table's record, the weighted vote.

What it does: ``confident_form`` is a solution whose reply ends with ``Final Answer: ...`` and
``Confidence: <0.0-1.0>`` (``rtc_first``, ``rtc_revise``); its value is a ``Solved`` with the
confidence read (a missing or unreadable one counts at the lowest weight, noted on the reply); a
person picks the confidence from a list. ``grouped`` is what a round shows every agent: the
answers of the last round grouped by answer, each with its explanations and confidences, as
ReConcile's discussion prompt groups them. ``weight`` is ReConcile's recalibration of a stated
confidence p (1.0 if p = 1.0; 0.8 if p >= 0.9; 0.5 if p >= 0.8; 0.3 if p > 0.6; else 0.1) and
``weighted_vote`` the final decision: each agent's last answer weighted by its recalibrated
confidence, the heaviest answer winning (a tie drawn with the debate's seed).

What it does not do: decide the rounds or the consensus that ends them (``loop``), or give the
agents their models (the kernel's per-agent routing, ``--model-for NAME=MODEL``).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from debate_core.events.records import AgentAnswer
from debate_core.kernel.endings import FinalDecision, answer_key
from debate_core.kernel.forms import FieldSpec, Form
from protocols.baselines.forms import Solved, solution_form
from protocols.baselines.views import SolverView

CONFIDENCES = ("1.0", "0.9", "0.8", "0.7", "0.6", "0.5", "0.4", "0.3", "0.2", "0.1", "0.0")
RULE = "confidence_weighted"
_LINE = re.compile(r"^[\s>*_#-]*confidence[\s*_]*[:：][\s*_]*(?P<value>[0-9]*\.?[0-9]+)\s*(?P<pct>%?)", re.I | re.M)


def read_confidence(text: str) -> float | None:
    """The last ``Confidence:`` line's number, in [0, 1] (a percentage read as such); None without one."""
    found = list(_LINE.finditer(text))
    if not found:
        return None
    value = float(found[-1].group("value"))
    value = value / 100 if found[-1].group("pct") or value > 1 else value
    return min(1.0, max(0.0, value))


def weight(confidence: float | None) -> float:
    """ReConcile's recalibrated weight of a stated confidence (the lowest for none)."""
    if confidence is None:
        return 0.1
    if confidence >= 1.0:
        return 1.0
    if confidence >= 0.9:
        return 0.8
    if confidence >= 0.8:
        return 0.5
    if confidence > 0.6:
        return 0.3
    return 0.1


def confident_form(kind: str, description: str, template: str, cap: int) -> Form[Any, Solved]:
    """A solution with its answer line and its confidence line."""
    base = solution_form(kind, description, template, cap)

    def parse(raw: str, view: SolverView) -> tuple[Solved, str | None]:
        solved, note = base.parse(raw, view)
        confidence = read_confidence(raw)
        if confidence is None:
            note = "; ".join(n for n in (note, "no Confidence line: the lowest weight") if n)
        return dataclasses.replace(solved, confidence=confidence), note

    def fields(view: SolverView) -> tuple[FieldSpec, ...]:
        return (*base.fields(view), FieldSpec("confidence", "choice", "Your confidence", choices=CONFIDENCES))

    def from_human(values: Mapping[str, Any], view: SolverView) -> Solved:
        solved = base.from_human(values, view)
        confidence = float(values["confidence"])
        return dataclasses.replace(solved, text=f"{solved.text}\nConfidence: {confidence}", confidence=confidence)

    return dataclasses.replace(base, parse=parse, fields=fields, from_human=from_human)


def grouped(answers: Mapping[str, Solved]) -> tuple[str, ...]:
    """The last round's answers grouped by answer, each group with its agents' explanations and confidences."""
    groups: dict[str, list[str]] = {}
    for agent, solved in answers.items():
        confidence = "none stated" if solved.confidence is None else f"{solved.confidence:.1f}"
        groups.setdefault(solved.answer or "(no answer)", []).append(
            f"- {agent} (confidence {confidence}): {solved.text}"
        )
    return tuple(
        f"{len(lines)} agent(s) answer {answer}:\n" + "\n".join(lines)
        for answer, lines in sorted(groups.items(), key=lambda item: -len(item[1]))
    )


def weighted_vote(
    answers: Sequence[AgentAnswer], confidences: Mapping[str, float | None], rng: random.Random
) -> tuple[FinalDecision, str]:
    """The answer with the most recalibrated confidence behind it, and the tally as text."""
    totals: dict[str, float] = {}
    spelling: dict[str, str] = {}
    for item in answers:
        if item.answer is None or not item.answer.strip():
            continue
        key = answer_key(item.answer)
        spelling.setdefault(key, item.answer.strip())
        totals[key] = totals.get(key, 0.0) + weight(confidences.get(item.agent))
    tally = ", ".join(f"{spelling[k]}: {v:.1f}" for k, v in sorted(totals.items(), key=lambda kv: -kv[1]))
    if not totals:
        return FinalDecision(None, RULE, tuple(answers)), "no answers"
    top = max(totals.values())
    tied = sorted(spelling[k] for k, v in totals.items() if abs(v - top) < 1e-9)
    winner = tied[0] if len(tied) == 1 else rng.choice(tied)
    return FinalDecision(winner, RULE, tuple(answers), tie=tuple(tied) if len(tied) > 1 else ()), tally
