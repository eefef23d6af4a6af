"""The comparison harness: every system on the same questions, resumable, and its report's numbers."""

from __future__ import annotations

import json

import pytest

from debate_core import ScriptedBackend
from debate_core.backends import factory
from debate_core.config import Question
from experiments.compare import CompareRunner, CompareSpec, Item, agents_for
from experiments.compare_report import drift, free_form, full_markdown, outcomes, pairs, report_markdown, summarise
from experiments.strategyqa import load_strategyqa
from experiments.workers import ExperimentError
from storage import Store
from tests.conftest import QUESTION

SYSTEMS = ("parliament/cot", "parliament/british", "parliament/congress", "parliament/socratic")


def items() -> list[Item]:
    yes_no = load_strategyqa("tests/fixtures/strategyqa_sample.json")[:2]
    return [Item("mmlu", "mmlu:0:greek", "toy", QUESTION)] + [
        Item("strategyqa", f"strategyqa:{q.index}", "strategyqa", q.question()) for q in yes_no
    ]


def demo(config):
    return factory.make_backend(factory.BackendSpec("scripted"), config)


def test_every_system_answers_the_same_questions_with_the_same_seed_and_a_rerun_resumes(tmp_path):
    store = Store(tmp_path / "c.sqlite3")
    spec = CompareSpec(experiment_id="cmp", systems=SYSTEMS, mmlu=1, strategyqa=2)
    try:
        first = CompareRunner(spec, store, demo(spec.config(items()[0], SYSTEMS[0])), items(), per_debate=demo).run()
        assert (first.debates, first.finished, first.skipped) == (12, 12, 0)
        again = CompareRunner(spec, store, demo(spec.config(items()[0], SYSTEMS[0])), items(), per_debate=demo).run()
        assert (again.finished, again.skipped) == (0, 12)
        _, found = outcomes(store, "cmp")
        assert len(found) == 12
        seeds = {}
        for outcome in found:
            started = store.events(outcome.debate_id)[0]
            seeds.setdefault(outcome.question_key, set()).add(started.config.seed)
        assert all(len(s) == 1 for s in seeds.values())  # one seed per question, shared by every system
        rows = summarise(spec, found)
        british = next(r for r in rows if r.system == "parliament/british" and r.dataset == "all")
        assert british.accuracy.n == 3 and british.interventions == 1.0  # the demo raises one point
        assert "| strategyqa | parliament/cot |" in report_markdown(spec, "scripted-demo", found)
        changed = spec.model_copy(update={"temperature": 0.7})
        with pytest.raises(ExperimentError, match=r"temperature: None -> 0.7"):
            CompareRunner(changed, store, demo(spec.config(items()[0], SYSTEMS[0])), items(), per_debate=demo).run()
    finally:
        store.close()


def test_drift_counts_questions_the_control_had_right_and_a_debate_lost(tmp_path):
    def backend(config):
        wrong = config.variant == "british" and config.question.text == QUESTION.text

        def respond(request):
            if request.kind == "final" and wrong:
                return json.dumps({"final_answer": "A"})
            return demo(config).generate([request])[0].text

        return ScriptedBackend(respond)

    store = Store(tmp_path / "d.sqlite3")
    spec = CompareSpec(experiment_id="drift", systems=("parliament/cot", "parliament/british"), mmlu=1, strategyqa=2)
    try:
        CompareRunner(
            spec, store, backend(spec.config(items()[0], "parliament/cot")), items(), per_debate=backend
        ).run()
        _, found = outcomes(store, "drift")
        [british] = drift(spec, found)
        assert (british.paired, british.lost, british.won) == (3, 1, 0)
    finally:
        store.close()


def test_agents_are_named_for_the_roles_each_variant_needs():
    assert [(a.name, a.role) for a in agents_for("parliament", "british")] == [
        ("Prover", "prover"), ("Critic", "critic"),
    ]  # fmt: skip
    assert [a.name for a in agents_for("parliament", "cot")] == ["Prover"]
    assert [a.name for a in agents_for("kimura", "interruptible")] == ["Alex", "Chris", "Jenny"]


def test_a_system_that_does_not_exist_is_refused_before_anything_runs():
    with pytest.raises(ValueError, match="no variant 'senate'"):
        CompareSpec(experiment_id="x", systems=("parliament/senate",))
    with pytest.raises(ValueError, match="unknown protocol"):
        CompareSpec(experiment_id="x", systems=("agora/open",))


def test_free_form_answers_are_reported_exact_normalized_and_by_containment_and_pairs_are_tested(tmp_path):
    tower = Question(text="Which tower was finished in 1889?", answer="Eiffel Tower")
    city = Question(text="Which city is the Eiffel Tower in?", answer="Paris")
    free = [Item("hotpotqa", "hotpotqa:0:tower", "bridge", tower), Item("hotpotqa", "hotpotqa:1:city", "bridge", city)]
    british_says = {tower.text: "the Eiffel Tower.", city.text: "Paris, France"}

    def backend(config):
        said = british_says.get(config.question.text) if config.variant == "british" else None

        def respond(request):
            if request.kind == "final" and said:
                return json.dumps({"final_answer": said})
            return demo(config).generate([request])[0].text

        return ScriptedBackend(respond)

    store = Store(tmp_path / "f.sqlite3")
    spec = CompareSpec(experiment_id="free", systems=("parliament/cot", "parliament/british"), mmlu=1, strategyqa=0)
    try:
        chosen = [items()[0], *free]
        CompareRunner(spec, store, backend(spec.config(chosen[0], "parliament/cot")), chosen, per_debate=backend).run()
        _, found = outcomes(store, "free")
        text, _ = full_markdown(store, "free", spec, "scripted-demo", found)  # what the Analysis tab shows
    finally:
        store.close()
    british = {o.question_key: o for o in found if o.system == "parliament/british"}
    assert british["hotpotqa:0:tower"].final_answer == "the Eiffel Tower"
    assert [(o.correct, o.normalized_exact, o.contained) for o in british.values() if o.free_form] == [
        (False, True, True),  # "the Eiffel Tower": wrong exactly, right once normalized
        (False, False, True),  # "Paris, France": right only by containment
    ]
    assert not british["mmlu:0:greek"].free_form and british["mmlu:0:greek"].contained  # labels as scored
    [row] = free_form(spec, found)[1:]
    assert (row.system, row.exact.correct, row.normalized.correct, row.contained.correct) == (
        "parliament/british", 0, 1, 2,
    )  # fmt: skip
    assert "| hotpotqa | parliament/british | 0.0% (n=2" in text
    [exact] = pairs(spec, found)
    assert (exact.n, exact.a_only, exact.b_only, exact.p_value) == (3, 2, 0, 0.5)
    assert (exact.difference, exact.low, exact.high) == (pytest.approx(2 / 3), 0.0, 1.0)  # P(no discordant) > 2.5%
    [contained] = pairs(spec, found, contained=True)
    assert (contained.a_only, contained.b_only, contained.p_value) == (0, 0, 1.0)
    assert "## Paired comparison on the same questions" in text
    assert "| parliament/cot vs parliament/british | 3 | 2 | 0 | +66.7 (+0.0 to +100.0) | 0.500 |" in text
    assert "Against the CoT control" in text  # the drift table stays
    assert "doubles the British opening's count" in text  # Parliament's own note on its paper's token count
