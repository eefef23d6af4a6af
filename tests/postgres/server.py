"""A throwaway PostgreSQL server on loopback for the tests: found, started, stopped, removed.

What it does: ``PostgresServer()`` finds PostgreSQL's programs (``$PG_BIN``,
``initdb`` on the ``PATH``, or the newest ``/usr/lib/postgresql/*/bin``),
makes a data directory in a fresh temporary folder, and starts ``postgres``
listening on 127.0.0.1 only, on a free port, with its unix socket in that
folder and trust authentication (nothing else can reach it). PostgreSQL
refuses to run as root, so when the tests run as root the server runs as the
``postgres`` system user (created if missing). ``create_database(name)``
gives a ``postgresql+psycopg://`` URL; ``stop()`` stops the server and
removes the folder. A watchdog process does the same if the test process
dies without stopping it (killed, or a timeout), so no server outlives it.

What it does not do: install PostgreSQL (``make test`` apt-installs it when
its ``initdb`` is missing) or skip: without PostgreSQL it raises
``PostgresMissing`` with what to install.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import psycopg

START_TIMEOUT_S = 120


class PostgresMissing(RuntimeError):
    """No PostgreSQL programs on this machine."""


def find_bin_dir() -> Path:
    """The folder of PostgreSQL's ``initdb``, ``pg_ctl`` and ``postgres``."""
    candidates = []
    if os.environ.get("PG_BIN"):
        candidates.append(Path(os.environ["PG_BIN"]))
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"),
        key=lambda p: [int(x) for x in p.split("/")[-2].split(".") if x.isdigit()],
    )
    candidates += [Path(p) for p in reversed(versions)]
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    raise PostgresMissing(
        "PostgreSQL's initdb was not found ($PG_BIN, the PATH, /usr/lib/postgresql/*/bin): the PostgreSQL tests "
        "need a local server; install it with `apt-get install postgresql` (make test does this)"
    )


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """One PostgreSQL server for a test session (see the module docstring)."""

    def __init__(self) -> None:
        self.bin = find_bin_dir()
        self.root = Path(tempfile.mkdtemp(prefix="debate-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            _ensure_system_user(self.user)
            entry = pwd.getpwnam(self.user)
            os.chown(self.root, entry.pw_uid, entry.pw_gid)
        try:
            self._run(
                "initdb",
                "-D",
                str(self.data),
                "--auth=trust",
                "--username=postgres",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            )
            self._configure()
            self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", str(START_TIMEOUT_S), "start")
        except BaseException:
            self.stop()
            raise
        self._watch()

    def _command(self, program: str, *args: str) -> list[str]:
        command = [str(self.bin / program), *args]
        return command if self.user is None else ["runuser", "-u", self.user, "--", *command]

    def _watch(self) -> None:
        """Stop the server and remove its folder once this process is gone, however it ended."""
        stop = shlex.join(self._command("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop"))
        script = (
            f"while kill -0 {os.getpid()} 2>/dev/null; do sleep 1; done; "
            f"[ -e {shlex.quote(str(self.data / 'postmaster.pid'))} ] && {stop}; rm -rf {shlex.quote(str(self.root))}"
        )
        subprocess.Popen(
            ["sh", "-c", script],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def _run(self, program: str, *args: str) -> None:
        command = self._command(program, *args)
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.root, timeout=START_TIMEOUT_S)
        if done.returncode != 0:
            log = self.log.read_text(errors="replace") if self.log.exists() else ""
            raise RuntimeError(f"{program} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}\n{log}")

    def _configure(self) -> None:
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.root}'",
            "max_connections": "200",
            "fsync": "off",  # a throwaway server: speed over durability
            "synchronous_commit": "off",
            "full_page_writes": "off",
        }
        with open(self.data / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("".join(f"{key} = {value}\n" for key, value in settings.items()))
        (self.data / "pg_hba.conf").write_text(
            "local all all trust\nhost all all 127.0.0.1/32 trust\n", encoding="utf-8"
        )

    def url(self, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        return f"{driver}://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """A new empty database; its SQLAlchemy URL."""
        with psycopg.connect(self.url(driver="postgresql"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            with contextlib.suppress(RuntimeError):
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


def _ensure_system_user(name: str) -> None:
    try:
        pwd.getpwnam(name)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            check=True,
            capture_output=True,
        )
