"""bench/classroom.py's own arithmetic: the transcript a client rebuilds from the deltas, what a page reads and
sends (bench/classroom_clients.py), the latencies and their percentiles per quarter (bench/classroom_report.py)
and how the run pools them (the run on real connections is tests/browser/test_classroom_bench.py)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from bench.classroom_clients import SAID, Transcript, heartbeat_fn, host_view, seat_presses, slot_value
from bench.classroom_report import Outcome, latencies, percentiles, quarters, report

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
    shown = Transcript()
    shown.apply({"seq": 1, "from": 0, "lines": [line("Hi.")]}, at=1.0)
    shown.apply({"seq": 2, "from": 0, "lines": [line("Hi.", "A &lt;b&gt; is bold.")]}, at=2.0)  # the line grew
    shown.apply({"seq": 2, "from": 0, "lines": [line("ignored: the same update again")]}, at=3.0)
    shown.apply({"__type__": "update"}, at=4.0)  # a skipped update
    shown.apply({"seq": 3, "from": 1, "lines": [line("Hi.")]}, at=5.0)  # the second copy of a text
    assert shown.first == {("Hi.", 1): 1.0, ("A <b> is bold.", 1): 2.0, ("Hi.", 2): 5.0}
    disclosed = [("Hi.", 0.5), ("A <b> is bold.", 1.5), ("Hi.", 4.0), ("Never shown.", 4.5)]
    assert latencies(disclosed, shown.first, since=1.0) == [None, 0.5, 1.0, None]  # before its first


def test_percentiles_and_quarters():
    assert percentiles(list(range(1, 101))) == (51, 95, 100)
    assert all(math.isnan(v) for v in percentiles([]))
    assert quarters(10) == (range(0, 2), range(8, 10))
    assert quarters(1) == (range(0, 1), range(0, 1))


def config(*components: tuple[int, str], heartbeat_outputs: tuple[int, ...] = (1, 2)) -> dict:
    """A page's config as the bench reads it: its components' ids and elem_ids, and the heartbeat's outputs."""
    return {
        "components": [{"id": i, "props": {"elem_id": elem_id}} for i, elem_id in components],
        "dependencies": [
            {"id": 0, "targets": [[9, "click"]], "outputs": [1]},
            {"id": 7, "targets": [[8, "tick"]], "outputs": list(heartbeat_outputs)},
        ],
    }


def test_the_host_reads_the_join_code_and_the_seats_a_model_holds_from_its_heartbeat():
    page = config((1, "join-info"), (2, "roster"))
    assert heartbeat_fn(page) == 7
    roster = (
        '<table class="roster" id="roster-table"><tbody>'
        '<tr data-seat="Alex"><td>Alex · pro</td><td>closed</td><td>a model</td><td></td></tr>'
        '<tr data-seat="Jenny"><td>Jenny</td><td>held</td><td>a person</td><td>Sam</td></tr>'
        '<tr data-seat="Chris &amp; Co"><td>Chris &amp; Co</td><td>closed</td><td>a model</td><td></td></tr>'
        '<tr data-seat="Ben"><td>Ben</td><td>open</td><td>a model</td><td></td></tr></tbody></table>'
    )
    join = '<div class="join"><p>Join code: <strong id="join-code">AB3DEF</strong></p></div>'
    assert host_view(page, [join, roster]) == ("AB3DEF", ["Alex", "Chris & Co"])
    assert host_view(page, [{"__type__": "update"}, ""]) == ("", [])  # a page that is not the host's
    with pytest.raises(RuntimeError):
        heartbeat_fn(config((1, "join-info"), heartbeat_outputs=(3,)))


def test_a_seated_person_fills_the_words_form_as_it_was_shown_and_sends_blanks_for_hidden_slots():
    value = slot_value
    hidden = {"__type__": "update", "visible": False}
    assert [value(f"seat-{kind}-0", hidden) for kind in ("choice", "integer", "boolean", "text")] == [
        None,
        0,
        False,
        "",
    ]
    assert value("seat-choice-1", None) is None  # never shown
    pairs = {"__type__": "update", "visible": True, "choices": [["Vote for A", "A"], ["B", "B"]], "value": None}
    assert value("seat-choice-0", pairs) == "A"  # the first choice's value, not its label
    assert value("seat-choice-0", {**pairs, "value": "B"}) == "B"  # a default is kept
    assert value("seat-integer-0", {"visible": True, "minimum": 2, "value": None}) == 2
    assert value("seat-integer-1", {"visible": True, "minimum": 0, "value": 5.0}) == 5
    assert value("seat-boolean-0", {"visible": True, "value": True}) is True
    assert value("seat-text-2", {"visible": True, "value": ""}) == SAID


def test_seated_people_press_each_control_once_a_few_sentences_apart_and_not_together():
    presses = seat_presses
    assert presses(0) == [(4, "interrupt"), (12, "raise_hand")]
    assert presses(1) == [(6, "raise_hand"), (14, "interrupt")]
    moments = [at for index in range(4) for at, _ in presses(index)]
    assert len(moments) == len(set(moments))


def test_several_debates_pool_their_latencies_and_the_report_says_the_worst_debate_and_the_seats():
    classroom = bench()
    page = SimpleNamespace(transcript=SimpleNamespace(first={("A.", 1): 1.1, ("B.", 1): 2.5}), since=1.0)
    late = SimpleNamespace(transcript=SimpleNamespace(first={("B.", 1): 2.2}), since=1.5)
    first, last, arrived, expected = classroom.pooled([("A.", 1.0), ("B.", 2.0)], [page, late])
    assert arrived == expected == 3  # the late page did not expect "A.", disclosed before its first update
    assert [round(v) for v in first] == [100] and sorted(round(v) for v in last) == [200, 500]
    outcome = Outcome(
        4, (1, 2, 3), (4, 5, 6), 10, 10, 8, 1.0, 10.0, 20, debates=3, seated=1, worst=(7, 9), presses=6, accepted=5,
        asked=4, sent=4,
    )  # fmt: skip
    said = report(outcome)
    assert said.startswith("3 debates × 4 viewers + 1 seated")
    assert "the worst debate's p95 7 / 9 ms" in said and "presses accepted 5/6" in said and "answered 4/4" in said
    alone = report(Outcome(40, (1, 2, 3), (4, 5, 6), 10, 10, 8, 1.0, 10.0, 20))
    assert alone.startswith(" 40 viewers ·") and "worst" not in alone and "presses" not in alone
