"""Helpers for the tests of one study run by several worker processes, one of them killed.

* ``Worker``: ``python -m experiments ...`` in a subprocess, its output in a file;
* ``cells(url, experiment)``: the study's cells table, row by row;
* ``freeze_holding_a_debate(victim, url, experiment)``: SIGSTOP the victim at a moment it holds a
  cell whose debate it has begun recording (checked once it is stopped, so no timing is assumed;
  on SQLite also that it holds no write lock), and return that cell;
* ``wait_for(condition, what, workers)``: poll until ``condition()`` is true, failing early when a
  worker died, and after ``DEADLINE_S`` (a guard against hangs, not a speed check);
* ``comparable_report(folder)``: a report's ``report.md`` and ``debates.csv`` without what the wall
  clock measures (seconds per debate, wall time).
"""

from __future__ import annotations

import csv
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, text

from storage.db import database_url

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
DEADLINE_S = 600.0
T = TypeVar("T")


class Worker:
    """One worker process of a study."""

    def __init__(self, args: Sequence[str], log: Path) -> None:
        self.log = log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "experiments", *args], cwd=ROOT, stdout=out, stderr=subprocess.STDOUT
            )
        self.id = f"{socket.gethostname()}:{self.proc.pid}"

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def finish(self) -> str:
        """Wait for the worker to end; its output (it must succeed)."""
        code = self.proc.wait(timeout=DEADLINE_S)
        output = self.output()
        assert code == 0, f"worker {self.id} exited with {code}:\n{output}"
        return output

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=60)


def wait_for(condition: Callable[[], T], what: str, workers: Sequence[Worker] = ()) -> T:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        for worker in workers:
            if worker.proc.poll() is not None:
                raise AssertionError(
                    f"worker {worker.id} ended ({worker.proc.returncode}) before {what}:\n{worker.output()}"
                )
        time.sleep(0.01)
    raise AssertionError(f"gave up waiting for {what}")


def _engine(url: str) -> Any:
    return create_engine(database_url(url))


def cells(url: str, experiment: str) -> list[dict[str, Any]]:
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT * FROM experiment_cells WHERE experiment_id = :e ORDER BY position"), {"e": experiment}
            )
            return [dict(row) for row in rows.mappings()]
    finally:
        engine.dispose()


def _held(url: str, experiment: str, worker: str) -> str | None:
    """A cell ``worker`` holds whose debate it has begun recording."""
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(
                text(
                    "SELECT c.debate_id FROM experiment_cells c JOIN debates d ON d.id = c.debate_id "
                    "WHERE c.experiment_id = :e AND c.worker = :w AND c.state = 'running' "
                    "AND d.status = 'running' AND d.event_count > 0"
                ),
                {"e": experiment, "w": worker},
            ).scalar()
    except Exception:  # the table is not there yet (the worker is still migrating)
        return None
    finally:
        engine.dispose()


def _sqlite_writable(url: str) -> bool:
    path = database_url(url).removeprefix("sqlite:///")
    try:
        with sqlite3.connect(path, timeout=0) as connection:
            connection.execute("BEGIN IMMEDIATE")
            connection.rollback()
    except sqlite3.OperationalError:
        return False
    return True


def _wait_stopped(pid: int) -> None:
    """Until the kernel reports ``pid`` stopped (state T in /proc); a CI machine may take a while."""
    for _ in range(1000):
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
        if state in ("T", "t"):
            return
        time.sleep(0.005)
    raise AssertionError(f"process {pid} did not stop after SIGSTOP")


def freeze_holding_a_debate(victim: Worker, url: str, experiment: str) -> str:
    """SIGSTOP ``victim`` while it holds a cell with its debate begun; that cell's debate id."""
    sqlite = "://" not in url or url.startswith("sqlite")
    while True:
        wait_for(lambda: _held(url, experiment, victim.id), f"{victim.id} to hold a cell", [victim])
        os.kill(victim.proc.pid, signal.SIGSTOP)
        _wait_stopped(victim.proc.pid)  # SIGSTOP is delivered asynchronously: look only once it has stopped
        held = _held(url, experiment, victim.id)
        if held and (not sqlite or _sqlite_writable(url)):
            return held
        os.kill(victim.proc.pid, signal.SIGCONT)  # it moved on meanwhile (or holds SQLite's write lock): again


def finished_now(output: str) -> int:
    """The "N finished now" of a worker's summary line."""
    flat = " ".join(output.split())
    marker = " finished now"
    assert marker in flat, flat
    return int(flat[: flat.index(marker)].rsplit(" ", 1)[1])


def comparable_report(folder: Path) -> tuple[list[str], list[list[str]]]:
    """``report.md`` with the timing columns of its tables blanked, and ``debates.csv`` without ``wall_s``."""
    lines, timing = [], set[int]()
    for line in (folder / "report.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            lines.append(line)
            timing = set()
            continue
        cells_ = line.split("|")
        if not timing and not set(line) <= set("|-: "):
            found = {i for i, c in enumerate(cells_) if c.strip().startswith("s ") or "wall" in c}
            timing = found or {-1}
        lines.append("|".join("-" if i in timing else c for i, c in enumerate(cells_)))
    with open(folder / "debates.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    wall = rows[0].index("wall_s")
    table = sorted(row[:wall] + row[wall + 1 :] for row in rows[1:])
    return lines, [rows[0][:wall] + rows[0][wall + 1 :], *table]
