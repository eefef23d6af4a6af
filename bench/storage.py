"""Storage cost: writing events as a debate runs, and replaying a 1,000-turn debate.

Runs the 1,000-turn, 3-agent scripted interruptible debate of ``bench/engine.py``
twice, once bare and once recorded into a fresh SQLite file (WAL, a commit per
turn), and prints the recording cost per event and per turn; then times
``Store.events`` (read every event back as the engine's event objects) and a
JSON export of that debate.

    python bench/storage.py [--turns 1000]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

# This file is called storage.py: keep its folder off the path so that
# `import storage` finds the package, and load the engine bench by file.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
_spec = importlib.util.spec_from_file_location("bench_engine", HERE / "engine.py")
assert _spec is not None and _spec.loader is not None
bench_engine = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_engine)

from debate_core import Debate  # noqa: E402
from storage import Store  # noqa: E402


def debate(turns: int) -> Debate:
    return bench_engine.long_debate(3, turns, bench_engine.SplitOnPeriods())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    args = parser.parse_args()
    started = time.perf_counter()
    bare = debate(args.turns).run()
    bare_s = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.sqlite3")
        started = time.perf_counter()
        recorded = list(store.record(debate(args.turns).events()))
        recorded_s = time.perf_counter() - started
        debate_id = recorded[0].debate_id
        events = len(recorded)
        print(f"{args.turns}-turn debate, {events} events ({len(bare)} without recording)")
        print(f"  run without recording: {bare_s:7.2f} s")
        print(f"  run while recording:   {recorded_s:7.2f} s")
        extra = recorded_s - bare_s
        per_event, per_turn = extra / events * 1000, extra / args.turns * 1000
        print(f"  write cost: {per_event:.3f} ms per event, {per_turn:.3f} ms per turn")
        size = (Path(folder) / "bench.sqlite3").stat().st_size
        wal = Path(folder) / "bench.sqlite3-wal"
        size += wal.stat().st_size if wal.exists() else 0
        print(f"  database size: {size / 1e6:.1f} MB")
        started = time.perf_counter()
        replayed = store.events(debate_id)
        replay_s = time.perf_counter() - started
        assert len(replayed) == events
        print(f"  replay (read {events} events back as event objects): {replay_s:.2f} s")
        started = time.perf_counter()
        store.export_json(debate_id, Path(folder) / "export.json")
        print(f"  JSON export: {time.perf_counter() - started:.2f} s")
        store.close()


if __name__ == "__main__":
    main()
