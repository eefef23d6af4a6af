"""HotpotQA (distractor): 7,405 multi-hop questions over ten titled Wikipedia paragraphs, posed free-form.

What it does: ``load_hotpotqa()`` reads the validation split of HotpotQA's
``distractor`` setting (the Parliament paper's benchmark) from, in order of
preference, a file you name (HotpotQA's own ``hotpot_dev_distractor_v1.json``,
a JSON list, or JSON lines of Hugging Face rows), the cached
``$DEBATE_DATA_CACHE/hotpotqa/distractor-validation.jsonl`` (by default under
``~/.cache/interruptible-debate``; ``cache`` names that root), or, when
allowed, the Hugging Face hub: ``hub_rows()`` imports ``datasets`` (an
optional extra: ``pip install 'interruptible-debate[hotpotqa]'``) only then,
and loads ``hotpotqa/hotpot_qa``'s ``distractor/validation-*.parquet`` (the
config's validation split alone, about 27 MB, not the training split, about 330 MB);
the rows are then cached, so later runs need neither the network nor
``datasets``. ``sample`` draws a seeded sample.

Each usable row becomes a ``HotpotQuestion`` whose ``question()`` is the
engine's free-form ``Question``: the question as its text, HotpotQA's gold
answer as its answer, and the ten paragraphs (two gold, eight distractors,
in the row's order), each as ``Title: its sentences``, as its ``context``
(``placement="question"`` puts them in the text instead, under the question,
for protocols that do not show a context). The paragraphs are bounded to
``MAX_CONTEXT_CHARS``: over it, the last sentence of the longest paragraph
is dropped until they fit (every title and first sentence stays; such a
question says ``trimmed``). A row without a question, an answer or a
paragraph is skipped and counted in the log.

Without ``datasets``, or offline (``HF_HUB_OFFLINE=1``, no network) with
nothing cached, a ``HotpotQaError`` says what to install or that the first
load needs a network; the command line prints it in one line.

What it does not do: score answers (the engine scores exactly;
``experiments.scoring`` adds normalized exact match and containment in the
report), use the supporting facts (kept in the cache, never shown), the
``fullwiki`` setting, or the training split; print (the logger
``experiments``), or touch the network unless nothing is cached and
``fetch`` is true.
"""

from __future__ import annotations

import json
import logging
import os
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from debate_core.config import Question
from experiments.bench_dataset import cache_root
from experiments.rows import usable_rows

logger = logging.getLogger("experiments")

HUB_ID, CONFIG, SPLIT = "hotpotqa/hotpot_qa", "distractor", "validation"
DATA_FILES = f"{CONFIG}/{SPLIT}-*.parquet"
EXPECTED_QUESTIONS = 7_405
MAX_CONTEXT_CHARS = 12_000
CACHE_FILE = Path("hotpotqa") / f"{CONFIG}-{SPLIT}.jsonl"
INSTALL = "pip install 'interruptible-debate[hotpotqa]' (or: pip install 'datasets>=3')"
OFFLINE_ENV = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
Placement = Literal["context", "question"]
Paragraph = tuple[str, tuple[str, ...]]  # (title, sentences)


class HotpotQaError(ValueError):
    """HotpotQA could not be found, fetched or read."""


@dataclass(frozen=True)
class HotpotQuestion:
    index: int  # the row's position in the split, kept when other rows are skipped
    id: str  # HotpotQA's own id
    text: str
    answer: str
    kind: str  # "bridge" or "comparison"
    level: str  # "easy", "medium" or "hard"
    context: str  # the titled paragraphs, bounded
    trimmed: bool  # sentences were dropped to fit MAX_CONTEXT_CHARS

    def question(self, placement: Placement = "context") -> Question:
        if placement == "question":
            return Question(text=f"{self.text}\n\nContext:\n{self.context}", answer=self.answer)
        return Question(text=self.text, answer=self.answer, context=self.context)


# --- rows -> questions ----------------------------------------------------------------


def paragraphs_of(context: object) -> list[Paragraph] | None:
    """The titled paragraphs of a row's ``context``: Hugging Face's ``{title: [...], sentences: [[...]]}``,
    HotpotQA's ``[[title, [sentences]], ...]``, or a list of ``{title, sentences}``; None when unreadable."""
    if isinstance(context, Mapping):
        titles, sentences = context.get("title"), context.get("sentences")
        if not isinstance(titles, list | tuple) or not isinstance(sentences, list | tuple):
            return None
        if len(titles) != len(sentences):
            return None
        pairs: list[Any] = list(zip(titles, sentences, strict=True))
    elif isinstance(context, list | tuple):
        pairs = [(p.get("title"), p.get("sentences")) if isinstance(p, Mapping) else p for p in context]
    else:
        return None
    found = []
    for pair in pairs:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            return None
        title, sentences = pair
        if not isinstance(title, str) or not isinstance(sentences, list | tuple):
            return None
        kept = tuple(s.strip() for s in sentences if isinstance(s, str) and s.strip())
        if title.strip() and kept:
            found.append((title.strip(), kept))
    return found or None


def _render(paragraphs: Sequence[Paragraph]) -> str:
    return "\n\n".join(f"{title}: {' '.join(sentences)}" for title, sentences in paragraphs)


def render_context(paragraphs: Sequence[Paragraph], limit: int = MAX_CONTEXT_CHARS) -> tuple[str, bool]:
    """The paragraphs as text of at most ``limit`` characters, and whether sentences were dropped to fit."""
    kept = [(title, list(sentences)) for title, sentences in paragraphs]
    text = _render([(t, tuple(s)) for t, s in kept])
    trimmed = False
    while len(text) > limit:
        longer = [i for i, (_, sentences) in enumerate(kept) if len(sentences) > 1]
        if not longer:
            return text[: limit - 1].rstrip() + "…", True
        longest = max(longer, key=lambda i: len(" ".join(kept[i][1])))
        kept[longest][1].pop()
        trimmed = True
        text = _render([(t, tuple(s)) for t, s in kept])
    return text, trimmed


def _question_of(index: int, row: object) -> HotpotQuestion | None:
    if not isinstance(row, Mapping):
        return None
    text, answer = row.get("question"), row.get("answer")
    paragraphs = paragraphs_of(row.get("context"))
    if not isinstance(text, str) or not text.strip() or not isinstance(answer, str) or not answer.strip():
        return None
    if paragraphs is None:
        return None
    context, trimmed = render_context(paragraphs)
    question = HotpotQuestion(
        index=index,
        id=str(row.get("id") or row.get("_id") or index),
        text=text.strip(),
        answer=answer.strip(),
        kind=str(row.get("type") or ""),
        level=str(row.get("level") or ""),
        context=context,
        trimmed=trimmed,
    )
    try:
        question.question("question")  # the engine's own checks (lengths, blank text), in the longer placement
    except ValidationError:
        return None
    return question


def parse_rows(rows: Iterable[object], *, source: str = "rows") -> list[HotpotQuestion]:
    """HotpotQA rows as questions; rows without a question, an answer or a paragraph skipped and logged."""
    questions = usable_rows(
        rows, _question_of, dataset="HotpotQA", why="without a question, an answer or a paragraph", source=source
    )
    trimmed = sum(q.trimmed for q in questions)
    if trimmed:
        logger.info("HotpotQA: %d questions' paragraphs cut to %d characters", trimmed, MAX_CONTEXT_CHARS)
    return questions


def read_rows(path: Path, *, source: str | None = None) -> list[object]:
    """A JSON list (HotpotQA's own file) or JSON lines; a ``HotpotQaError`` naming the first bad line."""
    source = source or str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise HotpotQaError(f"cannot read HotpotQA from {source}: {error}") from error
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as error:
            raise HotpotQaError(f"cannot read HotpotQA from {source}: not JSON ({error})") from error
        return list(rows)
    found: list[object] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise HotpotQaError(
                    f"cannot read HotpotQA from {source}: line {number} is not JSON ({error})"
                ) from error
    return found


def read_file(path: Path, *, source: str | None = None) -> list[HotpotQuestion]:
    """The usable questions of a file; a ``HotpotQaError`` when it cannot be read or has none."""
    source = source or str(path)
    questions = parse_rows(read_rows(path, source=source), source=source)
    if not questions:
        raise HotpotQaError(f"no usable HotpotQA question in {source}: expected rows with question, answer, context")
    logger.info("HotpotQA: %d questions from %s", len(questions), source)
    return questions


# --- the hub and the cache ------------------------------------------------------------


def cached_path(cache: str | Path | None = None) -> Path:
    return cache_root(cache) / CACHE_FILE


def offline_switch() -> str | None:
    """The Hugging Face offline switch that is on (``HF_HUB_OFFLINE=1``, ``HF_DATASETS_OFFLINE=1``), if any."""
    on = {"1", "true", "yes", "on"}
    return next((name for name in OFFLINE_ENV if os.environ.get(name, "").strip().lower() in on), None)


def hub_rows() -> list[dict[str, Any]]:
    """The split's rows from the Hugging Face hub through ``datasets`` (imported here, and only here)."""
    try:
        import datasets
    except ImportError:
        raise HotpotQaError(
            f"HotpotQA is loaded through Hugging Face `datasets`, which is not installed: {INSTALL}; "
            "or pass a copy of HotpotQA's distractor file (--hotpotqa-data FILE)"
        ) from None
    try:
        table = datasets.load_dataset(HUB_ID, data_files={SPLIT: DATA_FILES}, split=SPLIT)
        return [dict(row) for row in table]
    except Exception as error:  # the hub, the network or the cache: said in one line, never a traceback
        where = f"HotpotQA ({HUB_ID}, {CONFIG}, {SPLIT} split)"
        switch = offline_switch()
        if switch:
            raise HotpotQaError(
                f"{where} is not cached here and {switch}={os.environ[switch]} forbids downloading it: the first "
                f"load needs a network (unset {switch}), or pass a local copy (--hotpotqa-data FILE)"
            ) from None
        raise HotpotQaError(
            f"cannot load {where} from the Hugging Face hub ({type(error).__name__}: {error}); the first load "
            "needs a network, or pass a local copy (--hotpotqa-data FILE)"
        ) from None


def _write_cache(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """The rows as JSON lines, written beside and renamed (a reader never sees half a file)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with open(partial, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        partial.replace(path)
    except (OSError, TypeError, ValueError) as error:
        logger.warning("HotpotQA: could not cache the rows in %s (%s); the next run loads them again", path, error)


def load_hotpotqa(
    path: str | Path | None = None, *, cache: str | Path | None = None, fetch: bool = True
) -> list[HotpotQuestion]:
    """Every usable question of the distractor validation split, in order, from ``path``, the cache or the hub."""
    if path:
        return read_file(Path(path).expanduser())
    cached = cached_path(cache)
    if cached.is_file():
        return read_file(cached)
    if not fetch:
        raise HotpotQaError(f"HotpotQA is not cached ({cached}) and fetching is off")
    rows = hub_rows()
    questions = parse_rows(rows, source=f"{HUB_ID} ({CONFIG}, {SPLIT})")
    if not questions:
        raise HotpotQaError(f"no usable HotpotQA question in {HUB_ID}'s {CONFIG} {SPLIT} split")
    _write_cache(rows, cached)
    logger.info("HotpotQA: %d questions from the hub, cached in %s", len(questions), cached)
    return questions


def sample(questions: Sequence[HotpotQuestion], n: int, *, seed: int = 0) -> list[HotpotQuestion]:
    """``n`` questions drawn without replacement by a seeded generator."""
    if n > len(questions):
        raise HotpotQaError(f"asked for {n} HotpotQA questions, only {len(questions)} available")
    return random.Random(seed).sample(list(questions), n)
