"""What answer a model's or a person's words name: an option label, or a short free-form answer.

What it does: ``normalize_answer(raw, question)`` turns what follows an answer
line (or an ``answer`` field) into the answer a debate keeps: for a
multiple-choice question an option label (``B``, ``(B)``, ``B) nitrogen``,
``option B``, or the option's exact text), for a free-form question the text
itself (without a final period, at most ``MAX_FREE_ANSWER`` characters); None
when it names none. ``answer_choices(question)`` is what a person (or a
constrained model) may name: the option labels, or nothing for a free-form
question. Every protocol that reads answers shares these.

What it does not do: find the answer line in a text (each protocol's forms
know their format) or score answers (``endings.is_correct``: labels exactly,
free-form answers case-insensitively, never by containment).
"""

from __future__ import annotations

import re

from debate_core.config import Question, normalize_label

MAX_FREE_ANSWER = 200
_LEADING_LABEL = re.compile(r"^(?:option\s+|answer\s+)?\(?([A-Za-z])\)?(?:[).:\-\s]|$)", re.IGNORECASE)


def normalize_answer(raw: str | None, question: Question) -> str | None:
    """The answer ``raw`` names, as the debate keeps it; None when it names none."""
    if raw is None:
        return None
    text = raw.strip().strip("*_`\"'").strip()
    if not text:
        return None
    if not question.is_multiple_choice:
        return text.rstrip(".").strip()[:MAX_FREE_ANSWER] or None
    labels = question.labels
    label = normalize_label(text, labels)
    if label is not None:
        return label
    match = _LEADING_LABEL.match(text)
    if match and match.group(1).upper() in labels:
        return match.group(1).upper()
    wanted = text.rstrip(".").strip().casefold()
    for candidate, option in zip(labels, question.options, strict=True):
        if option.strip().rstrip(".").casefold() == wanted:
            return candidate
    return None


def answer_choices(question: Question) -> tuple[str, ...]:
    """The labels a multiple-choice answer may name (empty for a free-form question)."""
    return question.labels
