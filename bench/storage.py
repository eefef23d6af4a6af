"""Storage cost: writing events as a debate runs, and replaying a 1,000-turn debate.

Runs the 1,000-turn, 3-agent scripted interruptible debate of ``bench/engine.py``
twice, once bare and once recorded into a fresh SQLite file (WAL, a commit per
turn), and prints the recording cost per event and per turn; then times
``Store.events`` (read every event back as the engine's event objects), a
JSON export of that debate, and importing a transcript of about
``--import-events`` events (150,000 by default: every check of
``storage.transcript`` and the bulk write) into a fresh store.

    python bench/storage.py [--turns 1000] [--import-events 150000]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
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
from debate_core.events import EVENT_SCHEMA_VERSION, event_to_dict  # noqa: E402
from storage import Store  # noqa: E402


def debate(turns: int) -> Debate:
    return bench_engine.long_debate(3, turns, bench_engine.SplitOnPeriods())


def long_transcript(target: int) -> list:
    """About ``target`` small events: one debate's start, utterances of 50 sentences each, its end."""
    from debate_core.events import DebateEnded, UnitDisclosed, UtteranceCompleted, UtteranceGenerated

    events = debate(2).run()
    start, end = events[0], events[-1]
    names = start.config.agent_names
    out: list = [start]
    turn = tokens = 0
    utterance = 0
    while len(out) < target:
        utterance += 1
        speaker = names[utterance % len(names)]
        units = tuple(f"Sentence {n} of utterance {utterance}." for n in range(50))
        out.append(
            UtteranceGenerated(
                seq=len(out),
                turn=turn,
                public_tokens=tokens,
                at=start.at,
                speaker=speaker,
                utterance_id=utterance,
                text=" ".join(units),
                units=units,
                source="model",
            )
        )
        for index, unit in enumerate(units):
            turn, tokens = turn + 1, tokens + 6
            out.append(
                UnitDisclosed(
                    seq=len(out),
                    turn=turn,
                    public_tokens=tokens,
                    at=start.at,
                    speaker=speaker,
                    utterance_id=utterance,
                    index=index,
                    total=len(units),
                    text=unit,
                    tokens=6,
                )
            )
        out.append(
            UtteranceCompleted(
                seq=len(out),
                turn=turn,
                public_tokens=tokens,
                at=start.at,
                speaker=speaker,
                utterance_id=utterance,
                units=len(units),
            )
        )
    assert isinstance(end, DebateEnded)
    out.append(end.model_copy(update={"seq": len(out), "turn": turn, "public_tokens": tokens}))
    return out  # fmt: skip


def import_bench(target: int, folder: Path) -> None:
    events = long_transcript(target)
    path = folder / "big.json"
    document = {
        "format": "interruptible-debate",
        "schema_version": EVENT_SCHEMA_VERSION,
        "debate_id": events[0].debate_id,
        "events": [event_to_dict(e) for e in events],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    store = Store(folder / "imported.sqlite3")
    started = time.perf_counter()
    store.import_json(path)
    seconds = time.perf_counter() - started
    size = path.stat().st_size / 1e6
    print(f"import of a {len(events):,}-event transcript ({size:.0f} MB): {seconds:.2f} s")
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--import-events", type=int, default=150_000, help="0 to skip the import")
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
        if args.import_events:
            import_bench(args.import_events, Path(folder))


if __name__ == "__main__":
    main()
