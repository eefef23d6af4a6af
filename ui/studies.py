"""The studies committed under ``docs/studies``, offered in the app read-only: listed, decompressed once, opened.

What it does: ``committed(root)`` lists the study folders that hold a
``report.md`` (``CommittedStudy``: its folder name, the report's first
heading as its title, and its ``study.sqlite3.gz`` when one is committed; a
folder with a report only is listed too, with no debates to open).
``StudyLibrary(app_store)`` is what the Analysis and Replay tabs read from:
``source`` is ``APP`` (the app's own store) or a committed study's name, and
``store(source)`` gives that store. A study's database is decompressed on its
first use into a cache folder (``DEBATE_STUDY_CACHE``, else ``studies/`` in the
data directory), named by the archive's content digest, written to a
temporary file and renamed, so it is decompressed once per archive (a page
that opens it again, another page, or the next start of the app reuses it)
and a crash never leaves half a file; it is opened as a ``Store`` (migrated to
today's schema on the cache's copy, no crash recovery) and kept open for the
process. A source is looked up among the listed names only, never taken as a
path.

What it does not do: write to a study (the tabs offer no write on one: the
Replay tab's import goes to the app's store), touch the committed files, or
run or report studies itself (the study kinds do, as for the app's own
experiments).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage import Store

DOCS_STUDIES = Path(__file__).resolve().parents[1] / "docs" / "studies"
CACHE_ENV = "DEBATE_STUDY_CACHE"
APP = "app"
APP_LABEL = "this app's own debates and experiments"
DATABASE = "study.sqlite3.gz"
REPORT = "report.md"
README = "README.md"  # a study of several experiments has a report per sub-folder and this page over them
MAX_REPORT_CHARS = 60_000  # a committed report shown in the tab; longer ones are cut with a note


@dataclass(frozen=True)
class CommittedStudy:
    """One folder of ``docs/studies``: its name, its report's title, the report and the database (if any)."""

    name: str
    title: str
    report: Path
    database: Path | None

    @property
    def label(self) -> str:
        debates = "" if self.database is not None else " (report only)"
        return f"committed study {self.name}: {self.title}{debates}"


def _title(report: Path) -> str:
    for line in report.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip().replace("`", "")[:100]
    return report.parent.name


def _page(folder: Path) -> Path | None:
    """The page a study shows: its ``report.md``, else (a study of several experiments) its ``README.md``
    when it has a database too."""
    if (folder / REPORT).is_file():
        return folder / REPORT
    if (folder / README).is_file() and (folder / DATABASE).is_file():
        return folder / README
    return None


def committed(root: Path = DOCS_STUDIES) -> list[CommittedStudy]:
    """The committed studies under ``root``, by name: each folder with a ``report.md`` (or a ``README.md``
    and a database)."""
    if not root.is_dir():
        return []
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        page = _page(folder)
        if page is None:
            continue
        database = folder / DATABASE
        found.append(CommittedStudy(folder.name, _title(page), page, database if database.is_file() else None))
    return found


def cache_dir() -> Path:
    """Where decompressed studies are kept: ``$DEBATE_STUDY_CACHE``, else ``studies/`` in the data directory."""
    from storage.db import default_data_dir

    chosen = os.environ.get(CACHE_ENV, "").strip()
    return Path(chosen).expanduser() if chosen else default_data_dir() / "studies"


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()[:16]


def decompress(study: CommittedStudy, cache: Path) -> Path:
    """The study's database decompressed in ``cache`` (done once per archive content; reused after)."""
    if study.database is None:
        raise KeyError(f"study {study.name!r} has no committed database (only its report)")
    target = cache / f"{study.name}-{_digest(study.database)}.sqlite3"
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=f".{study.name}-", suffix=".part", dir=cache)
    try:
        with os.fdopen(handle, "wb") as out, gzip.open(study.database, "rb") as source:
            shutil.copyfileobj(source, out, 1 << 20)
        os.replace(partial, target)  # whole or not at all, even with another process doing the same
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return target


class StudyLibrary:
    """The stores the Analysis and Replay tabs read: the app's own (``APP``) and each committed study's."""

    def __init__(self, app_store: Any, root: Path = DOCS_STUDIES, cache: Path | None = None) -> None:
        self.app_store = app_store
        self.root = root
        self.cache = cache
        self._lock = threading.Lock()
        self._open: dict[str, Store] = {}
        self.studies = {study.name: study for study in committed(root)}

    def choices(self, *, debates_only: bool = False) -> list[tuple[str, str]]:
        """(label, source) pairs for a dropdown: the app's store first, then the committed studies."""
        listed = [s for s in self.studies.values() if s.database is not None or not debates_only]
        return [(APP_LABEL, APP), *((study.label, study.name) for study in listed)]

    def study(self, source: str | None) -> CommittedStudy | None:
        """The committed study ``source`` names (None for the app's store); ``KeyError`` for any other name."""
        if not source or source == APP:
            return None
        found = self.studies.get(str(source))
        if found is None:
            raise KeyError(f"no committed study {str(source)[:64]!r} (committed: {', '.join(self.studies) or 'none'})")
        return found

    def store(self, source: str | None) -> Any:
        """The store ``source`` names: the app's, or the study's (decompressed on first use, then kept open)."""
        study = self.study(source)
        if study is None:
            return self.app_store
        with self._lock:
            if study.name not in self._open:
                path = decompress(study, self.cache or cache_dir())
                self._open[study.name] = Store(path, recover=False)
            return self._open[study.name]

    def report(self, source: str | None) -> str:
        """The study's committed ``report.md`` (Markdown), cut at ``MAX_REPORT_CHARS``; "" for the app's store."""
        study = self.study(source)
        if study is None:
            return ""
        text = study.report.read_text(encoding="utf-8", errors="replace")
        if len(text) > MAX_REPORT_CHARS:
            text = (
                text[:MAX_REPORT_CHARS] + f"\n\n*(cut here: the whole report is docs/studies/{study.name}/report.md)*"
            )
        return text

    def close(self) -> None:
        with self._lock:
            for store in self._open.values():
                store.close()
            self._open.clear()
