"""Tree sampling on every HandRaiser task: Text Pictionary's guesser and Meeting Scheduling's traveler as the listener,
the listener's prompt captured from the task, per-role models recorded, a resumed tree with other parameters refused.

Everything runs on the scripted backend with a few nodes and rollouts.
"""

from __future__ import annotations

import json

import pytest

from debate_core.backends import factory
from debate_core.events import DebateStarted
from experiments.cli import main as experiments_main
from experiments.compare import Item
from experiments.workers import ExperimentError
from protocols.handraiser.replayed import listener_messages
from protocols.handraiser.study.tree import TreeSampler, TreeSpec
from protocols.handraiser.study.tree_prompts import Node, capture
from storage import Store
from tests.conftest import QUESTION

SMALL = ["--cases", "2", "--rollouts", "2", "--max-nodes", "2", "--branch-size", "2", "--backend", "scripted"]
LISTEN = {
    "pictionary": "What you have heard of the describer's message so far",
    "scheduling": "a few words at a time",
}


def sample(tmp_path, protocol: str, *extra: str, experiment: str | None = None) -> tuple[int, list[dict], str]:
    out = tmp_path / f"{protocol}.jsonl"
    db = str(tmp_path / "trees.sqlite3")
    argv = ["tree-sample", "--experiment", experiment or protocol, "--protocol", protocol, "--db", db]
    status = experiments_main([*argv, "--out", str(out), "--no-progress", *SMALL, *extra])
    lines = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return status, lines, db


@pytest.mark.parametrize("protocol,listener", [("pictionary", "guesser"), ("scheduling", "traveler")])
def test_tree_sample_labels_each_tasks_listener_and_records_the_task(tmp_path, protocol, listener):
    status, lines, db = sample(tmp_path, protocol)
    assert status == 0 and lines
    for line in lines:
        assert line["meta"]["task"] == protocol and line["label"] in ("Yes", "No")
        assert line["messages"][-1] == {"role": "assistant", "content": line["label"]}
        assert LISTEN[protocol] in line["messages"][1]["content"]  # the task's own listen prompt
        rule = line["meta"]["cost"] < line["meta"]["cost_no_interrupt"]
        rule = rule and line["meta"]["success"] >= line["meta"]["success_no_interrupt"]
        assert line["label"] == ("Yes" if rule else "No")
    store = Store(db)
    try:
        record = store.experiments.get(protocol)
        assert record is not None
        assert record.spec["protocol"] == protocol and record.spec["dataset"] == protocol
        assert record.spec["params"]["chunk_tokens"] == (8 if protocol == "pictionary" else 16)  # resolved
        assert record.notes["listener_data"]["examples"] == len(lines)
        root = next(r for r in store.experiments.runs(protocol) if r.condition == "root")
        started = store.events(root.debate_id)[0]
        assert isinstance(started, DebateStarted)
        assert [a.role for a in started.config.agents if a.role == listener] == [listener]
    finally:
        store.close()


def test_model_for_in_tree_sample_seats_the_listener_on_its_own_model_and_records_it(tmp_path):
    status, lines, db = sample(tmp_path, "pictionary", "--model-for", "guesser=scripted:small-guesser")
    assert status == 0 and lines
    store = Store(db)
    try:
        record = store.experiments.get("pictionary")
        assert record is not None and record.spec["model_for"] == {"guesser": "scripted:small-guesser"}
        root = next(r for r in store.experiments.runs("pictionary") if r.condition == "root")
        started = store.events(root.debate_id)[0]
        assert isinstance(started, DebateStarted) and "small-guesser" in started.model_id
    finally:
        store.close()
    assert sample(tmp_path, "pictionary", "--model-for", "judge=scripted:x", experiment="other")[0] != 0


def test_a_resumed_tree_with_other_parameters_is_refused_naming_them(tmp_path, capsys):
    assert sample(tmp_path, "handraiser")[0] == 0
    assert sample(tmp_path, "handraiser", "--param", "questions=false")[0] != 0
    said = capsys.readouterr()
    assert "params.questions: True -> False" in " ".join((said.out + said.err).split())
    assert sample(tmp_path, "handraiser")[0] == 0  # the same options resume (nothing left to do)


def test_a_scheduling_tree_refuses_the_symmetric_setting():
    with pytest.raises(ExperimentError, match="one listener"):
        TreeSpec(experiment_id="s", protocol="scheduling", params={"symmetric": True})


def test_the_captured_prompt_is_the_one_the_debate_rebuilds_from_its_events(tmp_path):
    def demo(config):
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    items = [Item("mmlu", "mmlu:0:greek", "toy", QUESTION)]
    spec = TreeSpec(experiment_id="tree", cases=1, rollouts=1, max_nodes=2, positions=False)
    store = Store(tmp_path / "t.sqlite3")
    try:
        sampler = TreeSampler(spec, store, demo(spec.config(items[0], None)), items, per_debate=demo, concurrency=1)
        sampler.run()
        root = store.events(spec.debate_id(items[0].key, "root"))
        branches = [b for b in sampler.branches() if b.unit is not None]
        assert branches
        for branch in branches:
            node = Node(branch.item, branch.utterance_id, branch.listener, (branch.unit,), root)
            captured = capture(sampler, node, sampler.backend)[branch.unit]
            heard_out = store.events(spec.debate_id(branch.item.key, f"u{branch.utterance_id}/none", 0))
            rebuilt = listener_messages(heard_out, branch.utterance_id, branch.unit)
            assert captured == rebuilt
    finally:
        store.close()
