"""The protocol seam: a protocol owns its loop over the kernel, found by name, checked before it runs.

``tests/protocols/judged_rounds.py`` is a fourth protocol written only against the public
API (under about 100 lines); ``tests/protocols/tour.py`` makes every kernel move once.
"""

from __future__ import annotations

import json
import threading
from importlib.metadata import EntryPoint

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.backends import BackendRouter, ScriptedReply
from debate_core.errors import CapabilityError, ConfigError
from debate_core.events import (
    EVENT_TYPES,
    AnswersUpdated,
    DebateEnded,
    EndReason,
    Interrupted,
    Intervention,
    ListenerDecision,
    PhaseStarted,
    UnitDisclosed,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
)
from debate_core.protocols import describe, registry
from storage import Store
from tests.conftest import QUESTION, of_type
from tests.protocols.judged_rounds import JudgedRounds
from tests.protocols.tour import SPEECH_TEXT, Tour, tour_backend
from ui.view_model import DebateView

AGENTS = (AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cy", role="judge"))


@pytest.fixture(autouse=True)
def test_protocols():
    registry.register(JudgedRounds)
    registry.register(Tour)
    yield
    registry.unregister(JudgedRounds.name)
    registry.unregister(Tour.name)


def judged_config(**overrides) -> DebateConfig:
    values = {"question": QUESTION, "agents": AGENTS, "protocol": "judged-rounds"}
    values.update(overrides)
    return DebateConfig.model_validate(values)


def judge_backend(final_at: int = 2) -> ScriptedBackend:
    verdicts = iter(range(1, 100))

    def respond(request):
        if request.kind == "statement":
            return f"{request.agent} says B, at turn {request.turn}."
        round_ = next(verdicts)
        return json.dumps({"answer": "A" if round_ == 1 else "B", "final": round_ >= final_at})

    return ScriptedBackend(respond)


def run(config, backend, **kwargs):
    return Debate(config, backend, **kwargs).run()


# -- a fourth protocol on the public API ----------------------------------------------------------


def test_a_protocol_written_outside_the_engine_runs_and_ends_on_its_judges_verdict():
    events = run(judged_config(), judge_backend(final_at=2))
    started, end = events[0], events[-1]
    assert started.config.variant == "standard" and started.config.params == {"rounds": 3, "early_end": True}
    assert [a.role for a in started.config.agents] == ["debater", "debater", "judge"]
    assert [(p.phase, p.round) for p in of_type(events, PhaseStarted)] == [
        ("statements", 1), ("verdict", 1), ("statements", 2), ("verdict", 2),
    ]  # fmt: skip
    said = of_type(events, UnitDisclosed)
    assert [e.speaker for e in said] == ["Ann", "Ben", "Ann", "Ben"]
    assert [u.kind for u in of_type(events, UtteranceGenerated)] == ["statement"] * 4
    assert [a.answer_of("Cy") for a in of_type(events, AnswersUpdated)] == ["A", "B"]
    assert isinstance(end, DebateEnded)
    assert (end.reason, end.final_answer, end.rule, end.decided_by, end.correct) == (
        EndReason.VERDICT, "B", "judge", "Cy", True,
    )  # fmt: skip


def test_without_a_final_verdict_it_ends_after_its_rounds():
    events = run(judged_config(params={"rounds": 2, "early_end": False}), judge_backend(final_at=1))
    assert (events[-1].reason, events[-1].final_answer) == (EndReason.ROUNDS, "B")
    assert len(of_type(events, AnswersUpdated)) == 2


def test_a_person_can_take_the_judges_seat_through_the_generic_form():
    config = judged_config(
        agents=(AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cy", role="judge", seat=SeatKind.HUMAN)),
        params={"rounds": 2},
    )
    channel = HumanChannel()
    seen = []

    def judge():
        while (request := channel.pending(timeout_s=5)) is not None:
            seen.append(request)
            assert [f.name for f in request.fields] == ["answer", "final"]
            channel.submit(request.request_id, {"answer": "b", "final": "yes"})

    player = threading.Thread(target=judge, daemon=True)
    player.start()
    events = run(config, judge_backend(), seats={"Cy": HumanSeat("Cy", channel, timeout_s=5)})
    channel.close()
    player.join(5)
    assert [r.kind for r in seen] == ["verdict"]
    assert (events[-1].final_answer, events[-1].decided_by, events[-1].reason) == ("B", "Cy", EndReason.VERDICT)


def test_the_protocol_is_stored_and_replays_as_it_ran(tmp_path):
    events = run(judged_config(), judge_backend())
    store = Store(tmp_path / "s.sqlite3")
    try:
        list(store.record(iter(events)))
        summary = store.debate(events[0].debate_id)
        assert (summary.protocol, summary.variant, summary.condition, summary.status) == (
            "judged-rounds", "standard", None, "finished",
        )  # fmt: skip
        assert store.events(summary.id) == events
        assert store.list_debates(protocol="judged-rounds")[0].id == summary.id
        view = DebateView.from_events(store.events(summary.id))
        assert view.roles == {"Ann": "debater", "Ben": "debater", "Cy": "judge"}
        assert view.ended is not None and view.ended.decided_by == "Cy"
    finally:
        store.close()


def test_protocols_are_found_by_entry_point(monkeypatch):
    registry.unregister(JudgedRounds.name)
    fake = EntryPoint("judged-rounds", "tests.protocols.judged_rounds:JudgedRounds", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [fake] if group == registry.ENTRY_POINT_GROUP else [])
    monkeypatch.setattr(registry, "_LOADED", False)
    assert registry.protocol_class("judged-rounds") is JudgedRounds


def test_the_listing_gives_variants_roles_parameters_and_request_kinds():
    info = {i.name: i for i in describe()}
    judged = info["judged-rounds"]
    assert judged.variants == ("standard",)
    assert [(r.name, r.minimum, r.maximum) for r in judged.roles] == [("debater", 2, None), ("judge", 1, 1)]
    assert [(p.name, p.default) for p in judged.params] == [("rounds", 3), ("early_end", True)]
    assert judged.forms == ("statement", "verdict")
    assert info["kimura"].variants == ("interruptible", "dynamic", "fixed")
    assert info["kimura"].forms == ("initial_answer", "plan", "utterance")


# -- the checks made before anything runs -----------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"protocol": "nope"}, "unknown protocol 'nope'"),
        ({"variant": "shouting"}, "has no variant 'shouting'"),
        ({"params": {"rounds": 0}}, "parameter rounds: Input should be greater than or equal to 1"),
        ({"params": {"turns": 3}}, r"has no parameter 'turns' \(its parameters: rounds, early_end\)"),
        ({"agents": (AgentSpec(name="Ann"), AgentSpec(name="Cy", role="judge"))}, "at least 2 debater"),
        ({"agents": (*AGENTS, AgentSpec(name="Di", role="judge"))}, "at most 1 judge"),
        ({"agents": (AgentSpec(name="Ann", role="jury"), *AGENTS[1:])}, "not one of debater, judge"),
    ],
)
def test_a_protocol_refuses_a_set_up_it_cannot_run(overrides, message):
    with pytest.raises(ConfigError, match=message):
        Debate(judged_config(**overrides), judge_backend())


def test_condition_is_kimuras_alias_only():
    assert DebateConfig(question=QUESTION, condition="fixed").variant == "fixed"
    assert DebateConfig(question=QUESTION, variant="dynamic").condition == "dynamic"
    with pytest.raises(ValueError, match="disagree"):
        DebateConfig(question=QUESTION, condition="fixed", variant="dynamic")
    with pytest.raises(ValueError, match="takes variant"):
        judged_config(condition="fixed")


class Plain(ScriptedBackend):
    capabilities = frozenset()


def test_a_backend_without_a_needed_capability_is_refused_before_the_debate():
    config = DebateConfig(question=QUESTION, protocol="tour", agents=(AgentSpec(name="Ann"), AgentSpec(name="Chris")))
    with pytest.raises(CapabilityError, match=r"protocol tour needs per-token statistics .* backend plain does not"):
        Debate(config, Plain(lambda r: "", model_id="plain"))
    # each role's own backend is checked for what that role needs
    router = BackendRouter(Plain(lambda r: "NO", model_id="plain"), by_role={"speaker": tour_backend()})
    with pytest.raises(CapabilityError, match=r"probabilities of given choices \(a listener's P\(interrupt\)"):
        Debate(config, router)
    router = BackendRouter(tour_backend(), by_role={"speaker": tour_backend()})
    assert Debate(config, router).run()[-1].reason is EndReason.PHASES_DONE


# -- every kernel move ---------------------------------------------------------------------------------


def tour_config(variant: str = "continue") -> DebateConfig:
    agents = (AgentSpec(name="Ann"), AgentSpec(name="Chris"), AgentSpec(name="Dee"))
    return DebateConfig(question=QUESTION, protocol="tour", variant=variant, agents=agents)


@pytest.mark.parametrize("variant", ["continue", "regenerate"])
def test_a_point_of_information_suspends_the_speech_which_then_resumes(variant):
    events = run(tour_config(variant), tour_backend())
    decisions = of_type(events, ListenerDecision)
    first = [d for d in decisions if d.unit_index == 0]
    assert [(d.listener, d.interrupt, d.policy) for d in first] == [
        ("Chris", True, "prompted"),
        ("Dee", False, "prompted"),
    ]
    assert first[0].text == "But is the count zero-based?" and 0 <= first[0].p_interrupt <= 1
    [cut] = of_type(events, Interrupted)
    assert cut.suspended and cut.interrupter == "Chris" and cut.discarded
    [poi, question] = of_type(events, Intervention)
    assert (poi.kind, poi.blocking, poi.utterance_id, question.blocking) == ("poi", True, cut.utterance_id, False)
    [resumed] = of_type(events, UtteranceResumed)
    assert (resumed.utterance_id, resumed.mode) == (cut.utterance_id, variant)
    speech = [e.text for e in of_type(events, UnitDisclosed) if e.utterance_id == cut.utterance_id]
    if variant == "continue":
        assert " ".join(speech) == SPEECH_TEXT  # nothing lost, nothing repeated
        assert of_type(events, UtteranceRevised) == []
    else:
        [revised] = of_type(events, UtteranceRevised)
        assert revised.discarded == cut.discarded and speech[1:] == list(revised.units)
    assert events[-1].stats.interventions == 2 and events[-1].stats.resumptions == 1


def test_all_event_types_occur_across_the_protocols(real_segmenter):
    from protocols.kimura.demo import demo_backend, demo_config

    config = demo_config(seed=1)
    kinds = {e.type for e in Debate(config, demo_backend(config), segmenter=real_segmenter).run()}
    kinds |= {e.type for v in ("continue", "regenerate", "streaming") for e in run(tour_config(v), tour_backend())}
    kinds |= {e.type for e in run(judged_config(), judge_backend())}
    assert kinds == set(EVENT_TYPES)


def test_confidence_signals_are_measured_on_the_reply_they_gate():
    def respond(request):
        if request.kind == "speech":
            return ScriptedReply(SPEECH_TEXT, token_nll=(0.5, 7.5, 1.0), token_entropy=(1.0, 2.0, 3.0))
        return "NO"

    events = run(tour_config(), ScriptedBackend(respond))
    [signals] = [e for e in events if e.type == "signals_measured"]
    assert (signals.stats.nll_max, signals.stats.nll_penultimate, signals.stats.ent_avg) == (7.5, 7.5, 2.0)
    assert (signals.score, signals.passed) == (7.5, False)


# -- stopping ----------------------------------------------------------------------------------------


def test_stop_cancels_a_generation_in_flight():
    long_speech = " ".join(f"word{i}" for i in range(1_000))
    backend = ScriptedBackend(lambda r: long_speech, seconds_per_token=0.01)  # 10 s to generate it all
    debate = Debate(tour_config(), backend)
    threading.Timer(0.3, debate.stop).start()
    events = debate.run()
    assert events[-1].reason is EndReason.STOPPED
    assert of_type(events, UtteranceGenerated) == []  # the cut-short speech never reached the table
    [speech] = [r for r in backend.requests if r.cancel is not None and r.cancel.cancelled]
    assert speech.cancel is not None and speech.cancel.tokens < 1_000  # cut off mid-generation, not run to its end


# -- branching -----------------------------------------------------------------------------------------


def test_a_fork_replays_the_debate_up_to_a_forced_decision_and_branches_there():
    from tests.golden.scenarios import normalise

    def dumped(events):
        return [normalise({k: v for k, v in e.model_dump(mode="json").items() if k not in ("at", "debate_id")})
                for e in events]  # fmt: skip

    original = run(tour_config(), tour_backend())
    point = next(d for d in of_type(original, ListenerDecision) if d.listener == "Chris" and d.interrupt)
    branch = run(tour_config(), tour_backend(), forced={("Chris", point.utterance_id, point.unit_index): False})
    same = next(i for i, e in enumerate(original) if e is point)
    assert dumped(branch[:same]) == dumped(original[:same])
    forced = branch[same]
    assert (forced.listener, forced.interrupt, forced.policy) == ("Chris", False, "forced")
    assert of_type(branch, Interrupted) == [] or of_type(branch, Interrupted)[0].seq > point.seq


def test_a_snapshot_restores_the_kernels_state():
    debate = Debate(tour_config(), tour_backend())
    table = debate.table
    events = []
    for event in debate.events():
        events.append(event)
        if isinstance(event, Intervention):
            break
    saved = table.snapshot()
    draw = table.rng.random()
    table.tick()
    table.answers["Ann"] = "Z"
    table.restore(saved)
    assert (table.turn, table.answers["Ann"], table.rng.random()) == (saved.turn, saved.answers["Ann"], draw)
    assert table.history == list(saved.history) and table.public_tokens == saved.public_tokens
