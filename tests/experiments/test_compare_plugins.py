"""The comparison asks the plugins: its default systems, a protocol's study preparation, the mistakes it counts.

``compare`` names no protocol: the systems it runs without ``--systems`` are the control a plugin declares
with its protocol's other variants (Parliament's four); HandRaiser's positions pool comes in as that
protocol's study preparation (``--no-positions`` its own option); the report counts an invalid model reply
as a mistake where the event type says so (ACE's analyses and acts).
"""

from __future__ import annotations

import io

from rich.console import Console

from debate_core import ScriptedBackend
from debate_core.backends import factory
from debate_core.events import Intervention, ListenerDecision, Source
from experiments import compare_cli, extensions
from experiments.cli import build_parser
from experiments.compare import CompareRunner, CompareSpec, Item, default_systems
from experiments.compare_outcomes import _mistakes, records_mistakes
from protocols.ace.events import ActionComposed, AnalysisMade
from protocols.handraiser.positions import Positions, pro_is_correct
from protocols.handraiser.study import preparation
from storage import Store
from tests.conftest import QUESTION

PARLIAMENTS = ("parliament/cot", "parliament/british", "parliament/congress", "parliament/socratic")
ITEM = Item("mmlu", "mmlu:0:greek", "toy", QUESTION)
POSITIONS = Positions("A", "B", "A is the first letter.", "B looks like a first letter.")


def compare_args(*flags: str):
    return build_parser().parse_args(["compare", "--experiment", "x", *flags])


def test_a_study_that_names_no_systems_compares_the_declared_control_with_its_protocols_other_variants():
    assert default_systems() == PARLIAMENTS
    assert CompareSpec(experiment_id="x").systems == PARLIAMENTS
    assert compare_args().systems == ",".join(PARLIAMENTS)


def test_handraisers_positions_give_its_debates_their_sides_and_briefs_and_no_other_protocols():
    spec = CompareSpec(experiment_id="x", systems=("handraiser/random", "parliament/cot"), seed=3)
    setup = preparation.question_setup(POSITIONS, spec.seed, ITEM.key)
    pro_correct = pro_is_correct(spec.seed, ITEM.key)
    config = spec.config(ITEM, "handraiser/random", setup)
    pro, con = ("A", "B") if pro_correct else ("B", "A")
    assert (config.params["pro_answer"], config.params["con_answer"]) == (pro, con)
    briefs = {agent.role: agent.brief for agent in config.agents}
    assert briefs["pro"] == ("A is the first letter." if pro_correct else "B looks like a first letter.")
    assert briefs["con"] == ("B looks like a first letter." if pro_correct else "A is the first letter.")
    assert "pro_answer" not in spec.config(ITEM, "handraiser/random").params  # no pool: the sides by seed


def test_the_runner_lays_a_preparation_over_its_protocols_systems_only(tmp_path):
    seen = {}

    def demo(config):
        seen[config.protocol] = config
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    spec = CompareSpec(experiment_id="prep", systems=("handraiser/random", "parliament/cot"), mmlu=1, strategyqa=0)
    setup = extensions.QuestionSetup(params={"pro_answer": "B", "con_answer": "A"}, briefs={"pro": "Say B."})
    store = Store(tmp_path / "p.sqlite3")
    try:
        backend = demo(spec.config(ITEM, "parliament/cot"))
        runner = CompareRunner(
            spec, store, backend, [ITEM], per_debate=demo, prepared={"handraiser": {ITEM.key: setup}}
        )
        assert runner.run().finished == 2
    finally:
        store.close()
    assert seen["handraiser"].params["pro_answer"] == "B"
    assert {a.role: a.brief for a in seen["handraiser"].agents}["pro"] == "Say B."
    assert all(not a.brief for a in seen["parliament"].agents)


def test_compare_prepares_only_the_protocols_it_runs_and_handraiser_pools_only_on_a_model(monkeypatch):
    pooled = []

    def pool(store, backend, items, *, seed):
        pooled.append((seed, backend.model_id))
        return {item.key: POSITIONS for item in items}

    monkeypatch.setattr(preparation, "position_pool", pool)
    study_model = ScriptedBackend(lambda request: "", model_id="study-model")  # the study's own backend

    def prepared(*flags: str) -> tuple[dict, str]:
        args = compare_args(*flags)
        spec = compare_cli.spec_from(args)
        out = io.StringIO()
        request = extensions.PreparationRequest(args, Console(file=out), None, study_model, [ITEM], spec)
        return compare_cli.prepare(request), out.getvalue()

    made, said = prepared("--systems", "handraiser/random,parliament/cot", "--seed", "3")
    assert set(made) == {"handraiser"} and pooled == [(3, "study-model")]  # the study's model writes them
    assert made["handraiser"][ITEM.key] == preparation.question_setup(POSITIONS, 3, ITEM.key)
    assert "positions: the most confusing wrong answer" in said and "written by study-model" in said
    assert prepared("--systems", "handraiser/random", "--no-positions")[0] == {}
    assert prepared("--systems", "handraiser/random", "--backend", "scripted")[0] == {}
    assert prepared("--systems", "parliament/cot")[0] == {}
    assert pooled == [(3, "study-model")]
    made, said = prepared("--systems", "handraiser/random", "--positions-model", "scripted:writer-405b")
    assert set(made) == {"handraiser"} and pooled[-1] == (0, "writer-405b")  # --positions-model's writes them
    assert "written by writer-405b" in said


def test_an_invalid_model_reply_is_a_mistake_where_its_event_type_says_so():
    def reply(cls, valid=False, source=Source.MODEL):
        return cls.model_construct(seq=0, turn=0, public_tokens=0, at=0.0, valid=valid, source=source)

    assert records_mistakes(reply(AnalysisMade)) and records_mistakes(reply(ActionComposed))
    assert records_mistakes(reply(ListenerDecision)) and not records_mistakes(reply(Intervention))
    events = [reply(AnalysisMade), reply(ActionComposed), reply(ListenerDecision), reply(Intervention)]
    events += [reply(AnalysisMade, valid=True), reply(ActionComposed, source=Source.HUMAN)]
    assert _mistakes(events) == 3
