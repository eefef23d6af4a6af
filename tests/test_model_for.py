"""Per-role models (``--model-for WHO=SPEC``): the syntax, the routing, the terminal and the study harness."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from debate_core.backends import BackendRouter, ScriptedBackend
from debate_core.backends import model_for as mf
from debate_core.backends.base import Backend
from debate_core.backends.factory import BackendSpec, make_backend, seated
from debate_core.config import AgentSpec, DebateConfig
from debate_core.errors import ConfigError
from debate_core.events import Event
from debate_core.protocols.base import Protocol
from debate_core.protocols.registry import protocol_class
from experiments.cli import main
from experiments.compare import CompareRunner, CompareSpec, study_temperatures
from experiments.compare_report import report_markdown
from storage import Store
from tests.conftest import QUESTION
from tests.experiments.offline import block_downloads

KINDS = ("scripted", "transformers", "llamacpp", "openai")


def printed(capsys: pytest.CaptureFixture[str]) -> str:
    """What was printed, its lines (wrapped to the terminal's width) joined."""
    return " ".join(capsys.readouterr().out.split())


def parse(*items: str) -> dict[str, mf.SeatModel]:
    return mf.parse_model_for(items, KINDS)


def tar(**params: Any) -> DebateConfig:
    agents = tuple(AgentSpec(name=name) for name in ("Alex", "Chris", "Jenny"))  # affirmative, negative, judge
    return DebateConfig(question=QUESTION, agents=agents, protocol="baselines", variant="tar", params=params)


def rtc() -> DebateConfig:
    agents = tuple(AgentSpec(name=f"D{i}") for i in (1, 2, 3))
    return DebateConfig(question=QUESTION, agents=agents, protocol="baselines", variant="rtc")


# -- the syntax


def test_a_spec_is_a_model_a_kind_and_model_a_kind_alone_or_a_server_of_its_own():
    found = parse(
        "Alex=org/model",
        "judge=openai:gpt-4o@http://127.0.0.1:8000/v1",
        "Chris=llamacpp:/m/x.gguf",
        "Jenny=scripted",
        "D1=scripted:judge-model",
        "D2=openai:llama3:8b",
        "D3=transformers",
    )
    assert found["Alex"] == mf.SeatModel("Alex", None, "org/model")
    assert found["judge"] == mf.SeatModel("judge", "openai", "gpt-4o", "http://127.0.0.1:8000/v1")
    assert found["Chris"] == mf.SeatModel("Chris", "llamacpp", "/m/x.gguf")
    assert found["Jenny"] == mf.SeatModel("Jenny", "scripted", None)
    assert found["D1"].label == "scripted:judge-model" and found["D2"].model == "llama3:8b"
    assert found["D3"] == mf.SeatModel("D3", "transformers", None)
    # a bare model is the default's kind; with the scripted default, a transformers model (as before)
    assert mf.normalised(found, "openai")["Alex"] == "openai:org/model"
    assert mf.normalised(found, "scripted")["Alex"] == "transformers:org/model"
    assert mf.normalised(found, "scripted")["judge"] == "openai:gpt-4o"  # the server's address is not recorded


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["judge"], "write WHO=SPEC"),
        (["=org/model"], "no agent or role before the ="),
        (["judge="], "judge=: no model"),
        (["judge= @http://h:1/v1"], "no model"),
        (["judge=openai:"], "no model after openai:"),
        (["judge=vllm:org/model"], "unknown backend kind 'vllm'"),
        (["judge=a", "judge=b"], "judge is given twice"),
        (["judge=llamacpp:x.gguf@http://h:1/v1"], "is for openai:MODEL only"),
    ],
)
def test_every_mistake_in_the_syntax_is_a_one_line_config_error(items, message):
    with pytest.raises(ConfigError, match=message) as caught:
        parse(*items)
    assert "\n" not in str(caught.value)


def test_a_bare_model_with_a_server_address_needs_the_openai_kind():
    (model,) = parse("judge=org/model@http://h:1/v1").values()
    assert model.resolved("openai").kind == "openai"
    with pytest.raises(ConfigError, match="is for openai:MODEL, not transformers"):
        model.resolved("transformers")


def test_a_who_that_names_no_agent_or_role_of_the_debate_is_refused():
    mf.check_who(parse("judge=scripted", "Alex=scripted"), tar())  # a role and an agent
    with pytest.raises(ConfigError, match=r"--model-for Judge: no such agent or role.*roles: affirmative, judge"):
        mf.check_who(parse("Judge=scripted"), tar())


# -- the routing


def test_a_role_applies_to_all_its_agents_and_an_agents_own_model_wins_over_its_role():
    config = rtc()
    default = make_backend(BackendSpec("scripted"), config)
    seats = mf.SeatBackends(BackendSpec("scripted"), parse("debater=scripted:everyone", "D2=scripted:mine"))
    router = seats.route(default, config)
    assert isinstance(router, BackendRouter)
    assert [router.backend_for(f"D{i}", "debater").model_id for i in (1, 2, 3)] == ["everyone", "mine", "everyone"]
    assert router.model_id == "scripted-demo (+ mine, everyone)"


def test_scripted_name_is_the_demo_script_under_that_model_id_and_a_debate_runs_on_it():
    from debate_core.debate import Debate

    config = tar()
    router = mf.SeatBackends(BackendSpec("scripted"), parse("judge=scripted:judge-model")).route(
        make_backend(BackendSpec("scripted"), config), config
    )
    assert isinstance(router, BackendRouter)
    assert router.backend_for("Jenny", "judge").model_id == "judge-model"
    assert router.backend_for("Alex", "affirmative").model_id == "scripted-demo"
    ended = [e for e in Debate(config, router).events() if e.type == "debate_ended"]
    assert ended and ended[0].final_answer


def test_a_who_the_debate_does_not_have_leaves_it_on_its_default():
    config = rtc()
    default = make_backend(BackendSpec("scripted"), config)
    assert mf.SeatBackends(BackendSpec("scripted"), parse("judge=scripted:j")).route(default, config) is default


def counting(monkeypatch: pytest.MonkeyPatch) -> list[BackendSpec]:
    """``make_backend`` of a model kind made without a model: a scripted stand-in named for it, each one counted."""
    made: list[BackendSpec] = []

    def fake(spec: BackendSpec, config: DebateConfig | None = None) -> Backend:
        made.append(spec)
        return ScriptedBackend(lambda request: "", model_id=f"{spec.kind}:{spec.model}")

    monkeypatch.setattr(mf, "make_backend", fake)
    return made


def test_each_model_is_made_once_for_every_debate_it_serves_and_the_default_is_reused(monkeypatch):
    made = counting(monkeypatch)
    spec = BackendSpec("openai", "base", options={"base_url": "http://h:1/v1", "timeout_s": 5})
    default = ScriptedBackend(lambda request: "", model_id="base")
    seats = mf.SeatBackends(
        spec,
        parse("judge=judge-model", "Alex=base", "Chris=openai:other@http://elsewhere:2/v1", "D1=transformers:t"),
        default=default,
    )
    first, second = seats.route(default, tar()), seats.route(default, tar())
    assert isinstance(first, BackendRouter) and isinstance(second, BackendRouter)
    assert first.by_role["judge"] is second.by_role["judge"] and first.by_agent["Chris"] is second.by_agent["Chris"]
    assert first.by_agent["Alex"] is default  # the default model, named again: the default backend
    assert seats.route(default, rtc()).by_agent["D1"] is seats.route(default, rtc()).by_agent["D1"]  # type: ignore[union-attr]
    assert [(s.kind, s.model, s.options.get("base_url")) for s in made] == [
        ("openai", "judge-model", "http://h:1/v1"),
        ("openai", "other", "http://elsewhere:2/v1"),
        ("transformers", "t", None),
    ]
    assert made[0].options["timeout_s"] == 5 and "timeout_s" not in made[2].options  # the default's own options


def test_openai_without_a_server_is_refused_when_the_default_is_not_on_one():
    seats = mf.SeatBackends(BackendSpec("transformers"), parse("judge=openai:gpt-4o"))
    with pytest.raises(ConfigError, match="needs its server: openai:MODEL@http"):
        seats.route(ScriptedBackend(lambda request: "", model_id="x"), tar())


def handraiser(listener: str = "ckpt/listener") -> DebateConfig:
    agents = tuple(AgentSpec(name=name) for name in ("Pro", "Con", "Moderator"))
    return DebateConfig(
        question=QUESTION, agents=agents, protocol="handraiser", variant="learned", params={"listener": listener}
    )


def test_a_variants_own_seated_model_and_model_for_both_work_and_an_explicit_role_wins():
    config = handraiser()
    default = make_backend(BackendSpec("scripted"), config)
    plain = seated(default, BackendSpec("scripted"), config)  # the factory's own: the variant's model alone
    assert isinstance(plain, BackendRouter) and plain.backend_for("Moderator", "moderator").model_id == "ckpt/listener"
    both = mf.SeatBackends(BackendSpec("scripted"), parse("pro=scripted:speaker")).route(default, config)
    assert isinstance(both, BackendRouter)
    assert both.backend_for("Moderator", "moderator").model_id == "ckpt/listener"
    assert both.backend_for("Pro", "pro").model_id == "speaker"
    mine = mf.SeatBackends(BackendSpec("scripted"), parse("moderator=scripted:own")).route(default, config)
    assert isinstance(mine, BackendRouter) and mine.backend_for("Moderator", "moderator").model_id == "own"
    roles = {"Pro": "pro", "Con": "con", "Moderator": "moderator"}
    assert mf.conflicts({"moderator": "ckpt/listener"}, parse("moderator=scripted:ckpt/listener"), roles) == []
    (problem,) = mf.conflicts({"moderator": "ckpt/listener"}, parse("Moderator=scripted:own"), roles)
    assert "Moderator=scripted:own would seat another model" in problem


# -- the terminal


def test_the_terminal_routes_model_for_and_refuses_a_who_of_no_agent_or_role(capsys):
    from console.cli import backend_from_args, build_parser, config_from_args
    from console.cli import main as terminal

    args = build_parser().parse_args(
        ["run", "--protocol", "baselines", "--variant", "tar", "--model-for", "judge=scripted:judge-model"]
    )
    backend = backend_from_args(args, config_from_args(args))
    assert isinstance(backend, BackendRouter) and backend.backend_for("Jenny", "judge").model_id == "judge-model"
    assert terminal(["run", "--quiet", "--model-for", "judge=scripted:j"]) == 2  # kimura: no judge
    assert "--model-for judge: no such agent or role" in printed(capsys)


# -- the study harness


SYSTEMS = "baselines/rtc,baselines/tar"
PER_ROLE = ["--model-for", "judge=scripted:judge-model", "--model-for", "Debater2=scripted:rtc-b"]
PER_ROLE += ["--model-for", "debater=scripted:rtc-all"]


def study(db: str, *extra: str) -> int:
    common = ["--experiment", "mf", "--db", db, "--backend", "scripted", "--no-progress", "--systems", SYSTEMS]
    return main(["compare", *common, "--mmlu", "2", "--strategyqa", "0", *extra])


def test_a_study_seats_each_roles_model_records_it_reports_it_and_refuses_a_rerun_with_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    block_downloads(monkeypatch, tmp_path)
    db, out = str(tmp_path / "s.sqlite3"), tmp_path / "report"
    assert study(db, *PER_ROLE) == 0
    store = Store(db)
    try:
        record = store.experiments.get("mf")
        assert record is not None and record.spec["model_for"] == {
            "judge": "scripted:judge-model",
            "Debater2": "scripted:rtc-b",
            "debater": "scripted:rtc-all",
        }
        models = {f"{d.protocol}/{d.variant}": d.model_id for d in store.list_debates(experiment_id="mf", limit=100)}
    finally:
        store.close()
    assert models["baselines/tar"] == "scripted-demo (+ judge-model)"
    assert models["baselines/rtc"] == "scripted-demo (+ rtc-b, rtc-all)"  # Debater2's own; Debater1 and 3 the role's
    assert main(["report", "mf", "--db", db, "--out", str(out), "--no-png"]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "## Models" in text and "The default model `scripted-demo` sat in every seat not named here" in text
    assert "| judge | `scripted:judge-model` | baselines/tar |" in text
    assert "| Debater2 | `scripted:rtc-b` | baselines/rtc |" in text
    assert "| debater | `scripted:rtc-all` | baselines/rtc |" in text
    capsys.readouterr()
    assert study(db, *PER_ROLE[:2]) == 2  # the same study with fewer per-role models: refused
    said = printed(capsys)
    assert "--model-for: judge=scripted:judge-model Debater2=scripted:rtc-b debater=scripted:rtc-all -> " in said
    assert said.endswith("-> judge=scripted:judge-model")
    assert study(db, *PER_ROLE) == 0  # as it began: resumed (every debate already finished)


def test_a_who_no_system_of_the_study_has_is_refused_before_any_model_work(tmp_path, monkeypatch, capsys):
    block_downloads(monkeypatch, tmp_path)
    db = tmp_path / "s.sqlite3"
    assert study(str(db), "--model-for", "moderator=scripted:x") == 2
    said = printed(capsys)
    assert "--model-for moderator: no system of the study has such an agent or role" in said
    assert not db.exists()  # refused before the store was opened, let alone a model
    assert study(str(db), "--model-for", "judge=nope:x") == 2
    assert "unknown backend kind 'nope'" in printed(capsys)


def test_a_runner_given_per_role_models_without_their_backends_refuses(tmp_path):
    spec = CompareSpec(experiment_id="x", systems=("baselines/tar",), model_for={"judge": "scripted:j"})
    store = Store(str(tmp_path / "s.sqlite3"))
    try:
        with pytest.raises(Exception, match="no backends for them"):
            CompareRunner(spec, store, ScriptedBackend(lambda request: "", model_id="x"), [])
    finally:
        store.close()


# -- per-variant study temperatures


class Tiny(Protocol):
    name = "tiny"
    variants = ("a", "b")
    study_temperature = 0.4

    def run(self, table: Any) -> Iterator[Event]:
        yield from ()


def test_a_variant_may_sample_at_its_own_study_temperature(monkeypatch):
    assert [Tiny.variant_study_temperature(v) for v in Tiny.variants] == [0.4, 0.4]  # by default, the protocol's
    cls = protocol_class("baselines")
    monkeypatch.setattr(cls, "study_temperature", None)
    own = classmethod(lambda c, variant: 0.7 if variant == "tar" else c.study_temperature)
    monkeypatch.setattr(cls, "variant_study_temperature", own)
    systems = ("baselines/tar", "baselines/cot", "baselines")
    assert study_temperatures(systems) == {"baselines": None, "baselines/tar": 0.7}
    spec = CompareSpec(experiment_id="t", systems=systems)
    assert [spec.temperature_for(s) for s in systems] == [0.7, None, None]
    assert "0.7 for baselines/tar" in report_markdown(spec, "m", [])
    before = CompareSpec(experiment_id="t", systems=systems, protocol_temperatures={"baselines": None})
    assert before.temperature_for("baselines/tar") is None  # a study stored before keeps what it ran at
    assert any(change.startswith("protocol_temperatures:") for change in before.differences(spec))  # a rerun: refused
    assert CompareSpec(experiment_id="t", systems=systems, temperature=0.2).temperature_for("baselines/tar") == 0.2
