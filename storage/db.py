"""Connecting to the store: URL, SQLite settings, migrations at start-up.

What it does: ``open_engine(url)`` creates a SQLAlchemy engine for any URL
(PostgreSQL, ``postgresql+psycopg://user@host/db``, for studies shared by
several machines) and, for SQLite only, turns on WAL mode, foreign keys, a
30 s busy timeout and ``synchronous=NORMAL``, and makes write transactions
start with ``BEGIN IMMEDIATE``: a writer takes the write lock up front instead
of upgrading a read lock mid-transaction, which is what makes SQLite answer
"database is locked" to concurrent writers (``writer(engine)``; on
PostgreSQL, whose writers lock rows, it changes nothing). ``migrate(engine)``
applies the Alembic migrations in ``storage/migrations`` up to the newest;
on PostgreSQL under an advisory lock, so workers started together migrate a
fresh database once. ``database_now(session)`` is the time leases are
measured by: the database server's clock on PostgreSQL (one clock for every
machine), this machine's on SQLite.

The default database is ``debates.sqlite3`` in the data directory:
``$DEBATE_DATA_DIR`` if set, else ``$XDG_DATA_HOME/interruptible-debate``
(``~/.local/share/interruptible-debate``).

What it does not do: read or write debates (``store`` and ``recorder`` do).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, func, select, text
from sqlalchemy.orm import Session

MIGRATIONS = Path(__file__).parent / "migrations"
BUSY_TIMEOUT_MS = 30_000
# pg_advisory_xact_lock's key for "migrating this database" (any constant shared by every process).
MIGRATION_LOCK = 0x64656261746573


def default_data_dir() -> Path:
    if os.environ.get("DEBATE_DATA_DIR"):
        return Path(os.environ["DEBATE_DATA_DIR"])
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "interruptible-debate"


def database_url(target: str | Path | None = None) -> str:
    """A SQLAlchemy URL: given as a URL (``postgresql://`` meaning psycopg 3), a path to a SQLite file, or
    the default file."""
    if target is None:
        folder = default_data_dir()
        folder.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{folder / 'debates.sqlite3'}"
    text = str(target)
    for plain in ("postgresql://", "postgres://"):  # SQLAlchemy's default driver would be psycopg2: use psycopg 3
        if text.startswith(plain):
            return "postgresql+psycopg://" + text.removeprefix(plain)
    if "://" in text:
        return text
    path = Path(text).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def open_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite connections get WAL, foreign keys and immediate writes."""
    if not url.startswith("sqlite"):
        # a study's threads, its heartbeat and its claims each hold a connection for a moment
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)
    engine = create_engine(url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        if ":memory:" not in url and url != "sqlite://":
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    return engine


def writer(engine: Engine) -> Engine:
    """The same engine, but its transactions take SQLite's write lock at BEGIN."""
    return engine.execution_options(sqlite_begin="IMMEDIATE")


def migrate(engine: Engine) -> None:
    """Bring the schema up to the newest migration (a no-op when it already is).

    On SQLite, foreign keys are off while migrations run: a migration that
    must rebuild a table (SQLite cannot alter a column in place) drops the old
    one, which with foreign keys on would cascade into every row that refers
    to it. The keys are checked once the migrations are done, and any
    violation aborts with the migration rolled back.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    sqlite = engine.dialect.name == "sqlite"
    with writer(engine).connect() as connection:
        raw = connection.connection.driver_connection if sqlite else None
        if raw is not None:
            raw.execute("PRAGMA foreign_keys=OFF")  # on the driver, outside any transaction, or it is ignored
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":  # one migrating process at a time
                    connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
                config.attributes["connection"] = connection
                command.upgrade(config, "head")
                if sqlite:
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                    if broken:
                        raise RuntimeError(f"a migration left rows that refer to nothing: {broken[:5]}")
        finally:
            if raw is not None:
                raw.execute("PRAGMA foreign_keys=ON")


def database_now(session: Session) -> datetime:
    """Now, in UTC: the PostgreSQL server's clock (shared by every worker), else this machine's."""
    if session.get_bind().dialect.name == "postgresql":
        with session.no_autoflush:
            value: datetime = session.execute(select(func.clock_timestamp())).scalar_one()
        return value.astimezone(UTC)
    return datetime.now(UTC)
