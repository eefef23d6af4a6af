"""Data-set tests run offline: every way out of ``experiments.sdist`` fails the test that takes it."""

from __future__ import annotations

from typing import Any

import pytest

from experiments import sdist


def no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("a data-set test tried to download")


def block_downloads(monkeypatch: pytest.MonkeyPatch, tmp_path: Any, *env: str) -> None:
    """pip, urllib and the archive downloads fail; the data cache is the test's own; ``env`` variables unset."""
    monkeypatch.setattr(sdist.subprocess, "run", no_network)
    monkeypatch.setattr(sdist.urllib.request, "urlopen", no_network)
    monkeypatch.setattr(sdist, "download_sdist", no_network)
    monkeypatch.setattr(sdist, "download_file", no_network)
    monkeypatch.setenv("DEBATE_DATA_CACHE", str(tmp_path / "default-cache"))
    for name in env:
        monkeypatch.delenv(name, raising=False)
