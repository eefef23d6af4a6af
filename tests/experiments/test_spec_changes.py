"""A comparison records each system's resolved parameters (defaults filled), so a rerun after a protocol's default
changed is refused with the system, the parameter, old -> new and the --param that resumes it as it began; a study
stored before they were recorded still reads, is checked against its debates, and its report says so; the report
names the sentence segmenter and the unit each system's debates recorded."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import create_model
from sqlalchemy import update
from sqlalchemy.orm import Session

from debate_core.protocols.registry import protocol_class
from experiments import spec_changes
from experiments.cli import main
from experiments.compare import CompareSpec
from experiments.compare_report import full_markdown, outcomes
from storage import Store
from storage.db import writer
from storage.models import ExperimentRow
from tests.experiments.offline import block_downloads

SYSTEMS = ("kimura/interruptible", "parliament/cot")
STRATEGYQA = "tests/fixtures/strategyqa_sample.json"


def compare(db: str, *extra: str, experiment: str = "params") -> int:
    common = ["--experiment", experiment, "--db", db, "--backend", "scripted", "--no-progress", "--budget", "60"]
    data = ["--mmlu", "0", "--strategyqa", "2", "--strategyqa-data", STRATEGYQA]
    return main(["compare", *common, "--systems", ",".join(SYSTEMS), *data, *extra])


def said(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().out.split())  # the console wraps long lines


def with_default(monkeypatch: pytest.MonkeyPatch, protocol: str, key: str, value: object) -> None:
    """Protocol ``protocol``'s parameter ``key`` defaults to ``value`` (as before a default changed in the code)."""
    cls = protocol_class(protocol)
    field = copy.copy(cls.Params.model_fields[key])
    field.default = value
    definitions: dict[str, Any] = {key: (field.annotation, field)}
    older = create_model(f"Older{cls.Params.__name__}", __base__=cls.Params, **definitions)
    monkeypatch.setattr(cls, "Params", older)


def stored_spec(db: str, experiment: str = "params") -> dict:
    store = Store(db)
    try:
        record = store.experiments.get(experiment)
        assert record is not None
        return record.spec
    finally:
        store.close()


def test_a_rerun_after_a_protocols_default_changed_is_refused_naming_it_and_resumes_with_the_old_value(
    tmp_path, monkeypatch, capsys
):
    block_downloads(monkeypatch, tmp_path)
    db = str(tmp_path / "s.sqlite3")
    with monkeypatch.context() as before:
        with_default(before, "kimura", "history_window", 30)  # the study began when the window of 30 was the default
        assert compare(db) == 0
    recorded = stored_spec(db)["system_params"]
    assert recorded["kimura/interruptible"]["history_window"] == 30  # every parameter, defaults filled
    assert recorded["kimura/interruptible"]["prompt_layout"] == "paper"  # the shared setting it takes
    assert set(recorded["parliament/cot"]) == set(protocol_class("parliament").Params.model_fields)
    said(capsys)

    assert compare(db) != 0  # today's default: the whole history
    refused = said(capsys)
    assert "kimura/interruptible's parameter history_window: 30 -> None" in refused
    assert "30 recorded when the study began, None kimura's default now" in refused
    assert "to resume the study as it began, add --param kimura.history_window=30" in refused
    assert "parliament/cot's parameter" not in refused  # an unchanged system is not named

    assert compare(db, "--param", "kimura.history_window=30") == 0  # as it began: every debate already there
    assert "4 in the study, 4 already finished, 0 finished now" in said(capsys)
    assert compare(db, "--param", "parliament.resume=continue") != 0  # another --param is a change too
    assert "parliament/cot's parameter resume: 'regenerate' -> 'continue'" in said(capsys)


def test_a_spec_stored_before_parameters_were_recorded_still_reads_warns_and_is_checked_against_its_debates(
    tmp_path, monkeypatch, capsys
):
    block_downloads(monkeypatch, tmp_path)
    db, out = str(tmp_path / "old.sqlite3"), tmp_path / "report"
    assert compare(db) == 0
    old = {k: v for k, v in stored_spec(db).items() if k != "system_params"}  # as a study stored before #25's fix
    store = Store(db)
    try:
        with Session(writer(store.engine)) as session, session.begin():
            session.execute(update(ExperimentRow).where(ExperimentRow.id == "params").values(spec=old))
    finally:
        store.close()
    assert CompareSpec.model_validate(old).system_params is None  # it reads: its parameters are unknown
    said(capsys)

    assert compare(db) == 0  # its debates ran with today's parameters: it resumes, with a warning
    resumed = said(capsys)
    assert "warning: experiment 'params' was stored without each system's parameters" in resumed
    assert "checked against the ones its 4 finished debates recorded" in resumed
    assert "4 already finished, 0 finished now" in resumed
    assert main(["report", "params", "--db", db, "--out", str(out), "--no-png"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "**Parameters not recorded.**" in text
    assert "as its finished debates recorded them (the study's specification did not record them" in text
    assert "| kimura/interruptible | `urgency=stated`, `history_window=null`" in text

    with monkeypatch.context() as later:
        with_default(later, "kimura", "history_window", 30)  # a default that changes after such a study began
        assert compare(db) != 0
    refused = said(capsys)
    assert "kimura/interruptible's parameter history_window: None -> 30" in refused
    assert "None in its 2 finished debates, 30 kimura's default now" in refused
    assert "add --param kimura.history_window=null" in refused


def test_an_unrecorded_spec_with_no_finished_debate_or_debates_already_mixed_warns_and_does_not_refuse():
    spec = spec_changes.recorded(CompareSpec(experiment_id="x", systems=SYSTEMS))
    stored = spec.model_dump(mode="json", exclude={"system_params"})
    nothing = spec_changes.check(stored, spec, dict)
    assert nothing.refusals == [] and "none of its debates has finished" in nothing.warnings[0]
    today = spec.system_params["kimura/interruptible"]
    mixed = [today, {**today, "history_window": 30}, {**today, "history_window": 30}]
    found = spec_changes.check(stored, spec, lambda: {"kimura/interruptible": mixed})
    assert found.refusals == []  # refusing would not unmix them
    assert any("already mix history_window: 30 (2), None (1)" in w for w in found.warnings)
    gained = {k: v for k, v in today.items() if k != "urgency"}  # a parameter the protocol gained since
    recorded = {**spec.model_dump(mode="json"), "system_params": {**spec.system_params, "kimura/interruptible": gained}}
    added = spec_changes.check(recorded, spec, dict)
    assert added.refusals == [] and any("parameter urgency is not in the study's record" in w for w in added.warnings)


def test_an_invalid_parameter_value_stops_before_any_debate_naming_the_system():
    spec = CompareSpec(experiment_id="x", systems=SYSTEMS, params={"kimura": {"history_window": "many"}})
    with pytest.raises(Exception, match=r"kimura/interruptible: kimura parameter history_window"):
        spec_changes.recorded(spec)


def test_the_report_names_the_segmenter_asked_for_and_the_unit_each_systems_debates_recorded(tmp_path, monkeypatch):
    block_downloads(monkeypatch, tmp_path)
    db = str(tmp_path / "seg.sqlite3")
    assert compare(db, "--segmenter", "spacy:sentencizer", "--systems", "kimura/interruptible,kimura/fixed") == 0
    store = Store(db)
    try:
        spec, found = outcomes(store, "params")
        text = full_markdown(store, "params", spec, "scripted", found)[0]
    finally:
        store.close()
    assert {o.segmenter for o in found} == {"spacy:sentencizer", "whole-message"}
    assert (
        "sentence segmenter `spacy:sentencizer`, the unit each system's debates recorded: `spacy:sentencizer` for "
        "kimura/interruptible; `whole-message` for kimura/fixed" in text
    )
    assert "## Parameters" in text and "Every finished debate of a system ran with the same parameters" in text
