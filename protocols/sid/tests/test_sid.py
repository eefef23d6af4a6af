"""SID on the scripted backend: the gate on hand-made statistics, compression on hand-made attention,
every variant's flow, a person at the table."""

from __future__ import annotations

import json
import math
import threading

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.backends.base import Capability
from debate_core.backends.scripted import SCRIPTED_VOCAB_SIZE, ScriptedReply, scripted_tokens
from debate_core.errors import CapabilityError, ConfigError
from debate_core.events import EndReason, SignalsMeasured, UtteranceGenerated
from debate_core.events.records import TokenStats
from protocols.sid import gate
from protocols.sid.demo import SidDemo
from protocols.sid.events import ContextCompressed
from tests.conftest import HANG_GUARD_S, QUESTION, of_type

AGENTS = (AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny"))


def stats(nll_max=1.0, ent_max=1.0, nll_avg=0.5, ent_avg=0.5) -> TokenStats:
    return TokenStats(
        nll_max=nll_max, nll_avg=nll_avg, nll_first=0.1, nll_penultimate=0.1,
        ent_max=ent_max, ent_avg=ent_avg, ent_first=0.1, ent_penultimate=0.1,
    )  # fmt: skip


# -- the gate -------------------------------------------------------------------------------------------------
def test_the_alpha_gate_compares_the_larger_maximum_with_alpha_log_v():
    threshold = 0.5 * math.log(49_152)  # SmolLM2's vocabulary: 5.40
    passed = gate.check(stats(nll_max=5.3, ent_max=2.0), "alpha", alpha=0.5, vocab_size=49_152)
    assert passed.passed and passed.score == 5.3 and passed.threshold == pytest.approx(threshold)
    failed = gate.check(stats(nll_max=1.0, ent_max=5.5), "alpha", alpha=0.5, vocab_size=49_152)
    assert not failed.passed and failed.score == 5.5  # entropy counts as much as NLL
    assert gate.check(stats(nll_max=5.5), "alpha", alpha=1.0, vocab_size=49_152).passed  # reasoning models' alpha
    with pytest.raises(ValueError, match="vocabulary size"):
        gate.check(stats(), "alpha")


def test_the_fixed_gate_is_the_codes_constants():
    assert gate.check(stats(nll_max=2.49, ent_max=2.99), "fixed").passed
    assert not gate.check(stats(nll_max=2.5, ent_max=0.1), "fixed").passed
    verdict = gate.check(stats(nll_max=1.0, ent_max=6.0), "fixed")
    assert not verdict.passed and verdict.score == pytest.approx(2.0) and verdict.threshold == 1.0


def _model(weight: float = -2.0, bias: float = 3.0, names: tuple[str, ...] = gate.DEFAULT_FEATURES) -> gate.GateModel:
    """A one-layer gate on ``names`` (the paper's U by default): P(right) falls with NLL max (not rescaled)."""
    data = {
        "features": list(names),
        "mean": [0] * len(names),
        "scale": [1] * len(names),
        "layers": [{"weights": [[weight if n == "nll_max" else 0.0] for n in names], "biases": [bias]}],
    }
    return gate.GateModel.from_json(data, "test")


def test_the_calibrated_gate_reads_a_trained_classifiers_probability(tmp_path):
    model = _model()
    confident = gate.check(stats(nll_max=0.1), "calibrated", model=model, tau=0.9)
    assert confident.score == pytest.approx(1 / (1 + math.exp(-2.8))) and confident.passed
    assert not gate.check(stats(nll_max=1.0), "calibrated", model=model, tau=0.9).passed  # P = 0.73
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(model.to_json()), encoding="utf-8")
    loaded = gate.GateModel.load(str(path))
    assert loaded.feature_set == "u" and loaded.probability((0, 0.1, 0, 0, 0, 0, 0, 0)) == pytest.approx(
        confident.score
    )
    path.write_text('{"features": ["x"], "mean": [], "scale": [], "layers": []}', encoding="utf-8")
    with pytest.raises(ConfigError, match="not a trained gate"):
        gate.GateModel.load(str(path))


def test_the_calibrated_gate_reads_the_papers_eight_number_u_or_the_codes_four():
    assert gate.DEFAULT_FEATURES == gate.U_FEATURES and len(gate.U_FEATURES) == 8  # the paper's U: the default
    assert gate.CODE_FEATURES == ("nll_max", "ent_max", "nll_avg", "ent_avg")  # the authors' vector_4d
    u = stats(nll_max=0.1, ent_max=0.2, nll_avg=0.3, ent_avg=0.4)
    assert gate.features(u) == (0.3, 0.1, 0.1, 0.1, 0.4, 0.2, 0.1, 0.1)
    assert gate.features(u, gate.CODE_FEATURES) == (0.1, 0.2, 0.3, 0.4)
    four = _model(names=gate.CODE_FEATURES)
    assert four.feature_set == "code" and four.to_json()["feature_set"] == "code"
    assert gate.check(u, "calibrated", model=four).score == gate.check(u, "calibrated", model=_model()).score
    assert "(code features)" in gate.check(u, "calibrated", model=four).rule


# -- the flow of every variant ---------------------------------------------------------------------------------
def config(variant: str = "sid", *, agents=AGENTS, **params) -> DebateConfig:
    return DebateConfig(question=QUESTION, agents=agents, protocol="sid", variant=variant, params=params)


class Recording:
    def __init__(self, cfg: DebateConfig, **override) -> None:
        self.demo = SidDemo(cfg)
        self.override = override
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        reply = self.override.get(request.kind)
        return (reply(request) if callable(reply) else reply) if reply is not None else self.demo.reply(request)

    def kinds(self) -> list[str]:
        return [r.kind for r in self.requests]


def run(cfg, script=None, **kwargs):
    return Debate(cfg, ScriptedBackend(script or Recording(cfg)), **kwargs).run()


def calm(request):
    text = "Every option fails but one. The answer is (B)."
    n = len(scripted_tokens(text))
    return ScriptedReply(text, token_nll=(0.3,) * n, token_entropy=(0.5,) * n)


def test_mad_answers_revises_and_takes_the_majority_without_signals():
    cfg = config("mad")
    script = Recording(cfg)
    events = run(cfg, script)
    assert script.kinds() == ["answer"] * 3 + ["revise"] * 3
    assert not of_type(events, SignalsMeasured) and not of_type(events, ContextCompressed)
    assert all(not r.signals.token_stats for r in script.requests)
    end = events[-1]
    assert (end.reason, end.rule, end.final_answer) == (EndReason.ROUNDS, "majority", "B")


def test_a_confident_first_answer_ends_the_debate_before_the_others_speak():
    cfg = config("exit")
    script = Recording(cfg, answer=calm)
    events = run(cfg, script)
    assert script.kinds() == ["answer"] and script.requests[0].agent == "Alex"
    (measured,) = of_type(events, SignalsMeasured)
    assert measured.passed and measured.threshold == pytest.approx(0.5 * math.log(SCRIPTED_VOCAB_SIZE))
    assert measured.stats.nll_max == pytest.approx(0.3) and measured.stats.ent_max == pytest.approx(0.5)
    end = events[-1]
    assert (end.reason, end.rule, end.decided_by, end.final_answer) == (EndReason.EARLY_EXIT, "single", "Alex", "B")


def test_a_hesitant_first_answer_lets_the_debate_go_on_and_every_reply_is_measured():
    cfg = config("exit")
    script = Recording(cfg)  # the demo's Alex has one token with NLL 7 > 0.5 ln 50,000 = 5.41
    events = run(cfg, script)
    assert script.kinds() == ["answer", "answer", "answer", "revise", "revise", "revise"]
    assert script.requests[0].agent == "Alex"
    measured = of_type(events, SignalsMeasured)
    assert len(measured) == 6 and not measured[0].passed and measured[0].score == pytest.approx(7.0)
    assert events[-1].reason == EndReason.ROUNDS and events[-1].final_answer == "B"


def test_the_fixed_gate_exits_and_a_person_in_the_first_seat_has_no_signals_to_exit_on():
    cfg = config("exit", gate="fixed")
    events = run(cfg, Recording(cfg, answer=calm))
    assert events[-1].reason == EndReason.EARLY_EXIT and "nll_max < 2.5" in of_type(events, SignalsMeasured)[0].rule
    agents = (AgentSpec(name="Alex", seat=SeatKind.HUMAN), *AGENTS[1:])
    channel = HumanChannel()

    def person():
        while (request := channel.pending(timeout_s=HANG_GUARD_S)) is not None:
            channel.submit(request.request_id, {"text": "Surely nitrogen.", "answer": "B"})

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    seated = config("exit", agents=agents)
    events = run(
        seated, Recording(seated, answer=calm), seats={"Alex": HumanSeat("Alex", channel, timeout_s=HANG_GUARD_S)}
    )
    channel.close()
    thread.join(5)
    assert events[-1].reason == EndReason.ROUNDS
    assert "Alex" not in {e.agent for e in of_type(events, SignalsMeasured)}


def test_compression_gives_each_recipient_the_kept_text_of_the_others():
    cfg = config("compress", rho=0.2)
    script = Recording(cfg)
    events = run(cfg, script)
    assert script.kinds() == ["answer"] * 3 + ["focus"] * 3 + ["revise_kept"] * 3
    probes = [r for r in script.requests if r.kind == "focus"]
    assert all(r.signals.attention is not None for r in probes)
    assert "### FOCUS INSTRUCTION ###" in probes[0].messages[-1].content
    compressed = {e.agent: e for e in of_type(events, ContextCompressed)}
    assert set(compressed) == {"Alex", "Chris", "Jenny"}
    alex = compressed["Alex"]
    assert "Chris:" in alex.source_text and "Alex:" not in alex.source_text  # only the others
    assert 0 < alex.ratio < 1 and alex.top_p == 0.2
    kept = [alex.source_text[s:e] for s, e in alex.kept_spans]
    assert all(piece in alex.kept_text for piece in kept)
    revise = next(r for r in script.requests if r.kind == "revise_kept" and r.agent == "Alex").messages[-1].content
    assert alex.kept_text in revise and "other agents' answers:" not in revise


def test_the_probe_asks_every_layer_by_default_and_one_layer_with_layers_one():
    every = Recording(config("compress"))
    events = run(config("compress"), every)
    assert all(r.signals.attention.all_layers for r in every.requests if r.kind == "focus")
    assert all(e.all_layers and e.layer == 3 for e in of_type(events, ContextCompressed))  # the scripted 4 layers
    one = Recording(config("compress", layers="one", layer=-2))
    events = run(config("compress", layers="one", layer=-2), one)
    assert all(not r.signals.attention.all_layers for r in one.requests if r.kind == "focus")
    assert all(not e.all_layers and e.layer == 2 for e in of_type(events, ContextCompressed))


def test_the_clause_boundaries_are_the_papers_unless_clauses_code():
    """The long demo answers' restatements have commas and "or": the paper's units are shorter, so less is kept."""
    paper_cfg, code_cfg = config("compress"), config("compress", clauses="code")
    paper = of_type(run(paper_cfg, SidDemo(paper_cfg, restatements=5).reply), ContextCompressed)
    code = of_type(run(code_cfg, SidDemo(code_cfg, restatements=5).reply), ContextCompressed)
    assert all(p.ratio < 0.6 and c.ratio > 0.99 for p, c in zip(paper, code, strict=True))  # 0.57 and 1.00


def test_long_demo_answers_restate_their_check():
    demo = SidDemo(config("compress"), restatements=3)
    request = Recording(config("compress"))
    run(config("compress"), request)
    first = next(r for r in request.requests if r.kind == "answer")
    text = demo.reply(first).text
    assert text.count("I look at it once more") == 3 and text.rstrip().endswith("The answer is (B).")


def test_no_expand_keeps_bare_tokens_and_sid_does_both():
    narrow = of_type(run(config("no_expand", rho=0.2)), ContextCompressed)
    wide = of_type(run(config("sid", rho=0.2)), ContextCompressed)
    assert all(n.ratio < w.ratio for n, w in zip(narrow, wide, strict=True))
    both = run(config("sid"))
    assert of_type(both, SignalsMeasured) and of_type(both, ContextCompressed)


def test_sid_c_needs_a_trained_gate_and_gates_on_its_probability(tmp_path):
    with pytest.raises(ConfigError, match="classifier=PATH"):
        Debate(config("sid_c"), ScriptedBackend(lambda r: ""))
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(_model().to_json()), encoding="utf-8")
    cfg = config("sid_c", classifier=str(path), tau=0.9)
    events = run(cfg, Recording(cfg, answer=calm))  # NLL max 0.3: P(right) = 0.92
    first = of_type(events, SignalsMeasured)[0]
    assert first.passed and first.score == pytest.approx(1 / (1 + math.exp(-2.4))) and "classifier" in first.rule
    assert events[-1].reason == EndReason.EARLY_EXIT
    path.write_text(json.dumps(_model(names=gate.CODE_FEATURES).to_json()), encoding="utf-8")
    with pytest.raises(ConfigError, match="gate_features=code"):
        Debate(config("sid_c", classifier=str(path), gate_features="u"), ScriptedBackend(lambda r: ""))
    for code in (config("sid_c", classifier=str(path), gate_features="code"), config("sid_c", classifier=str(path))):
        assert "(code features)" in of_type(run(code, Recording(code, answer=calm)), SignalsMeasured)[0].rule


def test_a_backend_without_the_signals_is_refused_before_the_debate():
    class NoAttention(ScriptedBackend):
        capabilities = frozenset(Capability) - {Capability.ATTENTION}

    with pytest.raises(CapabilityError, match="attention"):
        Debate(config("compress"), NoAttention(lambda r: ""))
    assert Debate(config("exit"), NoAttention(lambda r: "")) is not None


def test_a_person_reads_the_others_whole_and_is_compressed_for_them():
    agents = (AgentSpec(name="Alex"), AgentSpec(name="Chris", seat=SeatKind.HUMAN), AgentSpec(name="Jenny"))
    cfg = config("compress", agents=agents, rho=0.3)
    channel = HumanChannel()
    seen = []

    def person():
        while (request := channel.pending(timeout_s=HANG_GUARD_S)) is not None:
            seen.append(request)
            channel.submit(request.request_id, {"text": "Nitrogen is most of the air, so B.", "answer": "b"})

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    script = Recording(cfg)
    events = run(cfg, script, seats={"Chris": HumanSeat("Chris", channel, timeout_s=HANG_GUARD_S)})
    channel.close()
    thread.join(5)
    assert [r.kind for r in seen] == ["answer", "revise"]  # whole, not compressed, for the person
    assert "Alex:" in seen[1].view.others[0][0] + ":" and seen[1].view.kept is None
    assert {e.agent for e in of_type(events, ContextCompressed)} == {"Alex", "Jenny"}
    probe = next(r for r in script.requests if r.kind == "focus" and r.agent == "Alex").messages[-1].content
    assert "Chris: Nitrogen is most of the air, so B. The answer is (B)." in probe
    chris = [u for u in of_type(events, UtteranceGenerated) if u.speaker == "Chris"]
    assert chris[0].source.value == "human" and chris[0].structured == {"answer": "B"}


# -- scoring free-form numbers (GSM8K) ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("said", "expected", "right"),
    [
        ("$1,200.", "1200", True),
        ("18.0", "18", True),
        ("−5", "-5", True),
        ("18 apples", "18", False),  # never containment
        ("18 or 19", "18", False),
        ("1,2", "12", False),  # not a thousands comma
        ("Nitrogen.", "nitrogen", True),
        ("B", "A", False),
    ],
)
def test_free_form_answers_are_scored_exactly_and_plain_numbers_by_value(said, expected, right):
    from debate_core.kernel.endings import is_correct

    assert is_correct(said, expected) is right


# -- beyond the paper: Kimura's urgency from measured confidence ------------------------------------------------
def _kimura(urgency: str) -> tuple[DebateConfig, object]:
    from protocols.kimura.demo import DemoScript

    cfg = DebateConfig(
        question=QUESTION, agents=AGENTS, protocol="kimura", variant="interruptible", params={"urgency": urgency},
        token_budget=60, seed=1,
    )  # fmt: skip
    demo = DemoScript(cfg)

    def script(request):
        text = demo.reply(request)
        if request.kind != "plan":
            return text
        n = len(scripted_tokens(text))
        hesitant = 6.0 if request.agent == "Alex" else 0.5  # Alex hesitates over every plan; the others do not
        return ScriptedReply(text, token_nll=(hesitant,) * n, token_entropy=(0.5,) * n)

    return cfg, script


def test_kimuras_urgency_can_come_from_the_plans_measured_confidence():
    from debate_core.events import PlansMade, SpeakerSelected

    cfg, script = _kimura("stated")
    stated = run(cfg, script)
    assert not of_type(stated, SignalsMeasured)
    first = of_type(stated, SpeakerSelected)[0]
    assert first.speaker == "Alex" and first.urgency == 7  # the demo's Alex states urgency 7
    cfg, script = _kimura("confidence")
    events = run(cfg, script)
    plans = of_type(events, PlansMade)[0]
    assert {r.agent: r.plan.urgency for r in plans.plans}["Alex"] == 7  # the plan as stated stays on record
    measured = {e.agent: e for e in of_type(events, SignalsMeasured)[:3]}
    ceiling = math.log(SCRIPTED_VOCAB_SIZE)
    assert f"confidence: {round(9 * (1 - 6.0 / ceiling))}" in measured["Alex"].rule and not measured["Alex"].passed
    assert f"confidence: {round(9 * (1 - 0.5 / ceiling))}" in measured["Jenny"].rule and measured["Jenny"].passed
    chosen = of_type(events, SpeakerSelected)[0]
    assert chosen.speaker != "Alex"  # Alex's hesitation cost it the floor it stated the most urgency for
    urgencies = {c.agent: c.urgency for c in chosen.candidates}
    assert urgencies.get("Alex", 0) < chosen.urgency


def test_urgency_both_averages_and_needs_token_statistics():
    from protocols.kimura.confidence import effective

    assert effective(8, 2, "both") == 5 and effective(8, 3, "both") == 6 and effective(8, 3, "confidence") == 3
    assert effective(8, 3, "stated") == 8

    class NoStats(ScriptedBackend):
        capabilities = frozenset(Capability) - {Capability.TOKEN_STATS}

    cfg, _ = _kimura("both")
    with pytest.raises(CapabilityError, match="urgency=confidence"):
        Debate(cfg, NoStats(lambda r: ""))


def test_the_gate_on_hand_made_logits_from_the_backends_own_arithmetic():
    """Per-step logits -> (NLL, entropy) as the transformers backend computes them -> SID's eight aggregates -> gate."""
    import torch

    from debate_core.backends.base import Completion
    from debate_core.backends.hf.signals import TokenStats as StepStats
    from debate_core.kernel.signals import token_stats

    vocab = 4
    steps = [  # the generated token of each step, and the step's raw logits
        (0, [5.0, 0.0, 0.0, 0.0]),  # sure of token 0
        (2, [1.0, 1.0, 1.0, 1.0]),  # uniform: entropy ln 4
        (1, [0.0, 3.0, 0.0, 0.0]),
    ]
    nll, entropy = [], []
    for token, logits in steps:
        step = StepStats(torch.tensor([logits]), [0])
        n, e = step.of(0, token)
        nll.append(n)
        entropy.append(e)
    assert nll[1] == pytest.approx(math.log(4)) and entropy[1] == pytest.approx(math.log(4))
    assert nll[0] == pytest.approx(-math.log(math.exp(5) / (math.exp(5) + 3)))
    completion = Completion("x y z", 1, 3, token_nll=tuple(nll), token_entropy=tuple(entropy))
    summary = token_stats(completion)
    assert summary is not None
    assert summary.nll_max == pytest.approx(math.log(4)) and summary.ent_first == pytest.approx(entropy[0])
    assert summary.nll_penultimate == pytest.approx(nll[1]) and summary.ent_avg == pytest.approx(sum(entropy) / 3)
    # the uniform step's ln 4 decides: just above alpha * ln 4 for alpha 0.99, just below for 1.01
    assert gate.check(summary, "alpha", alpha=1.01, vocab_size=vocab).passed
    assert not gate.check(summary, "alpha", alpha=0.99, vocab_size=vocab).passed


def test_a_confident_reply_that_names_no_answer_does_not_end_the_debate():
    def unsure(request):
        text = "I am certain of my reasoning, which is sound."
        n = len(scripted_tokens(text))
        return ScriptedReply(text, token_nll=(0.2,) * n, token_entropy=(0.3,) * n)

    cfg = config("exit")
    events = run(cfg, Recording(cfg, answer=unsure))
    first = of_type(events, SignalsMeasured)[0]
    assert first.passed and events[-1].reason == EndReason.ROUNDS
    assert of_type(events, UtteranceGenerated)[0].structured == {"answer": None}
