"""A data file's rows as questions: every usable row kept, the others skipped and logged.

What it does: ``usable_rows(rows, question_of, dataset=..., why=..., source=...)``
calls ``question_of(index, row)`` on each row (None: unusable) and returns
the questions, in file order, logging one warning that says how many rows
were skipped, why (``why``), and which (the first ten row numbers). Row
numbers, never row text, reach the log (some data sets ask that their items
are never published).

What it does not do: read files or decide what makes a row usable (each
data set's loader does).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TypeVar

logger = logging.getLogger("experiments")
Q = TypeVar("Q")


def usable_rows(
    rows: Iterable[object], question_of: Callable[[int, object], Q | None], *, dataset: str, why: str, source: str
) -> list[Q]:
    questions: list[Q] = []
    skipped: list[int] = []
    for index, row in enumerate(rows):
        question = question_of(index, row)
        if question is None:
            skipped.append(index)
        else:
            questions.append(question)
    if skipped:
        shown = ", ".join(str(i) for i in skipped[:10]) + (", ..." if len(skipped) > 10 else "")
        total = len(skipped) + len(questions)
        logger.warning("%s: skipped %d of %d rows of %s %s (rows %s)", dataset, len(skipped), total, source, why, shown)
    return questions
