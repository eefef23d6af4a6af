"""SID-c's gate: first answers read from a stored study, a small classifier trained and written as JSON."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.workers import ExperimentError
from protocols.sid.gate import CODE_FEATURES, U_FEATURES, GateModel
from protocols.sid.study.train_gate import _split, examples, train
from storage import Store

MMLU = Path(__file__).resolve().parents[3] / "tests" / "fixtures"


def synthetic(n: int = 80, seed: int = 1) -> list[tuple[tuple[float, ...], bool]]:
    """The code's four features: right answers have low NLL and entropy maxima; wrong ones high (some overlap)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        right = i % 2 == 0
        centre = 1.0 if right else 4.0
        rows.append(((rng.gauss(centre, 0.8), rng.gauss(centre, 0.8), rng.gauss(0.5, 0.2), rng.gauss(0.6, 0.2)), right))
    return rows


def as_u(row: tuple[float, ...]) -> tuple[float, ...]:
    """A four-feature row as the paper's U (average, max, first, penultimate of NLL, then of entropy)."""
    nll_max, ent_max, nll_avg, ent_avg = row
    return (nll_avg, nll_max, 0.2, 0.1, ent_avg, ent_max, 0.3, 0.2)


def test_the_trained_gate_separates_confident_right_answers_and_matches_scikit_learn():
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    data = synthetic()
    model, record = train(data, hidden=8, seed=0, held_out=0.25, tau=0.9, names=CODE_FEATURES)
    assert model.feature_set == "code" and record["feature_set"] == "code"
    assert record["examples"] == 80 and record["right"] == 40 and record["held_out"]["n"] == 20
    assert record["held_out"]["accuracy"] >= 0.8
    assert model.probability((0.8, 0.9, 0.5, 0.6)) > 0.9 > 0.1 > model.probability((4.5, 4.2, 0.5, 0.6))
    # the plain-Python evaluation is scikit-learn's own prediction, for the same split and seed
    train_rows, _ = _split(data, 0.25, 0)
    x = [list(f) for f, _ in train_rows]
    scaler = StandardScaler().fit(x)
    reference = MLPClassifier(hidden_layer_sizes=(8,), max_iter=3_000, random_state=0)
    reference.fit(scaler.transform(x), [int(right) for _, right in train_rows])
    everything = [list(f) for f, _ in data]
    expected = reference.predict_proba(scaler.transform(everything))[:, 1]
    assert [model.probability(f) for f in everything] == pytest.approx(list(expected), abs=1e-9)
    again, _ = train(data, hidden=8, seed=0, held_out=0.25, tau=0.9, names=CODE_FEATURES)
    assert again == model  # seeded


def test_the_default_gate_reads_the_papers_eight_number_u():
    data = [(as_u(row), right) for row, right in synthetic()]
    model, record = train(data, hidden=8, seed=0, held_out=0.25, tau=0.9)
    assert model.features == U_FEATURES and record["features"] == list(U_FEATURES) and record["feature_set"] == "u"
    assert len(model.layers[0][0]) == 8 and record["held_out"]["accuracy"] >= 0.8
    assert model.probability(as_u((0.8, 0.9, 0.5, 0.6))) > 0.9 > 0.1 > model.probability(as_u((4.5, 4.2, 0.5, 0.6)))
    assert GateModel.from_json(model.to_json()) == model


def test_too_few_or_one_sided_examples_are_refused():
    with pytest.raises(ExperimentError, match="both right and wrong"):
        train([((1.0, 1.0, 0.5, 0.5), True)] * 10, hidden=4, seed=0, held_out=0.2, tau=0.9, names=CODE_FEATURES)


def test_the_command_reads_a_stored_exit_study_and_writes_a_loadable_gate(tmp_path, monkeypatch, capsys):
    db = str(tmp_path / "gate.sqlite3")
    run = ["compare", "--experiment", "held", "--db", db, "--backend", "scripted", "--no-progress"]
    assert main([*run, "--systems", "sid/exit", "--mmlu", "0", "--strategyqa", "4",
                 "--strategyqa-data", str(MMLU / "strategyqa_sample.json")]) == 0  # fmt: skip
    store = Store(db)
    try:
        found = examples(store, ["held"])
        four = examples(store, ["held"], CODE_FEATURES)
    finally:
        store.close()
    assert len(found) == 4 and all(right for _, right in found)  # the demo's first agent answers right
    assert len(found[0][0]) == 8 and found[0][0][1] == pytest.approx(7.0)  # U's NLL max: its hesitant token
    assert four[0][0][0] == pytest.approx(7.0) and len(four[0][0]) == 4
    out = tmp_path / "gate.json"
    assert main(["train-gate", "--experiment", "held", "--db", db, "--out", str(out)]) == 2
    assert "both right and wrong" in capsys.readouterr().out
    assert main(["train-gate", "--experiment", "nothing", "--db", db, "--out", str(out)]) == 2
    assert "no experiment 'nothing'" in capsys.readouterr().out
    monkeypatch.setattr("protocols.sid.study.train_gate.examples", lambda store, experiments, names: synthetic())
    assert main(["train-gate", "--experiment", "held", "--db", db, "--out", str(out), "--features", "code"]) == 0
    assert "gate_features=code" in " ".join(capsys.readouterr().out.split())
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["record"]["examples"] == 80 and written["feature_set"] == "code"
    assert GateModel.load(str(out)).probability((0.8, 0.9, 0.5, 0.6)) > 0.9
