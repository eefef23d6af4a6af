"""HandRaiser on the scripted backend: token chunks, every policy, the paper's cost, forks, people."""

from __future__ import annotations

import json

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.backends.router import BackendRouter
from debate_core.backends.scripted import ScriptedReply, scripted_tokens
from debate_core.errors import CapabilityError, ConfigError, HumanInputError
from debate_core.events import (
    AnswersUpdated,
    DebateEnded,
    EndReason,
    Interrupted,
    ListenerDecision,
    UnitDisclosed,
    UtteranceGenerated,
    event_to_dict,
)
from protocols.handraiser.cost import debate_cost
from protocols.handraiser.demo import DECISIVE, HandRaiserDemo
from protocols.handraiser.forms import parse_vote
from protocols.handraiser.replayed import listener_messages
from protocols.handraiser.sides import assign_sides
from protocols.handraiser.views import HandView, said_prefix
from tests.conftest import HANG_GUARD_S, QUESTION, of_type

AGENTS = (AgentSpec(name="Pro"), AgentSpec(name="Con"), AgentSpec(name="Moderator"))
ASKED = "Question {}: which fact decides it?"
LONG = " ".join(f"Reason number {n} supports my answer, and it is a good one." for n in range(1, 8))


def config(variant: str = "prompted", *, agents=AGENTS, **params) -> DebateConfig:
    params.setdefault("pro_answer", "B")
    params.setdefault("con_answer", "C")
    return DebateConfig(
        question=QUESTION, agents=agents, protocol="handraiser", variant=variant, params=params, record_prompts=True
    )


class Script:
    """Statements of ``LONG``; the moderator says yes at the listed (utterance, chunk) points, votes ``vote``."""

    def __init__(self, yes=(), vote="pro", wait_rounds=0, p_yes=None) -> None:
        self.yes, self.vote, self.wait_rounds, self.p_yes = set(yes), vote, wait_rounds, p_yes
        self.requests = []
        self.statements = 0
        self.votes = 0

    def __call__(self, request):
        self.requests.append(request)
        if request.kind == "statement":
            self.statements += 1
            return LONG
        if request.kind == "listen":
            heard = request.messages[-1].content.split("What you have heard so far:", 1)[1]
            chunk = len(scripted_tokens(heard.split('"\n', 1)[0])) // 16  # whole chunks heard so far
            yes = (self.statements, chunk) in self.yes
            if self.p_yes is not None:
                return ScriptedReply("Yes" if yes else "No", choice_probs={"Yes": self.p_yes, "No": 1 - self.p_yes})
            return "Yes" if yes else "No"
        self.votes += 1
        asked = '"question"' in request.messages[-1].content  # the moderator may ask a question if it waits
        if request.kind == "vote" and self.votes <= self.wait_rounds:
            return json.dumps({"vote": "wait", "question": ASKED.format(self.votes)} if asked else {"vote": "wait"})
        return json.dumps({"vote": self.vote, "question": ""} if asked else {"vote": self.vote})


def run(cfg: DebateConfig, script=None, **kwargs) -> list:
    backend = ScriptedBackend(script or Script())
    return Debate(cfg, backend, **kwargs).run()


# -- token chunks ------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [16, 5])
def test_a_statement_is_disclosed_in_chunks_of_n_tokens_of_the_backend_tokenizer(size):
    events = run(config("generic", chunk_tokens=size))
    pro = of_type(events, UtteranceGenerated)[0]
    disclosed = [e for e in of_type(events, UnitDisclosed) if e.utterance_id == pro.utterance_id]
    counts = [len(scripted_tokens(u.text)) for u in disclosed]
    assert counts[:-1] == [size] * (len(counts) - 1) and 1 <= counts[-1] <= size
    assert sum(counts) == len(scripted_tokens(LONG))
    assert said_prefix(pro.text, pro.units, len(pro.units)) == LONG  # the chunks put back give the text


def test_said_prefix_keeps_the_texts_own_spacing_where_a_chunk_ends_inside_a_word():
    text = "Nitrogen is first. Oxygen second."
    assert said_prefix(text, ("Nitro", "gen is first.", "Oxygen second."), 2) == "Nitrogen is first."


# -- the debate's rules --------------------------------------------------------------------------
def test_pro_then_con_each_round_and_the_moderator_waits_or_votes():
    events = run(config("generic"), Script(vote="con", wait_rounds=2))
    speakers = [(e.speaker, e.kind) for e in of_type(events, UtteranceGenerated)]
    assert speakers == [("Pro", "statement"), ("Con", "statement"), ("Moderator", "question")] * 2 + [
        ("Pro", "statement"),
        ("Con", "statement"),
        ("Moderator", "vote"),
    ]
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct, end.decided_by) == (EndReason.VERDICT, "C", False, "Moderator")
    assert of_type(events, AnswersUpdated)[0].answers[0].answer == "B"  # Pro argues its assigned answer


def test_cutting_pro_off_hands_the_floor_to_con_and_cutting_con_off_makes_the_moderator_vote():
    script = Script(yes={(1, 2), (2, 1)}, vote="pro")
    events = run(config("prompted"), script)
    cuts = of_type(events, Interrupted)
    assert [(c.interrupted, c.disclosed_count) for c in cuts] == [("Pro", 2), ("Con", 1)]
    kinds = [r.kind for r in script.requests]
    assert kinds.index("statement", 1) > kinds.index("listen")  # Con spoke right after the cut, no vote between
    assert kinds[-1] == "verdict" and "vote" not in kinds  # cut off Con: a vote with no waiting
    assert events[-1].final_answer == "B" and events[-1].correct


def test_no_vote_in_max_rounds_ends_the_debate_without_an_answer_which_is_a_failure():
    events = run(config("generic", max_rounds=2), Script(wait_rounds=99))
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct) == (EndReason.ROUNDS, None, False)


def test_sides_are_assigned_the_correct_answer_and_a_wrong_option_at_random_by_seed():
    seen = set()
    for seed in range(12):
        cfg = DebateConfig(question=QUESTION, agents=AGENTS, protocol="handraiser", seed=seed)
        sides = assign_sides(cfg, cfg_params(cfg))
        assert sides.correct == "B" and "B" in (sides.pro, sides.con) and sides.pro != sides.con
        seen.add(sides.pro == "B")
    assert seen == {True, False}
    free = QUESTION.model_copy(update={"options": (), "answer": None})
    with pytest.raises(ConfigError, match="pro_answer and con_answer"):
        Debate(DebateConfig(question=free, agents=AGENTS, protocol="handraiser"), ScriptedBackend(Script()))


def cfg_params(cfg):
    from protocols.handraiser.params import HandRaiserParams

    return HandRaiserParams.model_validate(cfg.params)


def test_a_vote_is_read_from_json_a_first_word_or_the_one_answer_named_and_a_bad_one_waits():
    view = HandView(agent="M", role="moderator", title="Moderator", question=QUESTION, pro_position="B) Beta",
                    con_position="C) Gamma")  # fmt: skip
    assert parse_vote('{"vote": "con"}', view, ("pro", "con", "wait")) == "con"
    assert parse_vote("Pro has the better case.", view, ("pro", "con", "wait")) == "pro"
    assert parse_vote("I think the answer is C.", view, ("pro", "con", "wait")) == "con"
    events = run(config("generic"), Script(vote="maybe"))
    waits = [e for e in of_type(events, UtteranceGenerated) if e.kind == "wait"]
    assert waits and waits[0].error and "the vote must be one of" in waits[0].error  # recorded; the debate goes on


# -- policies -----------------------------------------------------------------------------------------
def test_generic_and_concise_never_ask_the_moderator_and_concise_asks_for_brevity():
    for variant in ("generic", "concise"):
        script = Script()
        events = run(config(variant), script)
        assert not of_type(events, ListenerDecision) and not of_type(events, Interrupted)
        prompts = [r.messages[-1].content for r in script.requests if r.kind == "statement"]
        assert all(("Be concise" in p) == (variant == "concise") for p in prompts)


def test_random_interrupts_each_statement_at_one_seeded_point_without_asking_a_model():
    script = Script(wait_rounds=3)
    cfg = config("random")
    events = run(cfg, script)
    assert not [r for r in script.requests if r.kind == "listen"]
    decisions = of_type(events, ListenerDecision)
    assert {d.policy for d in decisions} == {"random"}
    by_statement = {}
    for d in decisions:
        by_statement.setdefault(d.utterance_id, []).append(d.interrupt)
    assert all(flags[-1] and sum(flags) == 1 for flags in by_statement.values())  # one cut per statement
    again = run(cfg, Script(wait_rounds=3))
    assert [d.unit_index for d in of_type(again, ListenerDecision) if d.interrupt] == [
        d.unit_index for d in decisions if d.interrupt
    ]


def test_prompted_asks_one_token_per_chunk_but_the_last_until_a_yes():
    script = Script(yes={(1, 3)})
    events = run(config("prompted"), script)
    listens = [r for r in script.requests if r.kind == "listen"]
    assert {r.sampling.max_new_tokens for r in listens} == {1}
    pro = of_type(events, UtteranceGenerated)[0]
    pro_decisions = [d for d in of_type(events, ListenerDecision) if d.utterance_id == pro.utterance_id]
    assert [d.interrupt for d in pro_decisions] == [False, False, True]
    con = of_type(events, UtteranceGenerated)[1]
    con_decisions = [d for d in of_type(events, ListenerDecision) if d.utterance_id == con.utterance_id]
    assert len(con_decisions) == len(con.units) - 1  # no decision after the last chunk


@pytest.mark.parametrize(("tau", "cuts"), [(0.5, 2), (0.7, 0)])
def test_threshold_interrupts_iff_p_yes_reaches_tau_whatever_the_token_says(tau, cuts):
    script = Script(p_yes=0.6)  # the sampled token always says No
    events = run(config("threshold", tau=tau), script)
    assert len(of_type(events, Interrupted)) == cuts
    assert {d.p_interrupt for d in of_type(events, ListenerDecision)} == {0.6}


def test_threshold_needs_choice_probabilities_from_the_moderators_backend():
    class Plain(ScriptedBackend):
        capabilities = ScriptedBackend.capabilities - {__import__("debate_core").backends.base.Capability.CHOICE_PROBS}

    with pytest.raises(CapabilityError, match="choice"):
        Debate(config("threshold"), Plain(Script()))


def test_learned_runs_the_prompted_template_on_the_listeners_own_backend():
    speakers, listener = Script(), Script(yes={(0, 1)})  # the listener never sees a statement request
    router = BackendRouter(ScriptedBackend(speakers), by_role={"moderator": ScriptedBackend(listener, model_id="ckpt")})
    events = Debate(config("learned", listener="ckpt"), router).run()
    assert {r.kind for r in listener.requests} == {"listen", "verdict"} or "listen" in {
        r.kind for r in listener.requests
    }
    assert not [r for r in speakers.requests if r.kind == "listen"]
    assert of_type(events, Interrupted)[0].interrupted == "Pro"
    with pytest.raises(ConfigError, match="listener=PATH"):
        Debate(config("learned"), ScriptedBackend(Script()))
    with pytest.raises(ConfigError, match="--model-for moderator=ckpt"):
        Debate(config("learned", listener="ckpt"), ScriptedBackend(Script()))


def test_human_policy_needs_a_person_as_moderator_whose_interrupt_lands_at_the_next_chunk():
    with pytest.raises(ConfigError, match="person in the moderator's seat"):
        Debate(config("human"), ScriptedBackend(Script()))
    channel = HumanChannel()
    agents = (*AGENTS[:2], AgentSpec(name="Moderator", seat=SeatKind.HUMAN))
    seat = HumanSeat("Moderator", channel, timeout_s=HANG_GUARD_S, live=True)
    debate = Debate(config("human", agents=agents), ScriptedBackend(Script()), seats={"Moderator": seat})
    events = []
    import threading

    def person():
        while True:
            request = channel.pending(timeout_s=HANG_GUARD_S)
            if request is None:
                return
            channel.submit(request.request_id, {"vote": "pro"})

    helper = threading.Thread(target=person, daemon=True)
    helper.start()
    for event in debate:
        events.append(event)
        if isinstance(event, UnitDisclosed) and event.speaker == "Pro" and event.index == 1:
            channel.set_stance(intent="interrupt")  # pressed while chunk 2 is on screen: the cut follows it
        if isinstance(event, Interrupted):
            channel.set_stance(intent=None)
    channel.close()
    cut = of_type(events, Interrupted)[0]
    assert (cut.interrupted, cut.disclosed_count) == ("Pro", 2)
    assert [d.policy for d in of_type(events, ListenerDecision)][:2] == ["prompted", "prompted"]
    assert events[-1].final_answer == "B"


# -- cost ------------------------------------------------------------------------------------------------
def test_cost_counts_speakers_up_to_the_cut_and_one_token_per_decision():
    script = Script(yes={(2, 2)})
    events = run(config("prompted"), script)
    pro, con, vote = of_type(events, UtteranceGenerated)
    cost = debate_cost(events)
    con_said = sum(e.tokens for e in of_type(events, UnitDisclosed) if e.utterance_id == con.utterance_id)
    assert con_said == 32  # two chunks of 16
    decisions = len(of_type(events, ListenerDecision))
    assert cost.statement_tokens == pro.generation.completion_tokens + con_said
    assert cost.decision_tokens == decisions == (len(pro.units) - 1) + 2
    assert cost.moderator_tokens == vote.generation.completion_tokens
    assert cost.total == cost.statement_tokens + cost.moderator_tokens + cost.decision_tokens
    assert cost.interrupt_chunks == (2,) and cost.statements == 2 and cost.rounds == 1
    end = events[-1]
    assert cost.generated_tokens == end.stats.generated_tokens > cost.total  # Con's rest was generated, not paid
    assert cost.prompt_tokens_computed == end.stats.prompt_tokens - end.stats.cached_prompt_tokens


def test_random_decisions_cost_one_token_each_though_no_model_is_called():
    events = run(config("random"), Script())
    cost = debate_cost(events)
    assert cost.decision_tokens == len(of_type(events, ListenerDecision)) > 0


# -- forks --------------------------------------------------------------------------------------------
def _comparable(events):
    """The events without what measures time (when, how long)."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("at", "latency_s", "wall_time_s")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return [strip(event_to_dict(e)) for e in events]


def test_a_forced_branch_reproduces_the_debate_up_to_the_fork_and_differs_after_it():
    cfg = config("random", max_rounds=3).model_copy(update={"temperature": 1.0})
    backend = lambda: ScriptedBackend(HandRaiserDemo(cfg).reply)  # noqa: E731
    root = Debate(cfg, backend(), debate_id="root", clock=lambda: 0.0).run()
    con = next(e for e in of_type(root, UtteranceGenerated) if e.speaker == "Con")
    forced = {("Moderator", con.utterance_id, 0): True}
    branch = Debate(cfg, backend(), debate_id="root", clock=lambda: 0.0, forced=forced, fork_salt=3).run()
    fork = next(
        i for i, e in enumerate(branch) if isinstance(e, ListenerDecision) and e.utterance_id == con.utterance_id
    )
    assert _comparable(branch[:fork]) == _comparable(root[:fork])
    assert branch[fork].interrupt and branch[fork].policy == "forced"
    assert isinstance(branch[fork + 1], Interrupted) and branch[fork + 1].disclosed_count == 1
    # rollouts of one branch share the prefix and draw afresh after it
    rollouts = [
        Debate(
            cfg, backend(), debate_id="root", clock=lambda: 0.0, forced={("Moderator", 1, 0): False}, fork_salt=s
        ).run()
        for s in range(1, 6)
    ]
    points = {
        tuple(d.unit_index for d in of_type(r, ListenerDecision) if d.interrupt and d.utterance_id > 1)
        for r in rollouts
    }
    assert len(points) > 1
    for r in rollouts:
        first = next(i for i, e in enumerate(r) if isinstance(e, ListenerDecision))
        assert _comparable(r[:first]) == _comparable(root[:first])


# -- the moderator's prompt, rebuilt ------------------------------------------------------------------------
def test_the_listen_prompt_rebuilt_from_the_events_is_the_one_the_moderator_was_sent():
    script = Script(yes={(3, 3)}, wait_rounds=1)  # round 2: Pro cut off, then Con heard out
    events = run(config("prompted"), script)
    asked = [d for d in of_type(events, ListenerDecision)]
    assert len(asked) > 5
    for decision in asked:
        rebuilt = listener_messages(events, decision.utterance_id, decision.unit_index)
        sent = decision.generation.prompt
        assert [(m.role, m.content) for m in rebuilt] == [(m.role, m.content) for m in sent]
    later = asked[-1].generation.prompt[-1].content
    assert "Pro: Reason number 1" in later and "[cut off by the moderator]" in later
    assert "Moderator: I will wait for another round. My question to both sides: Question 1: which" in later


def test_the_demo_succeeds_when_the_moderator_hears_the_decisive_fact():
    cfg = DebateConfig(question=QUESTION, agents=AGENTS, protocol="handraiser")
    events = Debate(cfg, ScriptedBackend(HandRaiserDemo(cfg).reply)).run()
    assert DECISIVE in " ".join(e.text for e in of_type(events, UnitDisclosed))
    assert events[-1].correct
    assert isinstance(events[-1], DebateEnded)


def test_a_person_as_moderator_is_their_own_policy_and_only_votes_in_the_baselines():
    agents = (*AGENTS[:2], AgentSpec(name="Moderator", seat=SeatKind.HUMAN))
    for variant, cut in (("random", True), ("threshold", True), ("generic", False)):
        channel = HumanChannel()
        channel.set_stance(intent="interrupt")  # armed from the start: cut Pro after its first chunk
        seat = HumanSeat("Moderator", channel, timeout_s=0.05, live=True)  # the vote: let pass (waits)
        debate = Debate(
            config(variant, agents=agents, max_rounds=1), ScriptedBackend(Script()), seats={"Moderator": seat}
        )
        events = debate.run()
        decisions = of_type(events, ListenerDecision)
        assert bool(of_type(events, Interrupted)) == cut
        assert all(d.source.value == "human" for d in decisions) and (decisions[0].unit_index == 0 if cut else True)
        assert debate.protocol.controls_for("moderator") == ("none" if variant == "generic" else "interrupt")


# -- what a model or a person may send (hostile-probe round) --------------------------------------------------
def _recorded(tmp_path, debate: Debate) -> list:
    """The debate's events as recorded in a store: it finished, and every event reads back equal."""
    from storage import Store

    store = Store(tmp_path / "debates.sqlite3")
    try:
        events = list(store.record(debate.events()))
        assert isinstance(events[-1], DebateEnded)
        assert store.debate(events[0].debate_id).status == "finished"
        assert store.events(events[0].debate_id) == events
    finally:
        store.close()
    return events


@pytest.mark.parametrize("reply", [":", ": yes", " :No", "::", ":\n"])
def test_a_moderator_reply_starting_with_a_colon_is_a_mistake_and_the_debate_goes_on(tmp_path, reply):
    class Colon(Script):
        def __call__(self, request):
            return reply if request.kind == "listen" else super().__call__(request)

    events = _recorded(tmp_path, Debate(config("prompted"), ScriptedBackend(Colon())))
    decisions = of_type(events, ListenerDecision)
    assert decisions and all(not d.valid and not d.interrupt for d in decisions)  # the fallback: no interruption
    assert all("expected yes or no" in (d.error or "") for d in decisions)
    assert not of_type(events, Interrupted) and events[-1].final_answer == "B"


@pytest.mark.parametrize("point", ["why \ud800?", "ok"])
def test_a_point_typed_by_the_moderator_is_never_recorded_since_listen_takes_none(tmp_path, point):
    agents = (*AGENTS[:2], AgentSpec(name="Moderator", seat=SeatKind.HUMAN))
    channel = HumanChannel()
    channel.set_stance(intent="interrupt", point=point)
    seat = HumanSeat("Moderator", channel, timeout_s=0.05, live=True)
    debate = Debate(config("random", agents=agents, max_rounds=1), ScriptedBackend(Script()), seats={"Moderator": seat})
    cut = of_type(_recorded(tmp_path, debate), ListenerDecision)[0]
    assert (cut.interrupt, cut.text, cut.raw) == (True, None, "yes")


def test_the_moderators_live_controls_refuse_what_is_no_control():
    channel = HumanChannel()
    for values in (
        {"intent": "\ud800"},
        {"intent": "cut" * 100_000},
        {"intent": 7},
        {"volume": 11},
        {"intent": "interrupt", "point": "x" * 5_000},  # longer than a point may be: nothing is armed
        {"intent": "interrupt", "point": "\ud800"},  # a point that says nothing
    ):
        with pytest.raises(HumanInputError):
            channel.set_stance(**values)
    assert channel.stance() == {}  # a refused change changes nothing
    assert channel.set_stance(intent=" Interrupt ") == {"intent": "interrupt"}
