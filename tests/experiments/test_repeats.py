"""A comparison run several times: each run its own seed, stored so a rerun resumes, and reported as mean ± SE
over runs with a paired t-test per pair of systems (the shape of a paper's table of 27 runs), in report.md and in
the Analysis tab; how every debate ended; each system at its protocol's study temperature."""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import defaultdict

import pytest

from debate_core import ScriptedBackend
from debate_core.backends import factory
from debate_core.errors import BackendError
from debate_core.protocols.registry import protocol_class
from experiments import extensions
from experiments.cli import main
from experiments.compare import CompareRunner, CompareSpec, Item
from experiments.compare_endings import Ending, section
from experiments.compare_report import full_markdown, outcomes
from experiments.repeats import run_key, split_run_key
from experiments.statistics import paired_t, spread
from storage import Store
from tests.conftest import QUESTION
from tests.experiments.offline import block_downloads

SYSTEMS = ("parliament/cot", "parliament/british", "handraiser/random")
STRATEGYQA = "tests/fixtures/strategyqa_sample.json"


def compare(db: str, *extra: str) -> int:
    common = ["--experiment", "rep", "--db", db, "--backend", "scripted", "--no-progress"]
    data = ["--mmlu", "2", "--strategyqa", "2", "--strategyqa-data", STRATEGYQA]
    return main(["compare", *common, "--systems", ",".join(SYSTEMS), *data, *extra])


def per_run_accuracy(rows: list[dict[str, str]]) -> dict[str, dict[int, float]]:
    found: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        found[row["system"]][int(row["repeat"])].append(row["correct"] == "True")
    return {s: {r: sum(v) / len(v) for r, v in runs.items()} for s, runs in found.items()}


def test_compare_repeats_3_reports_mean_se_and_a_paired_t_test_per_pair_in_report_md_and_the_analysis_tab(
    tmp_path, monkeypatch, capsys
):
    block_downloads(monkeypatch, tmp_path)
    db, out = str(tmp_path / "s.sqlite3"), tmp_path / "report"
    assert compare(db, "--repeats", "3") == 0
    assert compare(db, "--repeats", "3") == 0  # a rerun resumes: every debate of every run is already there
    assert "36 in the study, 36 already finished, 0 finished now" in " ".join(capsys.readouterr().out.split())
    assert main(["report", "rep", "--db", db, "--out", str(out), "--no-png"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    with open(out / "debates.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))

    # every question and system in each of the three runs, the question key the same in every run
    assert sorted(int(r["repeat"]) for r in rows) == [0] * 12 + [1] * 12 + [2] * 12
    assert {r["question_key"] for r in rows} == {r["question_key"] for r in rows if r["repeat"] == "0"}
    accuracy = per_run_accuracy(rows)

    assert "## Across runs: mean ± standard error over 3 runs" in text
    for system in SYSTEMS:
        shown = spread(list(accuracy[system].values())).se_text(100)
        assert f"| all | {system} | 3 | {shown} |" in text  # mean ± SE of the runs' accuracies, in percent
    assert "### Paired t-test across runs" in text
    tested = 0
    for i, a in enumerate(SYSTEMS):
        for b in SYSTEMS[i + 1 :]:
            test = paired_t([accuracy[a][r] for r in range(3)], [accuracy[b][r] for r in range(3)])
            row = next(line for line in text.splitlines() if line.startswith(f"| {a} vs {b} | 3 |"))
            assert f"{100 * test.difference:+.1f} ± {100 * test.se:.1f}" in row and "| 2 |" in row  # df = runs - 1
            if test.t is not None:
                assert f"| {test.t:.2f} | 2 | {test.p:.3f} |" in row
                tested += 1
    assert tested, "the random listener's runs differ, so some pair has a t statistic"
    assert "| A vs B | run | paired questions |" in text  # McNemar and the bootstrap, one row per run
    assert "temperature per protocol, its study temperature (its paper's): the backend's default" in text
    assert "0.7 for handraiser" in text
    assert "## How the debates ended" in text and "No debate was cut short." in text

    store = Store(db)
    try:
        record = store.experiments.get("rep")
        kind = extensions.study_kind_for(record)
        assert kind is not None and kind.name == "compare"
        view = kind.view(store, record, 25)  # what the Analysis tab draws
        seeds: dict[tuple[str, str], set[int]] = defaultdict(set)
        for row in rows:
            seeds[(row["question_key"], row["repeat"])].add(store.events(row["debate_id"])[0].config.seed)
    finally:
        store.close()
    assert "## Across runs: mean ± standard error over 3 runs" in view.markdown
    assert "### Paired t-test across runs" in view.markdown
    assert view.markdown.count(" vs ") == text.count(" vs ")
    assert {row[3] for row in view.debates} == {"run 0", "run 1", "run 2"}
    assert all(len(s) == 1 for s in seeds.values())  # every system of a question shares a run's seed
    for key in {r["question_key"] for r in rows}:
        assert len({next(iter(seeds[(key, str(r))])) for r in range(3)}) == 3  # and each run has its own


def test_a_study_of_one_run_keeps_its_debate_ids_seeds_and_report():
    spec = CompareSpec(experiment_id="one", systems=SYSTEMS[:2], mmlu=1, strategyqa=0)
    digest = int(hashlib.sha256(b"mmlu:0:x").hexdigest()[:8], 16)
    assert spec.seed_for("mmlu:0:x") == digest % (2**31)  # the seed a study had before repeats
    old_id = "c" + hashlib.sha256(json.dumps(["one", "mmlu:0:x", "parliament/cot"]).encode()).hexdigest()[:31]
    assert spec.debate_id("mmlu:0:x", "parliament/cot") == old_id
    assert spec.debate_id("mmlu:0:x", "parliament/cot", 1) != old_id
    assert spec.seed_for("mmlu:0:x", 1) != spec.seed_for("mmlu:0:x") != spec.seed_for("mmlu:0:x", 2)
    assert run_key("mmlu:0:x", 0) == "mmlu:0:x" and split_run_key(run_key("mmlu:0:x", 7)) == ("mmlu:0:x", 7)
    assert split_run_key("bbh:task#rx:1") == ("bbh:task#rx:1", 0)


def test_one_run_has_no_across_runs_section_and_no_run_column(tmp_path):
    def demo(config):
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    spec = CompareSpec(experiment_id="one", systems=SYSTEMS[:2], mmlu=1, strategyqa=0)
    items = [Item("mmlu", "mmlu:0:x", "toy", QUESTION)]
    store = Store(tmp_path / "one.sqlite3")
    try:
        CompareRunner(spec, store, demo(spec.config(items[0], SYSTEMS[0])), items, per_debate=demo).run()
        _, found = outcomes(store, "one")
        text = full_markdown(store, "one", spec, "scripted", found)[0]
    finally:
        store.close()
    assert "Across runs" not in text and "| run |" not in text and "runs, each with its own seed" not in text
    assert "| A vs B | paired questions |" in text


def test_each_system_samples_at_its_protocols_study_temperature_unless_one_is_given(monkeypatch):
    systems = ("parliament/british", "kimura/interruptible", "handraiser/prompted", "ace/ace", "sid/sid")
    item = Item("mmlu", "mmlu:0:x", "toy", QUESTION)
    spec = CompareSpec(experiment_id="t", systems=systems)
    # the papers: the API's default (none sent), Table IV's 0.3, 0.7 at inference (App. C.5), 0.0; SID's states none
    # and its authors' code samples with the model's own generation config: the backend's default (none sent)
    assert [spec.config(item, s).temperature for s in systems] == [None, 0.3, 0.7, 0.0, None]
    shared = CompareSpec(experiment_id="t", systems=systems, temperature=0.5)
    assert {shared.config(item, s).temperature for s in systems} == {0.5}
    stored = CompareSpec.model_validate(spec.model_dump(mode="json"))
    monkeypatch.setattr(protocol_class("handraiser"), "study_temperature", 1.0)
    assert stored.temperature_for("handraiser/prompted") == 0.7  # a stored study keeps what it ran at
    changed = CompareSpec(experiment_id="t", systems=systems)
    assert any(line.startswith("protocol_temperatures:") for line in stored.differences(changed))


def test_endings_are_counted_per_system_and_debates_cut_short_are_listed_with_their_runs():
    found = [
        Ending("kimura/interruptible", "mmlu:1", 0, "mmlu", "d1", "budget"),
        Ending("kimura/interruptible", "mmlu:2", 0, "mmlu", "d2", "silence"),
        Ending("kimura/interruptible", "mmlu:2", 2, "mmlu", "d3", "max_turns"),
        Ending("parliament/cot", "mmlu:1", 1, "mmlu", "d4", "error", "server | down\nagain"),
        Ending("parliament/cot", "mmlu:2", 1, "mmlu", "d5", "phases_done"),
    ]
    text = "\n".join(section(found, ["kimura/interruptible", "parliament/cot"]))
    assert "| system | debates | `budget` | `silence` | `max_turns` | `phases_done` | `error` |" in text
    assert "| kimura/interruptible | 3 | 1 | 1 | 1 | 0 | 0 |" in text
    assert "| parliament/cot | 2 | 0 | 0 | 0 | 1 | 1 |" in text
    assert "Cut short (3):" in text
    assert "| kimura/interruptible | mmlu:2 | 0 | silence (the engine's guard: silent turns in a row) | d2 |" in text
    assert "| kimura/interruptible | mmlu:2 | 2 | max_turns (the engine's guard: the turn cap) | d3 |" in text
    assert "| parliament/cot | mmlu:1 | 1 | error: server \\| down again | d4 |" in text


def test_a_failed_debate_is_counted_and_listed_in_the_report(tmp_path):
    def down(request):
        raise BackendError("the server went away")

    def backend(config):
        if config.variant == "british":
            return ScriptedBackend(down)
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    spec = CompareSpec(experiment_id="err", systems=SYSTEMS[:2], mmlu=1, strategyqa=0, repeats=2)
    items = [Item("mmlu", "mmlu:0:x", "toy", QUESTION)]
    store = Store(tmp_path / "err.sqlite3")
    try:
        summary = CompareRunner(spec, store, backend(spec.config(items[0], SYSTEMS[0])), items, per_debate=backend)
        assert summary.run().failed == 2
        _, found = outcomes(store, "err")
        text = full_markdown(store, "err", spec, "scripted", found)[0]
    finally:
        store.close()
    assert re.search(r"\| parliament/british \| 2 \|.*\| 2 \|", text)
    assert "| parliament/british | mmlu:0:x | 0 | error: " in text
    assert "| parliament/british | mmlu:0:x | 1 | error: " in text and "the server went away" in text


@pytest.mark.parametrize("bad", [0, -1])
def test_repeats_are_at_least_one(bad):
    with pytest.raises(ValueError, match="repeats"):
        CompareSpec(experiment_id="x", repeats=bad)


def test_handraisers_and_aces_sections_give_mean_and_sd_over_runs_as_their_papers(tmp_path):
    def demo(config):
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    systems = ("handraiser/random", "ace/ace")
    spec = CompareSpec(experiment_id="sd", systems=systems, mmlu=2, strategyqa=0, repeats=3)
    items = [
        Item("mmlu", f"mmlu:{i}", "toy", QUESTION.model_copy(update={"text": f"{QUESTION.text} ({i})"})) for i in (1, 2)
    ]
    store = Store(tmp_path / "sd.sqlite3")
    try:
        CompareRunner(spec, store, demo(spec.config(items[0], systems[0])), items, per_debate=demo).run()
        _, found = outcomes(store, "sd")
        text = full_markdown(store, "sd", spec, "scripted", found)[0]
    finally:
        store.close()
    runs: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for o in found:
        runs[o.system][o.repeat].append(o.correct)
    rates = {s: [sum(v) / len(v) for _, v in sorted(by.items())] for s, by in runs.items()}
    # HandRaiser: success per run, mean ± SD (its paper's three trials with different seeds)
    assert "### Over runs: mean ± standard deviation" in text
    assert f"| handraiser/random | 3 | {spread(rates['handraiser/random']).sd_text(1, 3)} |" in text
    # ACE: Table 2's cells as mean ± SD over runs (its paper's ± columns)
    assert "Table 2 (accuracy, %, mean ± SD over runs)" in text
    ace = spread(rates["ace/ace"]).sd_text(100)
    assert f"| full A+C+E | {ace} | {ace} |" in text  # one task (mmlu): the mean over tasks is the same
