"""Fixtures for the storage tests: a fresh SQLite store per test, in tmp_path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from storage import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store(tmp_path / "db.sqlite3")
    yield opened
    opened.close()
