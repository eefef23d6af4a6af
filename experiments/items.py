"""A study's questions: each shared data set's seeded sample as ``Item``s with stable keys.

What it does: ``Item`` is one question of a study (its data set, its stable
key, its subject, the engine's ``Question``); ``mmlu_items``,
``strategyqa_items``, ``bbh_items`` (per task), ``gsm8k_items``,
``gpqa_items`` and ``hotpotqa_items`` call each loader and sample ``n``
questions with the study's seed, each keyed by its data set, row and a digest
of its text (so a key names the same question in every run). The shared data
sets are registered by name in ``datasets``.

What it does not do: read the files (``mmlu``, ``strategyqa``, ``bbh``,
``gsm8k``, ``gpqa``, ``hotpotqa`` do) or run anything (``compare``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from debate_core.config import Question


@dataclass(frozen=True)
class Item:
    """One question of the study: where it comes from, its stable key, the engine's ``Question``."""

    dataset: str
    key: str
    subject: str
    question: Question


def mmlu_items(n: int, seed: int, data: str | None = None) -> list[Item]:
    from experiments.mmlu import load_mmlu, sample

    chosen = sample(load_mmlu(data), n, seed=seed) if n else []
    items = []
    for q in chosen:
        digest = hashlib.sha256(q.text.encode()).hexdigest()[:10]
        items.append(Item("mmlu", f"mmlu:{q.index}:{digest}", q.subject, q.question()))
    return items


def strategyqa_items(n: int, seed: int, data: str | None = None) -> list[Item]:
    from experiments.strategyqa import load_strategyqa, sample

    chosen = sample(load_strategyqa(data), n, seed=seed) if n else []
    items = []
    for q in chosen:
        digest = hashlib.sha256(q.text.encode()).hexdigest()[:10]
        items.append(Item("strategyqa", f"strategyqa:{q.index}:{digest}", "strategyqa", q.question()))
    return items


def bbh_items(tasks: Sequence[str], n_per_task: int, seed: int, data: str | None = None) -> list[Item]:
    """``n_per_task`` questions of each BBH task, seeded per task; ``data``: a folder of task files."""
    from experiments.bbh import load_bbh, sample

    if not n_per_task:
        return []
    items = []
    for questions in load_bbh(tasks, path=data).values():
        for q in sample(questions, n_per_task, seed=seed):
            digest = hashlib.sha256(q.text.encode()).hexdigest()[:10]
            items.append(Item("bbh", f"bbh:{q.task}:{q.index}:{digest}", q.task, q.question()))
    return items


def gsm8k_items(n: int, seed: int, data: str | None = None) -> list[Item]:
    """``n`` seeded GSM8K questions (free-form, the final number as the answer); ``data``: a JSON-lines file."""
    from experiments.gsm8k import load_gsm8k, sample

    chosen = sample(load_gsm8k(data), n, seed=seed) if n else []
    items = []
    for q in chosen:
        digest = hashlib.sha256(q.text.encode()).hexdigest()[:10]
        items.append(Item("gsm8k", f"gsm8k:{q.index}:{digest}", "gsm8k", q.question()))
    return items


def gpqa_items(n: int, seed: int, data: str | None = None) -> list[Item]:
    """``n`` seeded GPQA Diamond questions (options shuffled per row); ``data``: GPQA's CSV file."""
    from experiments.gpqa import load_gpqa, sample

    chosen = sample(load_gpqa(data), n, seed=seed) if n else []
    items = []
    for q in chosen:
        digest = hashlib.sha256(q.text.encode()).hexdigest()[:10]
        items.append(Item("gpqa", f"gpqa:{q.index}:{digest}", "gpqa", q.question()))
    return items


def hotpotqa_items(
    n: int, seed: int, data: str | None = None, placement: Literal["context", "question"] = "context"
) -> list[Item]:
    """``n`` seeded HotpotQA (distractor) questions, the paragraphs as context (or, ``placement="question"``,
    in the text); ``data``: a local copy of the split (else the cache, else the Hugging Face hub)."""
    from experiments.hotpotqa import load_hotpotqa, sample

    chosen = sample(load_hotpotqa(data), n, seed=seed) if n else []
    items = []
    for q in chosen:
        digest = hashlib.sha256(q.text.encode()).hexdigest()[:10]
        items.append(Item("hotpotqa", f"hotpotqa:{q.index}:{digest}", q.kind or "hotpotqa", q.question(placement)))
    return items
