"""StrategyQA: 2,290 yes/no questions with implicit reasoning, from a file or BIG-bench's source archive.

What it does: ``load_strategyqa()`` reads the questions from, in order of
preference, a local file you name (BIG-bench's ``task.json``, a JSON list, or
JSON lines of ``{question, answer}`` rows), the cached ``task.json`` (in
``$DEBATE_DATA_CACHE/strategyqa/``, by default
``~/.cache/interruptible-debate/strategyqa/``), or, when allowed, a fresh
copy: ``fetch_strategyqa()`` takes the source archive of ``bigbench==1.0.0``
(about 358 MB; the data ships only there) from the package index and streams
the one member ``bigbench/benchmark_tasks/strategyqa/task.json`` out of it
into the cache (``sdist``: sha256-checked, nothing run, a temporary file then
a rename), and deletes the archive unless asked to keep it. A ``cache`` argument names the
folder holding ``task.json`` itself. ``sample`` draws a seeded sample.

Each usable row becomes a ``StrategyQaQuestion`` whose ``question()`` is the
engine's two-option ``Question``: ``options=("Yes", "No")``, answer ``A`` for
yes and ``B`` for no, so every protocol scores it by label. A row without a
question or without one clear yes/no answer is skipped and counted in the log.

What it does not do: install or import ``bigbench`` (never a dependency),
extract anything else from the archive, print (progress goes to the logger
``experiments``), or touch the network unless nothing is cached and
``fetch`` is true.
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from pydantic import ValidationError

from debate_core.config import Question
from experiments.rows import usable_rows
from experiments.sdist import SdistError, archive_name, extract_member, with_archive

logger = logging.getLogger("experiments")

ANSWERS = ("Yes", "No")
LABELS = {"Yes": "A", "No": "B"}
EXPECTED_EXAMPLES = 2_290
CACHE_ENV = "DEBATE_DATA_CACHE"
TASK_FILE = "task.json"
PROJECT, VERSION = "bigbench", "1.0.0"
REQUIREMENT = f"{PROJECT}=={VERSION}"
ARCHIVE_NAME = archive_name(PROJECT, VERSION)
MEMBER = "bigbench-1.0.0/bigbench/benchmark_tasks/strategyqa/task.json"
_WORDS = {"yes": "Yes", "true": "Yes", "no": "No", "false": "No"}
_TIMEOUT_S = 60


@dataclass(frozen=True)
class StrategyQaQuestion:
    index: int  # the row's position in its file, kept when other rows are skipped
    text: str
    answer: str  # "Yes" or "No"
    explanation: str

    def question(self) -> Question:
        return Question(text=self.text, options=ANSWERS, answer=LABELS[self.answer])


class StrategyQaError(ValueError):
    """The StrategyQA data could not be found, fetched or read."""


# --- rows -> questions --------------------------------------------------------


def _word(value: object) -> str | None:
    """The answer a yes/no/true/false word or a bool stands for; None for anything else."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, str):
        return _WORDS.get(value.strip().strip(".!").lower())
    return None


def _from_scores(scores: object) -> str | None:
    """BIG-bench's ``target_scores``: the one of Yes/No scored above zero."""
    if not isinstance(scores, dict):
        return None
    by_word = {_word(key): value for key, value in scores.items()}
    yes, no = by_word.get("Yes"), by_word.get("No")
    if not (_is_number(yes) and _is_number(no)):
        return None
    if float(yes) > 0 >= float(no):
        return "Yes"
    if float(no) > 0 >= float(yes):
        return "No"
    return None


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _leading_word(target: object) -> str | None:
    if not isinstance(target, str) or not target.strip():
        return None
    return _word(re.split(r"[\s.,;:!]", target.strip(), maxsplit=1)[0])


def answer_of(row: dict[str, object]) -> str | None:
    """The row's answer: ``target_scores`` and ``answer`` (where present) and ``target``'s first word must agree.

    A present ``target_scores`` or ``answer`` that names no single yes/no makes the row unclear.
    """
    readings = [
        *([_from_scores(row["target_scores"])] if "target_scores" in row else []),
        *([_word(row["answer"])] if "answer" in row else []),
    ]
    if None in readings:
        return None
    found = {answer for answer in [*readings, _leading_word(row.get("target"))] if answer}
    return found.pop() if len(found) == 1 else None


def explanation_of(row: dict[str, object]) -> str:
    """``explanation``, else ``target`` without its leading Yes/No, else the ``facts`` joined."""
    if isinstance(row.get("explanation"), str):
        return str(row["explanation"]).strip()
    target = row.get("target")
    if isinstance(target, str) and target.strip():
        text = target.strip()
        return (
            re.sub(r"^(yes|no|true|false)\b[.,;:!]?\s*", "", text, flags=re.IGNORECASE) if _leading_word(text) else text
        )
    facts = row.get("facts")
    if isinstance(facts, list):
        return " ".join(str(fact).strip() for fact in facts)
    return ""


def _question_of(index: int, row: object) -> StrategyQaQuestion | None:
    if not isinstance(row, dict):
        return None
    text = row.get("input", row.get("question"))
    answer = answer_of(row)
    if not isinstance(text, str) or not text.strip() or answer is None:
        return None
    question = StrategyQaQuestion(index=index, text=text.strip(), answer=answer, explanation=explanation_of(row))
    try:
        question.question()  # the engine's own checks (length, blank text)
    except ValidationError:
        return None
    return question


def parse_rows(rows: Iterable[object], *, source: str = "rows") -> list[StrategyQaQuestion]:
    """Rows in BIG-bench's shape (input, target_scores, target) or ``{question, answer}``; unclear rows skipped."""
    return usable_rows(
        rows, _question_of, dataset="StrategyQA", why="without a question and one clear yes/no answer", source=source
    )


# --- files ----------------------------------------------------------------------


def read_rows(path: Path) -> list[object]:
    """The rows of ``path``: ``{"examples": [...]}``, a JSON list, or JSON lines."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise StrategyQaError(f"cannot read StrategyQA from {path}: {error}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as whole:
        return _json_lines(text, path, whole)
    if isinstance(data, dict) and "examples" in data:
        data = data["examples"]
        if not isinstance(data, list):
            raise StrategyQaError(f"cannot read StrategyQA from {path}: 'examples' is not a list")
    if isinstance(data, dict):  # JSON lines with a single row
        return [data]
    if not isinstance(data, list):
        raise StrategyQaError(
            f"cannot read StrategyQA from {path}: expected an object or a list, got {type(data).__name__}"
        )
    return data


def _json_lines(text: str, path: Path, whole: json.JSONDecodeError) -> list[object]:
    lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines or not _is_json(lines[0][1]):  # not JSON lines either: the whole file's error says more
        raise StrategyQaError(f"cannot read StrategyQA from {path}: not JSON ({whole})") from whole
    rows: list[object] = []
    for number, line in lines:
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise StrategyQaError(f"cannot read StrategyQA from {path}: line {number}: {error}") from error
    return rows


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


def read_file(path: Path) -> list[StrategyQaQuestion]:
    questions = parse_rows(read_rows(path), source=str(path))
    if not questions:
        raise StrategyQaError(f"no StrategyQA question with a yes/no answer in {path}")
    logger.info("StrategyQA: %d questions from %s", len(questions), path)
    return questions


def default_cache() -> Path:
    """``$DEBATE_DATA_CACHE/strategyqa``, by default ``~/.cache/interruptible-debate/strategyqa``."""
    root = os.environ.get(CACHE_ENV)
    return (Path(root).expanduser() if root else Path.home() / ".cache" / "interruptible-debate") / "strategyqa"


def load_strategyqa(
    path: str | Path | None = None, *, cache: str | Path | None = None, fetch: bool = True
) -> list[StrategyQaQuestion]:
    """Every StrategyQA question, in file order, from ``path``, the cache folder, or a fresh fetch."""
    if path:
        return read_file(Path(path))
    folder = Path(cache).expanduser() if cache else default_cache()
    cached = folder / TASK_FILE
    if cached.is_file():
        return read_file(cached)
    if not fetch:
        raise StrategyQaError(f"StrategyQA is not cached at {cached}: pass its task.json or a JSON-lines file (--data)")
    return read_file(fetch_strategyqa(folder))


def sample(questions: Sequence[StrategyQaQuestion], n: int, *, seed: int = 0) -> list[StrategyQaQuestion]:
    """``n`` questions drawn without replacement by a seeded generator."""
    if n > len(questions):
        raise StrategyQaError(f"asked for {n} questions, only {len(questions)} available")
    return random.Random(seed).sample(list(questions), n)


# --- fetching -------------------------------------------------------------------


def fetch_strategyqa(cache: str | Path | None = None, *, keep_archive: bool = False) -> Path:
    """Download bigbench's source archive, extract StrategyQA's task.json into ``cache``; its path.

    An archive kept by an earlier fetch (``cache/bigbench-1.0.0.tar.gz``) is
    used instead of downloading.
    """
    folder = Path(cache).expanduser() if cache else default_cache()
    target = folder / TASK_FILE

    def failed(error: SdistError) -> StrategyQaError:
        return StrategyQaError(
            f"cannot download {REQUIREMENT} (StrategyQA's source) from the package index ({error}). "
            f"Check the network and pip's configuration, or pass StrategyQA's task.json or a JSON-lines file "
            f"of {{question, answer}} rows (--data), or put task.json at {target}"
        )

    with_archive(
        PROJECT,
        VERSION,
        folder,
        lambda archive: _extract_member(archive, target),
        keep_archive=keep_archive,
        failed=failed,
    )
    return target


def _extract_member(archive: Path, target: Path) -> None:
    """StrategyQA's task.json out of ``archive`` into ``target``, checked before it replaces anything."""
    try:
        count = extract_member(archive, MEMBER, target, lambda path: len(read_rows(path)))
    except SdistError as error:
        raise StrategyQaError(str(error)) from None
    logger.info("StrategyQA: %s examples extracted to %s", count, target)
