"""The PostgreSQL tests' server: one throwaway server per session, one fresh database per test.

``postgres_server`` starts a real PostgreSQL on loopback (``tests/postgres/server.py``) the first
time a test asks for it and stops and removes it at the end of the session. Without PostgreSQL
on this machine the tests fail, saying what to install: they are never skipped.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.postgres.server import PostgresMissing, PostgresServer

_names = itertools.count()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    try:
        server = PostgresServer()
    except PostgresMissing as error:
        pytest.fail(str(error), pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A new, empty database on the session's server, as a ``postgresql+psycopg://`` URL."""
    return postgres_server.create_database(f"test_{next(_names)}")
