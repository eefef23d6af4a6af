"""Claims, leases and the exactly-once rule of a study's cells, on SQLite and on a real PostgreSQL.

Each test runs twice: on a SQLite file (the claim is a conditional update inside SQLite's
single-writer transaction) and on PostgreSQL (``FOR UPDATE SKIP LOCKED``). Leases are expired
by moving ``lease_until`` into the past, never by sleeping.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from debate_core import Debate
from experiments.workers import StudyDebates
from protocols.kimura.demo import demo_backend, demo_config
from storage import Store
from storage.cells import CELLS, FINISHED, PENDING, RUNNING, Lease, LeaseLost
from storage.db import writer
from tests.conftest import SentenceSplitter
from tests.storage.helpers import row_counts

LEASE = Lease(30.0, 5.0)
THREADS = 8


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    url = str(tmp_path / "cells.sqlite3") if request.param == "sqlite" else request.getfixturevalue("postgres_url")
    opened = Store(url)
    opened.experiments.create("study", model_id="m", pool_key="", spec={"kind": "test"})
    yield opened
    opened.close()


def expire(store: Store, debate_id: str) -> None:
    """As if the holder had stopped renewing long ago."""
    with Session(writer(store.engine)) as session, session.begin():
        session.execute(
            update(CELLS)
            .where(CELLS.c.debate_id == debate_id)
            .values(lease_until=datetime.now(UTC) - timedelta(hours=1))
        )


def cell(store: Store, debate_id: str) -> dict:
    with store.engine.connect() as connection:
        row = connection.execute(CELLS.select().where(CELLS.c.debate_id == debate_id)).mappings().one()
    return dict(row)


def demo_debate(debate_id: str, seed: int = 1) -> Debate:
    config = demo_config(seed=seed)
    return Debate(config, demo_backend(config), segmenter=SentenceSplitter(), debate_id=debate_id)


def test_concurrent_claims_hand_out_every_cell_exactly_once(store: Store) -> None:
    ids = [f"cell-{i:02d}" for i in range(40)]
    cells = store.cells("study")
    assert cells.prepare(ids) == 0
    claimed: list[str] = []
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS, timeout=60)

    def claimer(n: int) -> None:
        try:
            start.wait()
            while (claim := cells.claim(f"host:{n}", LEASE)) is not None:
                claimed.append(claim.debate_id)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=claimer, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert sorted(claimed) == ids  # none twice, none left out
    assert cells.count(RUNNING) == 40 and cells.count(PENDING) == 0
    assert {cell(store, i)["attempt"] for i in ids} == {1}


def test_an_expired_lease_is_taken_over_and_the_old_attempt_can_close_nothing(store: Store) -> None:
    cells = store.cells("study")
    cells.prepare(["only"])
    first = cells.claim("a:1", LEASE)
    assert first is not None and first.attempt == 1
    assert cells.claim("b:2", LEASE) is None  # held, lease running
    assert 0 < (cells.waiting_for("b:2") or 0) <= LEASE.seconds
    assert first.renew()

    expire(store, "only")
    second = cells.claim("b:2", LEASE)
    assert second is not None and (second.attempt, second.took_over) == (2, "a:1")
    assert not first.renew()
    with pytest.raises(LeaseLost), Session(writer(store.engine)) as session, session.begin():
        first.hold(session, FINISHED)
    first.release()  # a no-op: the cell is the second attempt's
    assert (cell(store, "only")["state"], cell(store, "only")["worker"]) == (RUNNING, "b:2")

    with Session(writer(store.engine)) as session, session.begin():
        second.hold(session, FINISHED)
    assert cell(store, "only")["state"] == FINISHED
    with pytest.raises(LeaseLost), Session(writer(store.engine)) as session, session.begin():
        second.hold(session, FINISHED)  # closed once: no second finish, even by the same attempt
    assert cells.claim("c:3", LEASE) is None and cells.waiting_for("c:3") is None


def test_a_recorder_whose_cell_was_taken_over_writes_nothing_more(store: Store) -> None:
    cells = store.cells("study")
    cells.prepare(["cell-x"])
    lost = cells.claim("a:1", LEASE)
    assert lost is not None
    stream = store.record(demo_debate("cell-x").events(), experiment_id="study", claim=lost)
    for _ in zip(range(30), stream, strict=False):  # part of the debate, committed as it goes
        pass
    assert store.debate("cell-x").status == "running" and store.debate("cell-x").event_count > 0

    expire(store, "cell-x")
    winner = cells.claim("b:2", LEASE)
    assert winner is not None
    with pytest.raises(KeyError):  # the claim removed the partial debate
        store.debate("cell-x")
    with pytest.raises(LeaseLost):
        for _ in stream:
            pass
    with pytest.raises(KeyError):  # and the old attempt wrote nothing after it
        store.debate("cell-x")
    assert row_counts(store)["events"] == 0

    events = list(store.record(demo_debate("cell-x").events(), experiment_id="study", claim=winner))
    assert store.debate("cell-x").status == "finished" and store.events("cell-x") == events
    assert (cell(store, "cell-x")["state"], cell(store, "cell-x")["attempt"]) == (FINISHED, 2)


def test_an_aborted_debate_gives_its_cell_back_and_a_failed_one_waits_for_the_next_worker(store: Store) -> None:
    cells = store.cells("study")
    cells.prepare(["stopped", "broken"])
    claim = cells.claim("a:1", LEASE)
    assert claim is not None and claim.debate_id == "stopped"
    debate = demo_debate("stopped")
    for event in store.record(debate.events(), experiment_id="study", claim=claim):
        if event.turn >= 2:
            debate.stop()
    assert store.debate("stopped").status == "aborted" and cell(store, "stopped")["state"] == PENDING
    again = cells.claim("b:2", LEASE)  # an aborted cell comes back at once, for any worker
    assert again is not None and (again.debate_id, again.attempt) == ("stopped", 2)

    broken = cells.claim("a:1", LEASE)
    assert broken is not None and broken.debate_id == "broken"

    def failing():  # the debate's own stream fails mid-way, as a backend error does
        for event in demo_debate("broken").events():
            if event.turn >= 1:
                raise RuntimeError("model fell over")
            yield event

    with pytest.raises(RuntimeError, match="model fell over"):
        list(store.record(failing(), experiment_id="study", claim=broken))
    assert store.debate("broken").status == "failed" and cell(store, "broken")["state"] == "failed"
    assert cells.claim("a:1", LEASE) is None  # a failed cell waits for the next worker to start
    cells.prepare(["stopped", "broken"])
    retried = cells.claim("c:3", LEASE)
    assert retried is not None and (retried.debate_id, retried.attempt) == ("broken", 2)


def test_joining_a_study_adopts_finished_debates_reopens_lost_ones_and_frees_dead_holders(store: Store) -> None:
    list(store.record(demo_debate("done-before").events(), experiment_id="study"))  # a store from before cells
    cells = store.cells("study")
    assert cells.prepare(["done-before", "gone", "dead", "alive"]) == 1
    for debate_id, worker in (("gone", "a:1"), ("dead", None), ("alive", "elsewhere:1")):
        if worker is None:  # a process of this host that no longer exists
            child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
            worker = f"{socket.gethostname()}:{int(child.stdout)}"
        claim = cells.claim(worker, LEASE)
        assert claim is not None and claim.debate_id == debate_id
        if debate_id == "gone":
            list(store.record(demo_debate("gone").events(), experiment_id="study", claim=claim))
    assert cells.count(FINISHED) == 2
    store.delete("gone")  # someone removed a finished debate by hand: it is a cell to run again

    assert cells.prepare(["done-before", "gone", "dead", "alive"]) == 1
    assert cell(store, "gone")["state"] == PENDING
    claimed = [cells.claim("me:1", LEASE), cells.claim("me:1", LEASE), cells.claim("me:1", LEASE)]
    assert [c.debate_id if c else None for c in claimed] == ["gone", "dead", None]  # "alive" keeps its lease
    assert cells.waiting_for("me:1") is not None


def test_progress_counts_the_cells_other_workers_finish(store: Store) -> None:
    ids = [f"p{i}" for i in range(6)]
    other = StudyDebates(store, "study", lease=LEASE)
    other.worker = "other-machine:1"
    assert other.prepare(ids) == 0
    for _ in range(2):  # another worker finishes two cells
        claim = other.cells.claim(other.worker, LEASE)
        assert claim is not None
        list(store.record(demo_debate(claim.debate_id).events(), experiment_id="study", claim=claim))

    mine = StudyDebates(store, "study", lease=LEASE)
    assert mine.prepare(ids) == 2
    ticks: list[int] = []
    outcomes: list[str] = []

    def run_one(debate_id: str, backend) -> str:
        from storage.experiments import RunRecord

        return mine.record(demo_debate(debate_id), RunRecord("study", debate_id, "s", "c", debate_id, "t"))

    mine.run(
        ids,
        str,
        run_one,
        demo_backend(demo_config()),
        concurrency=2,
        done=outcomes.append,
        advance=lambda: ticks.append(1),
    )
    assert outcomes == ["finished"] * 4
    assert len(ticks) == 4 and mine.cells.count(FINISHED) == 6  # 2 shown at the start, 4 ticks: the whole study
