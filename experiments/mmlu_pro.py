"""MMLU-Pro's test split: 12,032 questions in 14 categories, up to ten options (A to J), from the hub.

What it does: ``load_mmlu_pro()`` reads TIGER-Lab/MMLU-Pro's ``test`` split
(MIT licence) from a file you name (JSON lines or a JSON list of the hub's
rows), else the cached ``$DEBATE_DATA_CACHE/mmlu_pro/test.jsonl``, else the
Hugging Face hub through ``datasets`` (loaded once, then cached:
``hub_data``). A row (``question_id``, ``question``, ``options``,
``answer``, ``answer_index``, ``cot_content``, ``category``, ``src``)
becomes an ``MmluProQuestion``: its options in the row's order, labelled A,
B, ... (the engine takes up to 26 labels; MMLU-Pro has at most ten, some
rows fewer), the correct label from ``answer_index`` (the letter ``answer``
must agree when both are given), its category as the subject. A row
without a question, at least two options none blank, or a correct option
in range (or whose letter and index disagree) is skipped and counted in the
log. ``mmlu_pro_items`` samples ``n`` with the study's seed.

What it does not do: show the chain of thought (``cot_content``, few-shot
material, never used), read the validation split (its 70 rows are MMLU-Pro's
few-shot examples), shuffle options, or print (the logger ``experiments``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from debate_core.config import OPTION_LABELS, Question
from experiments import hub_data
from experiments.items import Item
from experiments.rows import usable_rows

DATASET = "mmlu_pro"
EXPECTED_QUESTIONS = 12_032
MAX_OPTIONS = 10  # MMLU-Pro's A to J
SOURCE = hub_data.HubSource(
    name="MMLU-Pro",
    dataset=DATASET,
    hub_id="TIGER-Lab/MMLU-Pro",
    config=None,
    split="test",
    cache_file="mmlu_pro/test.jsonl",
    fields="question, options, answer_index (or answer), category",
)


@dataclass(frozen=True)
class MmluProQuestion:
    index: int  # the row's position in the split, kept when other rows are skipped
    id: str  # MMLU-Pro's question_id
    category: str
    text: str
    options: tuple[str, ...]
    answer: str  # the correct option's label

    def question(self) -> Question:
        return Question(text=self.text, options=self.options, answer=self.answer)


def _correct(row: Mapping[str, object], count: int) -> int | None:
    """The correct option's position: ``answer_index``, else the letter ``answer``; None when out of range or
    when the two disagree."""
    index = hub_data.whole_number(row.get("answer_index"))
    letter = hub_data.text_of(row.get("answer")).upper()
    by_letter = OPTION_LABELS.index(letter) if len(letter) == 1 and letter in OPTION_LABELS else None
    if index is not None and by_letter is not None and index != by_letter:
        return None
    found = index if index is not None else by_letter
    return found if found is not None and 0 <= found < count else None


def _question_of(index: int, row: object) -> MmluProQuestion | None:
    if not isinstance(row, dict):
        return None
    text, options = hub_data.text_of(row.get("question")), row.get("options")
    if not text or not isinstance(options, list) or not 2 <= len(options) <= MAX_OPTIONS:
        return None
    cleaned = tuple(hub_data.text_of(option) for option in options)
    if not all(cleaned):
        return None
    correct = _correct(row, len(cleaned))
    if correct is None:
        return None
    found = MmluProQuestion(
        index=index,
        id=str(row.get("question_id") if row.get("question_id") is not None else index),
        category=hub_data.text_of(row.get("category")) or "mmlu_pro",
        text=text,
        options=cleaned,
        answer=OPTION_LABELS[correct],
    )
    try:
        found.question()  # the engine's own checks (lengths)
    except ValidationError:
        return None
    return found


def parse_rows(rows: Sequence[object], source: str = "rows") -> list[MmluProQuestion]:
    """MMLU-Pro rows as questions; unusable rows skipped and logged (their numbers, never their text)."""
    why = "without a question, two to ten options none blank, or a correct option that is one of them"
    return usable_rows(rows, _question_of, dataset="MMLU-Pro", why=why, source=source)


def load_mmlu_pro(
    path: str | Path | None = None, *, cache: str | Path | None = None, fetch: bool = True
) -> list[MmluProQuestion]:
    """Every usable question of the test split, in order, from ``path``, the cache or the hub."""
    return hub_data.load(SOURCE, parse_rows, path, cache=cache, fetch=fetch)


def mmlu_pro_items(n: int, seed: int, data: str | None = None) -> list[Item]:
    """``n`` seeded MMLU-Pro questions, the category as the subject; ``data``: a local copy of the split."""
    if not n:
        return []
    chosen = hub_data.sample(load_mmlu_pro(data), n, seed=seed, name="MMLU-Pro")
    return [Item(DATASET, hub_data.item_key(DATASET, q.index, text=q.text), q.category, q.question()) for q in chosen]
