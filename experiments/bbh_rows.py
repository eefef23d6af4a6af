r"""BIG-Bench task files' rows as the engine's questions: the parsing half of ``bbh``.

What it does: ``parse_task(document, task)`` turns one BIG-bench ``task.json``
(already read) into ``BbhQuestion``\ s, with the rules ``bbh``'s docstring
lists: the task and input prefixes, multiple choice from ``target_scores``
(options shuffled for ``SHUFFLED``'s tasks, digit twins of number words
dropped, one right option kept where the ``target`` names it), free-form from
``target`` (a list gives its digits entry where it has one, as BBH poses
object_counting, else its first) or when there are more options than a
``Question`` takes; unusable rows skipped and counted in the log.

What it does not do: find, fetch or cache task files (``bbh``).
"""

from __future__ import annotations

import hashlib
import logging
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeGuard

from pydantic import ValidationError

from debate_core.config import MAX_ANSWER_LENGTH, MAX_OPTION_LENGTH, MAX_OPTIONS, OPTION_LABELS, Question

logger = logging.getLogger("experiments")

# Tasks whose files list the right option first (date_understanding: 364 of 369 rows, temporal_sequences: all
# 1,000): their options are shuffled, seeded by the task and the row's index, so a position gives nothing away.
SHUFFLED = frozenset({"date_understanding", "temporal_sequences"})
_NUMBER_WORDS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
)  # fmt: skip


class BbhError(ValueError):
    """A BBH task is unknown, or its data could not be found, fetched or read."""


@dataclass(frozen=True)
class BbhQuestion:
    task: str
    index: int  # the example's position in its file, kept when other rows are skipped
    text: str
    options: tuple[str, ...]  # empty for a free-form question
    answer: str  # the right option's label ("A", ...), or the free-form answer

    def question(self) -> Question:
        return Question(text=self.text, options=self.options, answer=self.answer)


# --- rows -> questions ---------------------------------------------------------------


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _first_target(target: object) -> str | None:
    """``target`` as one answer: the string, or a list's digits entry (BBH's "3" over "three"), else its
    first; None when there is none."""
    if isinstance(target, list):
        digits = [t for t in target if isinstance(t, str) and t.strip().isdigit()]
        target = digits[0] if digits else (target[0] if target else None)
    return target.strip() if isinstance(target, str) and target.strip() else None


def _without_digit_twins(scored: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """A number offered both as digits and as a word, with the same score, kept once: the word."""
    scores = dict(scored)
    return [
        (option, score)
        for option, score in scored
        if not (
            option.isascii()
            and option.isdigit()
            and int(option) < len(_NUMBER_WORDS)
            and scores.get(_NUMBER_WORDS[int(option)]) == score
        )
    ]


def _choices(row: Mapping[str, object], notes: Counter[str]) -> tuple[tuple[str, ...], int] | str:
    """``target_scores`` as (options, the right one's position), or why the row cannot be used."""
    scores = row["target_scores"]
    if not isinstance(scores, dict) or len(scores) < 2:
        return "with fewer than two options"
    scored = [(str(option).strip(), value) for option, value in scores.items()]
    if not all(_is_number(value) for _, value in scored):
        return "with a score that is not a number"
    if any(not option for option, _ in scored):
        return "with a blank option"
    if len({option for option, _ in scored}) < len(scored):
        return "with an option twice"
    if any(len(option) > MAX_OPTION_LENGTH for option, _ in scored):
        return f"with an option longer than {MAX_OPTION_LENGTH} characters"
    merged = _without_digit_twins(scored)
    if len(merged) < len(scored):
        notes["numbers offered as digits and as words: the digits dropped"] += 1
    best = max(value for _, value in merged)
    right = [option for option, value in merged if value == best]
    if best <= 0:
        return "with no option scored above zero"
    if len(right) > 1:
        target = _first_target(row.get("target"))
        if target not in right:
            return "with several right options and no target naming one"
        merged = [(option, value) for option, value in merged if option == target or value != best]
        right = [target]
        notes["several right options: the target's kept, the others dropped"] += 1
    options = tuple(option for option, _ in merged)
    return options, options.index(right[0])


def _shuffled(task: str, index: int, options: tuple[str, ...], right: int) -> tuple[tuple[str, ...], int]:
    """``options`` in an order seeded by the task and the row's index (the same from any copy of the file)."""
    digest = hashlib.sha256(f"{task}:{index}".encode()).hexdigest()
    order = list(range(len(options)))
    random.Random(int(digest[:16], 16)).shuffle(order)
    return tuple(options[i] for i in order), order.index(right)


def _text(row: Mapping[str, object], prefix: str, input_prefix: str) -> str | None:
    text = row.get("input")
    if not isinstance(text, str) or not text.strip():
        return None
    body = (input_prefix + text).strip()
    return f"{prefix.strip()}\n\n{body}" if prefix.strip() else body


def _question_of(
    task: str, index: int, row: object, prefix: str, input_prefix: str, notes: Counter[str]
) -> BbhQuestion | str:
    """The row as a question, or why it cannot be one."""
    if not isinstance(row, dict):
        return "not an object"
    text = _text(row, prefix, input_prefix)
    if text is None:
        return "without an input"
    options: tuple[str, ...] = ()
    answer: str
    if "target_scores" in row:
        choices = _choices(row, notes)
        if isinstance(choices, str):
            return choices
        options, right = choices
        if task in SHUFFLED:
            options, right = _shuffled(task, index, options, right)
        answer = OPTION_LABELS[right] if len(options) <= MAX_OPTIONS else options[right]
        if len(options) > MAX_OPTIONS:
            notes[f"more than {MAX_OPTIONS} options: posed free-form"] += 1
            options = ()
    else:
        target = _first_target(row.get("target"))
        if target is None:
            return "without target_scores or a target"
        answer = target
    if len(answer) > MAX_ANSWER_LENGTH:
        return f"with an answer longer than {MAX_ANSWER_LENGTH} characters"
    question = BbhQuestion(task=task, index=index, text=text, options=options, answer=answer)
    try:
        question.question()  # the engine's own checks (text length, blank text)
    except ValidationError as error:
        return f"refused by Question ({error.errors()[0]['msg']})"
    return question


def parse_task(document: object, task: str, *, source: str = "rows") -> list[BbhQuestion]:
    """A task.json's content (or a bare list of examples) as questions; unusable rows skipped and logged."""
    if isinstance(document, list):
        document = {"examples": document}
    if not isinstance(document, dict) or not isinstance(document.get("examples"), list):
        raise BbhError(f"cannot read BBH task {task} from {source}: expected an object with a list of 'examples'")
    prefix, input_prefix = document.get("task_prefix", ""), document.get("example_input_prefix", "")
    prefix = prefix if isinstance(prefix, str) else ""
    input_prefix = input_prefix if isinstance(input_prefix, str) else ""
    questions: list[BbhQuestion] = []
    skipped: dict[str, list[int]] = {}
    notes: Counter[str] = Counter()
    rows = document["examples"]
    for index, row in enumerate(rows):
        found = _question_of(task, index, row, prefix, input_prefix, notes)
        if isinstance(found, str):
            skipped.setdefault(found, []).append(index)
        else:
            questions.append(found)
    if skipped:
        reasons = "; ".join(
            f"{len(rows_)} {reason} (rows {', '.join(map(str, rows_[:5]))}{', ...' if len(rows_) > 5 else ''})"
            for reason, rows_ in skipped.items()
        )
        count = sum(len(rows_) for rows_ in skipped.values())
        logger.warning("BBH %s: skipped %d of %d rows of %s: %s", task, count, len(rows), source, reasons)
    for note, count in notes.items():
        logger.info("BBH %s: %d rows with %s", task, count, note)
    return questions
