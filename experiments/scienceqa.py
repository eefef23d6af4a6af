"""ScienceQA's test split, its text-only questions: grade-school science, two to five options, hint and lecture.

What it does: ``load_scienceqa()`` reads the ``test`` split of the hub's
``derek-thomas/ScienceQA`` (4,241 rows; CC BY-SA 4.0 on the hub card, CC
BY-NC-SA on the authors' page) from a file you name (JSON lines or a JSON
list of the hub's rows), else the cached
``$DEBATE_DATA_CACHE/scienceqa/test.jsonl``, else the hub through
``datasets`` (loaded once, then cached: ``hub_data``; ``datasets`` fetches
every split's files, images included). The images are never decoded or
kept: the cache writes ``"image": "left out"`` for a row that has one. The
models here read text only, so a row with an image is left out (counted in
the log). A row (``question``, ``choices``, ``answer`` the correct choice's
index, ``hint``, ``lecture``, ``subject``, ``topic``, ``grade``...) becomes
a ``ScienceQuestion`` posed with its choices as options A, B, ... and, as
the SID paper used ScienceQA ("the lecture and hint as additional text
information", after LLaVA), its hint (``Context: ...``) and its lecture
(``Lecture: ...``) in the question's text under the question, so every
agent of every protocol reads them (SID shows no ``context``). A row without
a question, two choices none blank or a correct index in range is skipped
and counted in the log. ``scienceqa_items`` samples ``n`` with the study's
seed, its subject (natural, social or language science) as the subject.

What it does not do: pose the questions that need their image, show the
solution (the explanation: never shown), read the train or validation
split, or print (the logger ``experiments``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pydantic import ValidationError

from debate_core.config import OPTION_LABELS, Question
from experiments import hub_data
from experiments.items import Item
from experiments.rows import usable_rows

logger = logging.getLogger("experiments")
DATASET = "scienceqa"
IMAGE_LEFT_OUT = "left out"  # a cached row's image: it had one, not kept
SOURCE = hub_data.HubSource(
    name="ScienceQA",
    dataset=DATASET,
    hub_id="derek-thomas/ScienceQA",
    config=None,
    split="test",
    cache_file="scienceqa/test.jsonl",
    fields="question, choices, answer (the correct choice's index), image null",
)


@dataclass(frozen=True)
class ScienceQuestion:
    index: int  # the row's position in the split, kept when other rows are skipped
    text: str
    choices: tuple[str, ...]
    answer: str  # the correct choice's label
    hint: str
    lecture: str
    subject: str
    topic: str
    grade: str

    def question(self) -> Question:
        parts = [self.text]
        if self.hint:
            parts.append(f"Context: {self.hint}")
        if self.lecture:
            parts.append(f"Lecture: {self.lecture}")
        return Question(text="\n\n".join(parts), options=self.choices, answer=self.answer)


def has_image(row: object) -> bool:
    """Whether a row comes with an image (anything but null or an empty value)."""
    return isinstance(row, dict) and bool(row.get("image"))


def _question_of(index: int, row: object) -> ScienceQuestion | None:
    if not isinstance(row, dict):
        return None
    text, choices = hub_data.text_of(row.get("question")), row.get("choices")
    if not text or not isinstance(choices, list) or not 2 <= len(choices) <= len(OPTION_LABELS):
        return None
    cleaned = tuple(hub_data.text_of(choice) for choice in choices)
    correct = hub_data.whole_number(row.get("answer"))
    if not all(cleaned) or correct is None or not 0 <= correct < len(cleaned):
        return None
    found = ScienceQuestion(
        index=index,
        text=text,
        choices=cleaned,
        answer=OPTION_LABELS[correct],
        hint=hub_data.text_of(row.get("hint")),
        lecture=hub_data.text_of(row.get("lecture")),
        subject=hub_data.text_of(row.get("subject")) or DATASET,
        topic=hub_data.text_of(row.get("topic")),
        grade=hub_data.text_of(row.get("grade")),
    )
    try:
        found.question()  # the engine's own checks (lengths)
    except ValidationError:
        return None
    return found


def _text_only_question(_: int, pair: object) -> ScienceQuestion | None:
    index, row = cast(tuple[int, object], pair)  # parse_rows's (row number in the split, row)
    return _question_of(index, row)


def parse_rows(rows: Sequence[object], source: str = "rows") -> list[ScienceQuestion]:
    """The text-only rows as questions, rows with an image left out (counted), unusable rows skipped (logged;
    their numbers count the text-only rows)."""
    text_only = [(index, row) for index, row in enumerate(rows) if not has_image(row)]
    if len(text_only) < len(rows):
        logger.info(
            "ScienceQA: left out %d of %d rows of %s, which need their image",
            len(rows) - len(text_only),
            len(rows),
            source,
        )
    why = "without a question, two choices none blank, or a correct index among them"
    return usable_rows(
        text_only,
        _text_only_question,
        dataset="ScienceQA",
        why=why,
        source=f"{source} (text-only rows, numbered among them)",
    )


def rows_without_images(datasets: Any, table: Any) -> list[dict[str, Any]]:
    """The split's rows, each image replaced by ``IMAGE_LEFT_OUT`` (never decoded)."""
    if "image" in getattr(table, "column_names", ()):
        table = table.cast_column("image", datasets.Image(decode=False))
    return [{**row, "image": IMAGE_LEFT_OUT if row.get("image") else None} for row in table]


def load_scienceqa(
    path: str | Path | None = None, *, cache: str | Path | None = None, fetch: bool = True
) -> list[ScienceQuestion]:
    """Every usable text-only question of the test split, in order, from ``path``, the cache or the hub."""
    return hub_data.load(SOURCE, parse_rows, path, cache=cache, fetch=fetch, rows_of=rows_without_images)


def scienceqa_items(n: int, seed: int, data: str | None = None) -> list[Item]:
    """``n`` seeded text-only ScienceQA questions; ``data``: a local copy of the split."""
    if not n:
        return []
    chosen = hub_data.sample(load_scienceqa(data), n, seed=seed, name="text-only ScienceQA")
    return [Item(DATASET, hub_data.item_key(DATASET, q.index, text=q.text), q.subject, q.question()) for q in chosen]
