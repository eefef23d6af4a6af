"""HandRaiser in the study harness: tree-sampled labels, resumable, exported; policies compared in one report."""

from __future__ import annotations

import json

import pytest

from debate_core import ScriptedBackend
from debate_core.backends import factory
from debate_core.events import ListenerDecision
from experiments.compare import CompareRunner, CompareSpec, Item, system_parts
from experiments.compare_report import write_report
from experiments.workers import ExperimentError
from protocols.handraiser.demo import HandRaiserDemo
from protocols.handraiser.study.tree import TreeSampler, TreeSpec, label_for, nodes, write_jsonl
from storage import Store
from tests.conftest import QUESTION

ITEMS = [
    Item("mmlu", "mmlu:0:greek", "toy", QUESTION),
    Item("mmlu", "mmlu:1:greek", "toy", QUESTION.model_copy(update={"text": "Which letter comes second in Greek?"})),
]


def demo(config):
    return factory.make_backend(factory.BackendSpec("scripted"), config)


def sampler(store, **changes) -> TreeSampler:
    spec = TreeSpec(experiment_id="tree", model="scripted", cases=2, rollouts=3, max_nodes=2, positions=False)
    spec = spec.model_copy(update=changes)
    return TreeSampler(spec, store, demo(spec.config(ITEMS[0], None)), ITEMS, per_debate=demo, concurrency=2)


def test_labels_follow_the_hard_constraint_cost_down_and_success_not_down():
    base = [(100, 1.0), (120, 0.0)]  # mean cost 110, success 0.5
    assert label_for([90, 100], [1.0, 0.0], base) == "Yes"  # cheaper, as good
    assert label_for([90, 100], [0.0, 0.0], base) == "No"  # cheaper but worse
    assert label_for([110, 120], [1.0, 1.0], base) == "No"  # better but not cheaper
    assert label_for([110, 110], [0.5, 0.5], base) == "No"  # equal cost is not a saving


def test_the_tree_sampler_forks_each_node_labels_its_branches_resumes_and_exports_chat_examples(tmp_path):
    store = Store(tmp_path / "t.sqlite3")
    try:
        first = sampler(store).run()
        branches = sampler(store).branches()
        assert (
            first.roots == 2 and first.rollouts == len(branches) * 3 and first.finished == first.roots + first.rollouts
        )
        # at most branch_size interrupt points per node plus the no-interrupt branch, at most max_nodes nodes
        per_node = {}
        for b in branches:
            per_node.setdefault((b.item.key, b.utterance_id), []).append(b.unit)
        assert len({key[0] for key in per_node}) == 2 and all(len(v) <= 4 and None in v for v in per_node.values())
        again = sampler(store).run()
        assert (again.finished, again.skipped) == (0, again.roots + again.rollouts)
        # every rollout of a branch really was forced there, and shares the root's decisions before it
        b = next(b for b in branches if b.unit is not None)
        spec = sampler(store).spec
        for r in range(3):
            events = store.events(spec.debate_id(b.item.key, b.name, r))
            at = [d for d in events if isinstance(d, ListenerDecision) and d.utterance_id == b.utterance_id]
            assert [d.interrupt for d in at] == [False] * b.unit + [True]
            assert at[-1].policy == "forced"
        examples = sampler(store).examples()
        assert len(examples) == sum(1 for b in branches if b.unit is not None)
        for example in examples:
            meta = example.meta
            rule = meta["cost"] < meta["cost_no_interrupt"] and meta["success"] >= meta["success_no_interrupt"]
            assert example.label == ("Yes" if rule else "No")
            assert [m["role"] for m in example.messages] == ["system", "user", "assistant"]
            assert example.messages[-1]["content"] == example.label
            assert "What you have heard so far" in example.messages[1]["content"]
        written = write_jsonl(examples, tmp_path / "data" / "listener.jsonl")
        lines = (tmp_path / "data" / "listener.jsonl").read_text().splitlines()
        assert written["examples"] == len(lines) == len(examples)
        assert written["yes"] == sum(json.loads(line)["label"] == "Yes" for line in lines)
        with pytest.raises(ExperimentError, match="different specification"):
            sampler(store, rollouts=4).run()
    finally:
        store.close()


def test_nodes_are_statements_with_two_chunks_or_more_up_to_max_nodes(tmp_path):
    store = Store(tmp_path / "n.sqlite3")
    try:
        s = sampler(store, max_nodes=1, branch_size=1, rollouts=1)
        s.run()
        root = store.events(s.spec.debate_id(ITEMS[0].key, "root"))
        found = nodes(s.spec, ITEMS[0], root)
        assert len({b.utterance_id for b in found}) == 1 and [b.unit is None for b in found] == [False, True]
    finally:
        store.close()


def test_policies_as_systems_with_parameter_overrides_in_one_report(tmp_path):
    assert system_parts("handraiser/threshold:tau=0.3,max_rounds=4") == (
        "handraiser",
        "threshold",
        {"tau": 0.3, "max_rounds": 4},
    )
    with pytest.raises(ValueError, match="no parameter 'taux'"):
        CompareSpec(experiment_id="x", systems=("handraiser/threshold:taux=0.3",))
    systems = (
        "handraiser/generic",
        "handraiser/concise",
        "handraiser/random",
        "handraiser/prompted",
        "handraiser/threshold:tau=0.3",
        "handraiser/threshold:tau=0.9",
        "handraiser/learned:listener=ckpt/listener",
    )
    spec = CompareSpec(experiment_id="hr", systems=systems, mmlu=1, strategyqa=0)
    store = Store(tmp_path / "c.sqlite3")

    def seat(model, config):  # the listener: the demo's script under the listener's name
        return ScriptedBackend(HandRaiserDemo(config).reply, model_id=model)

    try:
        runner = CompareRunner(
            spec, store, demo(spec.config(ITEMS[0], systems[0])), ITEMS[:1], per_debate=demo, seat_backend=seat
        )
        assert runner.run().finished == len(systems)
        report = write_report(store, "hr", tmp_path / "report").read_text()
    finally:
        store.close()
    assert "Table 6" in report and "Threshold sweep" in report
    own = report[report.index("## HandRaiser") :]  # its section (the generic tables name the systems too)
    rows = [line for line in own.splitlines() if line.startswith("| handraiser/")]
    assert len(rows) >= len(systems)
    generic = next(line for line in rows if line.startswith("| handraiser/generic |"))
    concise = next(line for line in rows if line.startswith("| handraiser/concise |"))
    cost = lambda line: float(line.split("|")[3].split("(")[0].replace(",", ""))  # noqa: E731
    assert cost(concise) < cost(generic)
    assert (tmp_path / "report" / "handraiser-tau-sweep.html").exists()


def test_a_separate_model_writes_the_positions_that_the_trees_debates_argue(tmp_path):
    import argparse

    from debate_core.backends.factory import BackendSpec
    from debate_core.backends.model_for import SeatBackends
    from protocols.handraiser.study.positions import pool_key, position_pool, positions_backend, positions_label

    def writer(request):  # the large model of the paper's §4.1, scripted
        return '{"option": "C"}' if request.kind == "confusing" else f"The writer's case ({request.kind})."

    spec = TreeSpec(experiment_id="tree", cases=1, rollouts=1, max_nodes=1, positions_model="scripted:writer-405b")
    store = Store(tmp_path / "p.sqlite3")
    try:
        pool = position_pool(store, ScriptedBackend(writer, model_id="writer-405b"), ITEMS[:1], seed=spec.seed)
        assert store.experiments.pool(pool_key("writer-405b", 0, 0.0), [ITEMS[0].key])  # keyed by the writer
        (positions,) = pool.values()
        assert positions.wrong == "C" and positions.correct_explanation == "The writer's case (explain)."
        s = TreeSampler(spec, store, demo(spec.config(ITEMS[0], None)), ITEMS[:1], positions=pool, per_debate=demo)
        s.run()
        started = store.events(spec.debate_id(ITEMS[0].key, "root"))[0]
        briefs = {agent.role: agent.brief for agent in started.config.agents}
        assert "The writer's case (explain)." in (briefs["pro"], briefs["con"])
    finally:
        store.close()
    args = argparse.Namespace(backend="transformers", positions_model="scripted:writer-405b")
    assert positions_label(args) == "scripted:writer-405b"
    seats = SeatBackends(BackendSpec("transformers"))
    made = positions_backend(args, seats, demo(spec.config(ITEMS[0], None)), spec.config(ITEMS[0], None))
    assert made.model_id == "writer-405b"
    assert positions_label(argparse.Namespace(backend="transformers", positions_model=None)) == ""
