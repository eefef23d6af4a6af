"""A recording process killed with SIGKILL: committed turns survive, the debate is marked incomplete."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from debate_core.events import DebateStarted, PlansMade, UnitDisclosed
from storage import Store
from storage.models import DebateRow, DisclosureRow, PlanRow
from tests.conftest import of_type
from tests.storage.helpers import record_quick

ROOT = Path(__file__).resolve().parents[2]
DEADLINE_S = 40.0

# The child records a slow scripted debate (50 ms per model request) that would run
# for minutes; it writes its debate id to a file (atomically) before starting.
CHILD = r"""
import pathlib, sys, time
from debate_core import Debate, ScriptedBackend
from protocols.kimura.demo import DemoScript, demo_config
from storage import Store
from tests.conftest import SentenceSplitter

db, id_file = sys.argv[1], pathlib.Path(sys.argv[2])
config = demo_config(seed=3, token_budget=100_000, max_turns=5_000)
script = DemoScript(config)

def respond(request):
    time.sleep(0.05)
    return script.reply(request)

debate = Debate(config, ScriptedBackend(respond, model_id="slow-demo"), segmenter=SentenceSplitter())
scratch = id_file.with_name(id_file.name + ".tmp")
scratch.write_text(debate.debate_id)
scratch.replace(id_file)
for _ in Store(db).record(debate.events()):
    pass
"""


def _wait_for(condition, what: str, proc: subprocess.Popen, log: Path):
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if proc.poll() is not None:
            raise AssertionError(f"the child exited ({proc.returncode}) before {what}:\n{log.read_text()}")
        time.sleep(0.05)
    raise AssertionError(f"timed out after {DEADLINE_S} s waiting for {what}:\n{log.read_text()}")


def _committed_turns(path: Path, debate_id: str) -> int:
    try:
        with sqlite3.connect(path, timeout=1) as connection:
            row = connection.execute("SELECT turns FROM debates WHERE id = ?", (debate_id,)).fetchone()
    except sqlite3.OperationalError:  # not created or not migrated yet, or busy
        return 0
    return row[0] if row else 0


def test_a_debate_killed_mid_run_keeps_every_committed_turn_and_is_marked_incomplete(tmp_path: Path) -> None:
    path, id_file, log = tmp_path / "db.sqlite3", tmp_path / "debate-id", tmp_path / "child.log"
    with open(log, "w") as errors:
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), str(id_file)],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=errors,
        )
    try:
        debate_id = _wait_for(lambda: id_file.exists() and id_file.read_text(), "the debate id", proc, log)
        _wait_for(lambda: _committed_turns(path, debate_id) >= 3, "three committed turns", proc, log)

        # while the recording process lives, opening the store leaves its debate alone
        live = Store(path)
        try:
            assert live.debate(debate_id).status == "running"
        finally:
            live.close()

        os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=DEADLINE_S) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=DEADLINE_S)

    store = Store(path)
    try:
        summary = store.debate(debate_id)
        assert summary.status == "incomplete"
        assert summary.error is not None and "ended before the debate did" in summary.error
        assert summary.turns >= 3

        events = store.events(debate_id)
        assert [e.seq for e in events] == list(range(len(events)))
        assert isinstance(events[0], DebateStarted) and events[0].debate_id == debate_id
        assert isinstance(events[-1], PlansMade)  # a turn is committed whole, at its plans
        assert events[-1].turn == summary.turns
        assert len(events) == summary.event_count
        assert summary.public_tokens == events[-1].public_tokens

        # the analysis tables hold exactly the committed turns, nothing of the lost one
        with Session(store.engine) as session:
            plans = session.scalars(select(PlanRow).where(PlanRow.debate_id == debate_id)).all()
            disclosures = session.scalars(select(DisclosureRow).where(DisclosureRow.debate_id == debate_id)).all()
        assert sorted((p.seq, p.agent) for p in plans) == sorted(
            (e.seq, r.agent) for e in of_type(events, PlansMade) for r in e.plans
        )
        assert sorted(d.seq for d in disclosures) == [e.seq for e in of_type(events, UnitDisclosed)]

        # the stored prefix is still a usable transcript
        exported = store.export_json(debate_id, tmp_path / "partial.json")
        other = Store(tmp_path / "other.sqlite3")
        try:
            assert other.import_json(exported) == debate_id
            assert other.events(debate_id) == events
            assert other.debate(debate_id).status == "incomplete"
        finally:
            other.close()
    finally:
        store.close()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=30)
    return proc.pid


def test_recover_marks_only_debates_whose_recording_process_is_gone(store: Store) -> None:
    ids = {name: record_quick(store)[0].debate_id for name in ("dead", "alive", "stale", "fresh", "done")}
    here, now = socket.gethostname(), datetime.now(UTC)
    owners = {
        "dead": (here, _dead_pid(), now),
        "alive": (here, os.getpid(), now - timedelta(hours=1)),
        "stale": ("another-host", 1, now - timedelta(minutes=11)),
        "fresh": ("another-host", 1, now - timedelta(minutes=1)),
    }
    with Session(store.engine) as session, session.begin():
        for name, (host, pid, beat) in owners.items():
            session.execute(
                update(DebateRow)
                .where(DebateRow.id == ids[name])
                .values(status="running", owner_host=host, owner_pid=pid, heartbeat_at=beat)
            )

    assert store.recover() == 2
    status = {name: store.debate(debate_id).status for name, debate_id in ids.items()}
    assert status == {
        "dead": "incomplete",
        "alive": "running",
        "stale": "incomplete",
        "fresh": "running",
        "done": "finished",
    }
    assert store.recover() == 0
