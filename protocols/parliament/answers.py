"""The answer lines Parliament's roles end with, found and normalised.

What it does: every speech of the prover-critic debates ends with a line the
protocol reads: ``Proposed Answer: ...`` (the prover's position),
``Opposition Proposed Answer: ...|SAME`` (the critic's), ``Verdict:
AGREE|DISAGREE`` (a congress critique), ``Provisional Answer: ...`` (the
Socratic student) and ``Final Answer: ...`` (the debate's answer).
``find_line`` returns the last such line of a text (markdown bold and bullets
tolerated); ``normalize_answer`` turns what follows into the answer the
debate keeps: for a multiple-choice question an option label (``B``, ``(B)``,
``B) nitrogen``, ``option B``, or the option's exact text), for a free-form
question the text itself (without a final period, at most
``MAX_FREE_ANSWER``). ``SAME`` means "the prover's answer" where a role may
say it.

What it does not do: score answers (``kernel.endings.is_correct`` compares
labels exactly, or free-form answers case-insensitively; never by
containment, which rewards answers that list everything), or decide what a
missing line leads to (``forms`` documents each fallback).
"""

from __future__ import annotations

import re

from debate_core.config import Question
from debate_core.kernel import answers as kernel_answers
from debate_core.kernel.answers import MAX_FREE_ANSWER

__all__ = ["MAX_FREE_ANSWER", "SAME", "VERDICTS", "answer_choices", "find_line", "normalize_answer", "strip_lines"]
SAME = "SAME"
VERDICTS = ("AGREE", "DISAGREE")

_LINE = re.compile(
    r"^[\s>*_#-]*(?P<name>opposition proposed answer|proposed answer|provisional answer|final answer|verdict)"
    r"[\s*_]*[:：][\s*_]*(?P<value>.*?)[\s*_]*$",
    re.IGNORECASE | re.MULTILINE,
)


def find_line(text: str, name: str) -> str | None:
    """What follows the last ``name:`` line of ``text`` (case-insensitive), or None."""
    wanted = name.casefold()
    found = [m.group("value").strip() for m in _LINE.finditer(text) if m.group("name").casefold() == wanted]
    return found[-1] if found else None


def strip_lines(text: str) -> str:
    """``text`` without its answer and verdict lines (the argument alone)."""
    return _LINE.sub("", text).strip()


def normalize_answer(raw: str | None, question: Question, *, allow_same: bool = False) -> str | None:
    """The answer ``raw`` names, as the debate keeps it (``SAME`` where allowed); None when it names none."""
    if allow_same and raw is not None and raw.strip().strip("*_`\"'").strip().rstrip(".").strip().upper() == SAME:
        return SAME
    return kernel_answers.normalize_answer(raw, question)


def normalize_verdict(raw: str | None) -> str | None:
    if raw is None:
        return None
    word = raw.strip().strip("*_`\"'.").upper()
    return word if word in VERDICTS else None


def answer_choices(question: Question, *, allow_same: bool = False) -> tuple[str, ...]:
    """What a person (or a constrained model) may name: the labels, and SAME where allowed."""
    return (*question.labels, SAME) if allow_same and question.labels else question.labels
