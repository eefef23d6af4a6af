"""bench/classroom.py's own arithmetic: the transcript a client rebuilds from the deltas, the latencies and
their percentiles per quarter (the run on real connections is tests/browser/test_classroom_bench.py)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bench():
    spec = importlib.util.spec_from_file_location("classroom_bench", ROOT / "bench" / "classroom.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def line(*sentences: str) -> str:
    return '<div class="line speech">' + "".join(f'<span class="sentence">{s}</span> ' for s in sentences) + "</div>"


def test_a_client_rebuilds_the_transcript_from_deltas_and_notes_each_sentence_once_when_it_first_arrives():
    classroom = bench()
    shown = classroom.Transcript()
    shown.apply({"seq": 1, "from": 0, "lines": [line("Hi.")]}, at=1.0)
    shown.apply({"seq": 2, "from": 0, "lines": [line("Hi.", "A &lt;b&gt; is bold.")]}, at=2.0)  # the line grew
    shown.apply({"seq": 2, "from": 0, "lines": [line("ignored: the same update again")]}, at=3.0)
    shown.apply({"__type__": "update"}, at=4.0)  # a skipped update
    shown.apply({"seq": 3, "from": 1, "lines": [line("Hi.")]}, at=5.0)  # the second copy of a text
    assert shown.first == {("Hi.", 1): 1.0, ("A <b> is bold.", 1): 2.0, ("Hi.", 2): 5.0}
    disclosed = [("Hi.", 0.5), ("A <b> is bold.", 1.5), ("Hi.", 4.0), ("Never shown.", 4.5)]
    assert classroom.latencies(disclosed, shown.first, since=1.0) == [None, 0.5, 1.0, None]  # before its first


def test_percentiles_and_quarters():
    classroom = bench()
    assert classroom.percentiles(list(range(1, 101))) == (51, 95, 100)
    assert all(math.isnan(v) for v in classroom.percentiles([]))
    assert classroom.quarters(10) == (range(0, 2), range(8, 10))
    assert classroom.quarters(1) == (range(0, 1), range(0, 1))
