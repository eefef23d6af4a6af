"""Text Pictionary in the study harness: the data set, a comparison of policies, the report, the easy-entity filter."""

from __future__ import annotations

import json

from debate_core.backends import factory
from experiments.cli import main as experiments_main
from experiments.compare import CompareRunner, CompareSpec
from experiments.compare_report import write_report
from experiments.extensions import DataRequest, datasets
from protocols.handraiser.pictionary.entities import pool
from storage import Store


def demo(config):
    return factory.make_backend(factory.BackendSpec("scripted"), config)


def test_the_data_set_is_a_seeded_sample_of_the_pool_keyed_by_entity(tmp_path):
    dataset = next(d for d in datasets() if d.name == "pictionary")
    spec = CompareSpec(experiment_id="tp", systems=("pictionary/generic",), mmlu=0, strategyqa=0)
    items = dataset.items(DataRequest(5, 0, None, spec))
    again = dataset.items(DataRequest(5, 0, None, spec))
    assert [i.key for i in items] == [i.key for i in again] and len({i.key for i in items}) == 5
    assert all(i.key.startswith("pictionary:") and i.question.answer and not i.question.options for i in items)
    assert len(dataset.items(DataRequest(1_000, 0, None, spec))) == len(pool())
    path = tmp_path / "hard.json"
    path.write_text(json.dumps({"entities": [{"entity": "teapot", "category": "object", "aliases": []}]}))
    (only,) = dataset.items(DataRequest(5, 0, str(path), spec))
    assert (only.key, only.subject, only.question.answer) == ("pictionary:teapot", "object", "teapot")


def test_policies_as_systems_on_pictionary_items_in_the_handraiser_report(tmp_path):
    dataset = next(d for d in datasets() if d.name == "pictionary")
    systems = ("pictionary/generic", "pictionary/concise", "pictionary/random", "pictionary/prompted")
    spec = CompareSpec(experiment_id="tp", systems=systems, mmlu=0, strategyqa=0, datasets={"pictionary": 2})
    items = dataset.items(DataRequest(2, spec.seed, None, spec))
    store = Store(tmp_path / "c.sqlite3")
    try:
        runner = CompareRunner(spec, store, demo(spec.config(items[0], systems[0])), items, per_debate=demo)
        assert runner.run().finished == len(systems) * 2
        report = write_report(store, "tp", tmp_path / "report").read_text()
    finally:
        store.close()
    own = report[report.index("## HandRaiser") :]
    rows: dict[str, str] = {}
    for line in own.splitlines():  # the first table's rows (the histogram's come after)
        if line.startswith("| pictionary/"):
            rows.setdefault(line.split("|")[1].strip(), line)
    assert set(systems) <= set(rows)
    cost = lambda line: float(line.split("|")[3].split("(")[0].replace(",", ""))  # noqa: E731
    assert cost(rows["pictionary/concise"]) < cost(rows["pictionary/generic"])
    assert "100.0% (n=2" in rows["pictionary/generic"]  # the scripted guesser solves pool entities


def test_the_filter_drops_the_entities_guessed_in_round_one(tmp_path):
    source = tmp_path / "pool.json"
    entities = [
        {"entity": "giraffe", "category": "animal", "aliases": []},  # the script solves it in round one
        {"entity": "quasar", "category": "", "aliases": ["qso"]},  # outside the pool: only once spelled out
    ]
    source.write_text(json.dumps({"entities": entities}))
    out = tmp_path / "hard.json"
    argv = ["pictionary-filter", "--backend", "scripted", "--data-file", str(source), "--out", str(out)]
    status = experiments_main(argv)
    assert status == 0
    written = json.loads(out.read_text())
    assert written["dropped"] == ["giraffe"] and written["entities"] == [entities[1]]
    assert written["filtered"].startswith("yes: by scripted, dropped 1 of 2")
