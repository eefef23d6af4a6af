"""The flattened analysis tables (plans, utterances, disclosures) and their CSV export."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from debate_core.events import (
    DebateEnded,
    Event,
    InitialAnswersGiven,
    Interrupted,
    PlansMade,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceGenerated,
)
from storage import Store
from storage.models import DisclosureRow, InitialAnswerRow, PlanRow, UtteranceRow
from tests.conftest import of_type
from tests.storage.helpers import record_demo


@pytest.fixture
def debate(store: Store) -> list[Event]:
    events = record_demo(store, seed=1, condition="interruptible")
    assert of_type(events, Interrupted), "the demo debate should contain interruptions"
    assert of_type(events, UtteranceCompleted), "the demo debate should contain completed utterances"
    return events


def _rows(store: Store, model, debate_id: str, *order):
    with Session(store.engine) as session:
        return session.scalars(select(model).where(model.debate_id == debate_id).order_by(*order)).all()


def test_plans_has_one_row_per_plan_record(store: Store, debate: list[Event]) -> None:
    debate_id = debate[0].debate_id
    rows = _rows(store, PlanRow, debate_id, PlanRow.seq, PlanRow.agent)
    expected = sorted(
        (
            (
                event.seq,
                record.agent,
                event.turn,
                event.public_tokens,
                record.plan.action.value,
                record.plan.urgency,
                record.plan.answer,
                record.plan.thought,
                record.plan.purpose,
                "|".join(a.value for a in record.allowed),
                record.valid,
                record.source.value,
            )
            for event in of_type(debate, PlansMade)
            for record in event.plans
        ),
    )
    assert [
        (
            r.seq,
            r.agent,
            r.turn,
            r.public_tokens,
            r.action,
            r.urgency,
            r.answer,
            r.thought,
            r.purpose,
            r.allowed,
            r.valid,
            r.source,
        )
        for r in rows
    ] == expected
    assert {r.turn for r in rows} == {e.turn for e in of_type(debate, PlansMade)}


def test_utterances_account_for_every_sentence(store: Store, debate: list[Event]) -> None:
    debate_id = debate[0].debate_id
    rows = {r.utterance_id: r for r in _rows(store, UtteranceRow, debate_id, UtteranceRow.utterance_id)}
    generated = of_type(debate, UtteranceGenerated)
    assert sorted(rows) == [g.utterance_id for g in generated]
    interruptions = {e.utterance_id: e for e in of_type(debate, Interrupted)}
    completions = {e.utterance_id for e in of_type(debate, UtteranceCompleted)}
    end = debate[-1]
    assert isinstance(end, DebateEnded)

    for event in generated:
        row = rows[event.utterance_id]
        assert (row.speaker, row.turn, row.text) == (event.speaker, event.turn, event.text)
        assert row.sentences == list(event.units)
        assert row.interrupting == event.interrupting
        disclosed = [d.text for d in of_type(debate, UnitDisclosed) if d.utterance_id == event.utterance_id]
        assert row.disclosed_count == len(disclosed)
        assert row.sentences[: row.disclosed_count] == disclosed
        if event.utterance_id in interruptions:
            cut = interruptions[event.utterance_id]
            assert row.interrupted_by == cut.interrupter
            assert row.completed is False
            assert row.disclosed_count == cut.disclosed_count
            assert row.discarded == list(cut.discarded)
            assert row.disclosed_count + len(row.discarded) == len(row.sentences)
        elif event.utterance_id in completions:
            assert row.completed is True
            assert row.interrupted_by is None
            assert row.discarded == []
            assert row.disclosed_count == len(row.sentences)
        else:  # the one still speaking when the budget ran out
            assert row.completed is False
            assert row.sentences[row.disclosed_count :] == list(end.undisclosed)
    assert sum(1 for r in rows.values() if r.interrupted_by) == len(interruptions)
    assert sum(1 for r in rows.values() if r.completed) == len(completions)


def test_disclosures_equal_the_sentence_disclosed_events(store: Store, debate: list[Event]) -> None:
    rows = _rows(store, DisclosureRow, debate[0].debate_id, DisclosureRow.seq)
    assert [
        (
            r.seq,
            r.turn,
            r.speaker,
            r.utterance_id,
            r.unit_index,
            r.units_total,
            r.text,
            r.tokens,
            r.public_tokens,
            r.interrupting,
        )
        for r in rows
    ] == [
        (
            e.seq,
            e.turn,
            e.speaker,
            e.utterance_id,
            e.index,
            e.total,
            e.text,
            e.tokens,
            e.public_tokens,
            e.interrupting,
        )
        for e in of_type(debate, UnitDisclosed)
    ]
    assert any(r.interrupting for r in rows)


def test_initial_answers_have_one_row_per_agent(store: Store, debate: list[Event]) -> None:
    given = of_type(debate, InitialAnswersGiven)[0]
    rows = _rows(store, InitialAnswerRow, debate[0].debate_id, InitialAnswerRow.agent)
    assert sorted((r.agent, r.answer, r.reason, r.source, r.valid) for r in rows) == sorted(
        (a.agent, a.answer, a.reason, a.source.value, a.valid) for a in given.answers
    )


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_csv_export_has_a_header_and_one_row_per_plan_and_disclosure(
    store: Store, debate: list[Event], tmp_path: Path
) -> None:
    other = record_demo(store, seed=2, condition="fixed")
    ids = [debate[0].debate_id, other[0].debate_id]
    paths = store.export_csv(ids, tmp_path / "csv")
    assert sorted(p.name for p in paths) == ["disclosures.csv", "plans.csv", "polls.csv", "seats.csv", "utterances.csv"]

    plans = _read_csv(tmp_path / "csv" / "plans.csv")
    disclosures = _read_csv(tmp_path / "csv" / "disclosures.csv")
    with open(tmp_path / "csv" / "plans.csv", encoding="utf-8") as handle:
        header = handle.readline().strip().split(",")
    assert header[:6] == ["debate_id", "turn", "seq", "public_tokens", "agent", "action"]

    for events in (debate, other):
        debate_id = events[0].debate_id
        mine = [row for row in plans if row["debate_id"] == debate_id]
        expected = [(e.seq, r.agent, r.plan.action.value) for e in of_type(events, PlansMade) for r in e.plans]
        assert sorted((int(r["seq"]), r["agent"], r["action"]) for r in mine) == sorted(expected)
        told = [row for row in disclosures if row["debate_id"] == debate_id]
        assert [(int(r["seq"]), r["speaker"], r["text"], int(r["tokens"])) for r in told] == [
            (e.seq, e.speaker, e.text, e.tokens) for e in of_type(events, UnitDisclosed)
        ]
    assert len(plans) == sum(len(e.plans) for ev in (debate, other) for e in of_type(ev, PlansMade))
    assert len(disclosures) == sum(len(of_type(ev, UnitDisclosed)) for ev in (debate, other))


def test_csv_export_of_only_some_debates_leaves_the_others_out(
    store: Store, debate: list[Event], tmp_path: Path
) -> None:
    record_demo(store, seed=2)
    store.export_csv([debate[0].debate_id], tmp_path)
    for name in ("plans.csv", "disclosures.csv", "utterances.csv"):
        rows = _read_csv(tmp_path / name)
        assert rows and {r["debate_id"] for r in rows} == {debate[0].debate_id}
    store.export_csv([], tmp_path / "empty")
    assert _read_csv(tmp_path / "empty" / "plans.csv") == []
    assert (tmp_path / "empty" / "plans.csv").read_text(encoding="utf-8").startswith("debate_id,turn,seq")
    assert _read_csv(tmp_path / "polls.csv") == [] == _read_csv(tmp_path / "seats.csv")  # no class joined
    assert (tmp_path / "polls.csv").read_text(encoding="utf-8").startswith("debate_id,poll,label,choice,votes")


def test_csv_export_keeps_what_a_cut_off_speaker_never_said(store: Store, debate: list[Event], tmp_path: Path) -> None:
    store.export_csv([debate[0].debate_id], tmp_path)
    rows = {int(r["utterance_id"]): r for r in _read_csv(tmp_path / "utterances.csv")}
    cut = [e for e in of_type(debate, Interrupted) if e.discarded]
    assert cut, "the demo debate has an interruption that discards sentences"
    for event in cut:
        row = rows[event.utterance_id]
        assert row["speaker"] == event.interrupted and row["interrupted_by"] == event.interrupter
        assert row["discarded"].split("\n") == list(event.discarded)
        assert row["completed"] in ("False", "0")
    generated = {e.utterance_id: e for e in of_type(debate, UtteranceGenerated)}
    assert set(rows) == set(generated)
    for utterance_id, event in generated.items():
        row = rows[utterance_id]
        told = [e.text for e in of_type(debate, UnitDisclosed) if e.utterance_id == utterance_id]
        assert row["disclosed"].split("\n") == told if told else row["disclosed"] == ""
        assert int(row["units_total"]) == len(event.units)
