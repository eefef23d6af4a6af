"""A data set's rows from a file you name, the data cache, or the Hugging Face hub through ``datasets``.

What it does: ``HubSource`` names a data set's split on the hub (its id, its
config, its split, its file in the data cache, the ``--data-file`` name that
replaces it). ``load(source, parse, path)`` reads the rows of, in order of
preference, ``path`` (a JSON list or JSON lines of the hub's rows:
``read_rows``), the cached ``<cache>/<source.cache_file>`` (the data cache's
root: ``cache``, else ``$DEBATE_DATA_CACHE``, else
``~/.cache/interruptible-debate``), or, when ``fetch`` allows, the hub:
``hub_rows`` imports ``datasets`` (``pip install 'datasets>=3'``) only then,
and the rows are cached as JSON lines once ``parse`` finds a usable question
in them, so later runs need neither a network nor ``datasets``. ``parse``
turns the rows into questions (validating each row). Without ``datasets``,
offline (``HF_HUB_OFFLINE=1``) or without a network, a ``HubDataError`` says
so in one line and names the ``--data-file`` that replaces the hub.
``sample`` draws a seeded sample; ``item_key`` is a question's stable key.

What it does not do: decide what a usable row is (each data set's module
does), print (the logger ``experiments``), or touch the network unless
nothing is named or cached and ``fetch`` is true.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from experiments.bench_dataset import cache_root
from experiments.hotpotqa import offline_switch

logger = logging.getLogger("experiments")
Q = TypeVar("Q")
INSTALL = "pip install 'datasets>=3' (or the extra: pip install 'interruptible-debate[hotpotqa]')"
MAX_ERROR_CHARS = 300  # of the hub's own error, kept in the one line said


class HubDataError(ValueError):
    """A data set could not be found, fetched or read."""


@dataclass(frozen=True)
class HubSource:
    """A split of a hub data set: ``name`` as said to people (``MMLU-Pro``), ``dataset`` the harness's name
    (``--data-file DATASET=FILE``), ``fields`` what a usable row has (said when none is)."""

    name: str
    dataset: str
    hub_id: str
    config: str | None
    split: str
    cache_file: str  # under the data cache's root
    fields: str

    @property
    def where(self) -> str:
        config = f"{self.config}, " if self.config else ""
        return f"{self.name} ({self.hub_id}, {config}{self.split} split)"

    @property
    def local(self) -> str:
        return f"--data-file {self.dataset}=FILE"


def read_rows(path: Path, *, name: str, source: str | None = None) -> list[object]:
    """A JSON list or JSON lines; a ``HubDataError`` naming the first bad line."""
    source = source or str(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise HubDataError(f"cannot read {name} from {source}: {error}") from error
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as error:
            raise HubDataError(f"cannot read {name} from {source}: not JSON ({error})") from error
        return list(rows)
    found: list[object] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise HubDataError(f"cannot read {name} from {source}: line {number} is not JSON ({error})") from error
    return found


def _one_line(error: Exception) -> str:
    said = " ".join(str(error).split())
    return said if len(said) <= MAX_ERROR_CHARS else said[: MAX_ERROR_CHARS - 1] + "…"


def plain_rows(datasets: Any, table: Any) -> list[dict[str, Any]]:
    """The rows of a loaded split as dicts (``hub_rows``'s default reading)."""
    return [dict(row) for row in table]


def hub_rows(
    source: HubSource, rows_of: Callable[[Any, Any], list[dict[str, Any]]] = plain_rows
) -> list[dict[str, Any]]:
    """The split's rows from the hub through ``datasets`` (imported here, and only here); ``rows_of(datasets,
    table)`` reads them out of the loaded split."""
    try:
        import datasets
    except ImportError:
        raise HubDataError(
            f"{source.name} needs the Hugging Face hub through `datasets`, which is not installed: {INSTALL}; "
            f"or pass a local copy ({source.local})"
        ) from None
    named = (source.hub_id, source.config) if source.config else (source.hub_id,)
    try:
        return rows_of(datasets, datasets.load_dataset(*named, split=source.split))
    except Exception as error:  # the hub, the network or the cache: said in one line, never a traceback
        switch = offline_switch()
        if switch:
            raise HubDataError(
                f"{source.name} needs the Hugging Face hub: {source.where} is not cached here and "
                f"{switch}={os.environ[switch]} forbids downloading it (offline); unset {switch} for the first "
                f"load, or pass a local copy ({source.local})"
            ) from None
        raise HubDataError(
            f"{source.name} needs the Hugging Face hub: cannot load {source.where} ({type(error).__name__}: "
            f"{_one_line(error)}); the first load needs a network, or pass a local copy ({source.local})"
        ) from None


def write_cache(rows: Sequence[Mapping[str, Any]], path: Path, *, name: str) -> None:
    """The rows as JSON lines, written beside and renamed (a reader never sees half a file)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".partial")
        with open(partial, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        partial.replace(path)
    except (OSError, TypeError, ValueError) as error:
        logger.warning("%s: could not cache the rows in %s (%s); the next run loads them again", name, path, error)


def cached_path(source: HubSource, cache: str | Path | None = None) -> Path:
    return cache_root(cache) / source.cache_file


def load(
    source: HubSource,
    parse: Callable[[Sequence[object], str], list[Q]],
    path: str | Path | None = None,
    *,
    cache: str | Path | None = None,
    fetch: bool = True,
    rows_of: Callable[[Any, Any], list[dict[str, Any]]] = plain_rows,
) -> list[Q]:
    """The usable questions of ``path``, else of the cache, else of the hub (then cached); ``parse(rows,
    where)`` makes them. A ``HubDataError`` when none is usable or the rows cannot be had."""
    if path:
        where = str(Path(path).expanduser())
        found = parse(read_rows(Path(where), name=source.name), where)
    else:
        cached = cached_path(source, cache)
        if cached.is_file():
            where = str(cached)
            found = parse(read_rows(cached, name=source.name), where)
        elif not fetch:
            raise HubDataError(f"{source.name} is not cached ({cached}) and fetching is off")
        else:
            where = source.where
            rows = hub_rows(source, rows_of)
            found = parse(rows, where)
            if found:
                write_cache(rows, cached, name=source.name)
    if not found:
        raise HubDataError(f"no usable {source.name} question in {where}: expected rows with {source.fields}")
    logger.info("%s: %d questions from %s", source.name, len(found), where)
    return found


def sample(questions: Sequence[Q], n: int, *, seed: int, name: str) -> list[Q]:
    """``n`` questions drawn without replacement by a seeded generator."""
    if n > len(questions):
        raise HubDataError(f"asked for {n} {name} questions, only {len(questions)} available")
    return random.Random(seed).sample(list(questions), n)


def item_key(dataset: str, *parts: object, text: str) -> str:
    """``dataset:part:...:digest``, the digest the first ten hex digits of the text's sha256."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return ":".join([dataset, *(str(part) for part in parts), digest])


def text_of(value: object) -> str:
    """A row's text field stripped; empty when it is not a string."""
    return value.strip() if isinstance(value, str) else ""


_INDEX = re.compile(r"\d+")


def whole_number(value: object) -> int | None:
    """An index as the hub writes it (an int, or digits in a string); None otherwise (a bool is no index)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and _INDEX.fullmatch(value.strip()):
        return int(value.strip())
    return None
