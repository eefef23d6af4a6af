"""The moderator's clarifying questions (§4.1): asked when it waits, answered next round, recorded, paid for."""

from __future__ import annotations

import hashlib
import json
import threading

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.backends.router import BackendRouter
from debate_core.events import ListenerDecision, UnitDisclosed, UtteranceGenerated
from debate_core.kernel.forms import FormInvalid
from protocols.handraiser.cost import debate_cost
from protocols.handraiser.demo import ANSWERING, QUESTION, HandRaiserDemo
from protocols.handraiser.forms import Ballot, handraiser_forms, parse_ballot
from protocols.handraiser.params import HandRaiserParams
from protocols.handraiser.tests.test_handraiser import AGENTS, ASKED, Script, config, run
from protocols.handraiser.views import HandView
from tests.conftest import HANG_GUARD_S, of_type
from tests.conftest import QUESTION as MC

TOLD = 'The moderator asked you both: "{}" Answer that question first'


def _statement_prompts(script: Script) -> list[str]:
    return [r.messages[-1].content for r in script.requests if r.kind == "statement"]


def test_the_moderator_asks_a_question_each_round_it_waits_and_both_next_statements_answer_it():
    script = Script(vote="con", wait_rounds=2, yes={(3, 2)})  # round 2: Pro cut after two chunks
    events = run(config("prompted"), script)
    said = [(e.speaker, e.kind) for e in of_type(events, UtteranceGenerated)]
    assert said == [("Pro", "statement"), ("Con", "statement"), ("Moderator", "question")] * 2 + [
        ("Pro", "statement"),
        ("Con", "statement"),
        ("Moderator", "vote"),
    ]
    questions = [e for e in of_type(events, UtteranceGenerated) if e.kind == "question"]
    for n, asked in enumerate(questions, 1):
        assert asked.text == f"I will wait for another round. My question to both sides: {ASKED.format(n)}"
        assert asked.structured == {"question": ASKED.format(n)} and asked.error is None
        disclosed = [u.text for u in of_type(events, UnitDisclosed) if u.utterance_id == asked.utterance_id]
        assert disclosed == [asked.text]  # said in public, whole
    prompts = _statement_prompts(script)  # Pro, Con of rounds 1, 2, 3
    assert not any("The moderator asked" in p for p in prompts[:2])
    assert all(TOLD.format(ASKED.format(1)) in p for p in prompts[2:4])  # both sides answer the question
    assert all(TOLD.format(ASKED.format(2)) in p for p in prompts[4:])
    assert not any(TOLD.format(ASKED.format(1)) in p for p in prompts[4:])  # the latest question only
    # the moderator hears its own question in the record while it listens to the next round
    listens = [r.messages[-1].content for r in script.requests if r.kind == "listen"]
    assert f"Moderator: I will wait for another round. My question to both sides: {ASKED.format(1)}" in listens[-1]
    votes = [r for r in script.requests if r.kind == "vote"]
    assert all('"question"' in r.messages[-1].content for r in votes)


def test_no_question_is_asked_in_the_last_round_where_no_statement_could_answer_it():
    script = Script(wait_rounds=99)
    events = run(config("generic", max_rounds=2), script)
    votes = [r.messages[-1].content for r in script.requests if r.kind == "vote"]
    assert ['"question"' in v for v in votes] == [True, False]
    assert [e.kind for e in of_type(events, UtteranceGenerated) if e.speaker == "Moderator"] == ["question", "wait"]


def test_questions_false_is_the_debate_without_questions():
    script = Script(wait_rounds=2)
    events = run(config("prompted", questions=False), script)
    assert [e.kind for e in of_type(events, UtteranceGenerated) if e.speaker == "Moderator"] == ["wait", "wait", "vote"]
    assert all(e.error is None and e.structured is None for e in of_type(events, UtteranceGenerated))
    votes = [r for r in script.requests if r.kind == "vote"]
    assert not any("question" in r.messages[-1].content for r in votes)
    assert {r.sampling.max_new_tokens for r in votes} == {24}
    assert not any("The moderator asked" in p for p in _statement_prompts(script))
    # round 1 is the same either way: the first question comes with the first wait
    asking = Script(wait_rounds=2)
    run(config("prompted"), asking)
    assert _statement_prompts(asking)[:2] == _statement_prompts(script)[:2]


# What the debate said and sent, request by request, before the questions came (#27; the code of 243a2ed)
BEFORE_QUESTIONS = "815736fee3fd1270725dd9b07f2a4ead322c03afa3e214a8b8d3eb1f1d4d005e"


def test_questions_false_says_and_sends_exactly_what_the_debate_did_before_the_questions():
    script = Script(wait_rounds=2, yes={(3, 2)})
    events = run(config("prompted", questions=False), script)
    record = [[e.speaker, e.kind, e.text, e.raw] for e in of_type(events, UtteranceGenerated)]
    record += [[r.kind, r.sampling.max_new_tokens, [[m.role, m.content] for m in r.messages]] for r in script.requests]
    assert hashlib.sha256(json.dumps(record).encode()).hexdigest() == BEFORE_QUESTIONS


def _view() -> HandView:
    return HandView(agent="M", role="moderator", title="Moderator", question=MC, pro_position="B) Beta",
                    con_position="C) Gamma", round=1, max_rounds=10)  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "ballot"),
    [
        ('{"vote": "wait", "question": "  Why not  C? "}', Ballot("wait", "Why not C?")),
        ('{"vote": "pro", "question": "Anything else?"}', Ballot("pro")),  # a vote ends it: nobody would answer
        ("Wait. Pro, what rules out C? And Con, why C?", Ballot("wait", "Pro, what rules out C? And Con, why C?")),
        ("What rules out C?", Ballot("wait", "What rules out C?")),  # a question alone: the moderator waits
        ("Con. Nothing more to ask?", Ballot("con")),
        ("I think the answer is B.", Ballot("pro")),
    ],
)
def test_a_ballot_is_read_from_json_or_prose_with_its_question(reply, ballot):
    assert parse_ballot(reply, _view(), ("pro", "con", "wait")) == ballot


def test_a_person_as_pro_or_con_is_told_the_question_with_their_request():
    statement = handraiser_forms(HandRaiserParams()).statement
    view = HandView(agent="P", role="pro", title="Pro", question=MC, position="B) Beta", asked="Why not C?")
    told = 'Your statement for B) Beta. The moderator asked you both: "Why not C?" Answer it first.'
    assert statement.describe(view) == told
    assert statement.describe(HandView(agent="P", role="pro", title="Pro", question=MC, position="B) Beta")) == (
        "Your statement for B) Beta"
    )


@pytest.mark.parametrize("reply", ['{"vote": "wait"}', '{"vote": "wait", "question": " ?! "}', "wait", "maybe"])
def test_a_wait_without_a_question_is_a_mistake_recorded_and_the_debate_waits_without_one(reply):
    with pytest.raises(FormInvalid):
        parse_ballot(reply, _view(), ("pro", "con", "wait"))

    class Silent(Script):
        def __call__(self, request):
            if request.kind == "vote" and self.votes == 0:
                self.votes += 1
                return reply
            return super().__call__(request)

    script = Silent(vote="pro")
    events = run(config("generic"), script)
    first = next(e for e in of_type(events, UtteranceGenerated) if e.speaker == "Moderator")
    assert (first.kind, first.text, first.raw) == ("wait", "I will wait for another round.", reply)
    assert first.error  # recorded on the event; the fallback: a wait with no question
    assert not any("The moderator asked" in p for p in _statement_prompts(script))
    assert events[-1].final_answer == "B"


def test_a_person_as_moderator_asks_a_question_that_is_recorded_answered_and_paid_for():
    agents = (*AGENTS[:2], AgentSpec(name="Moderator", seat=SeatKind.HUMAN))
    channel = HumanChannel()
    seat = HumanSeat("Moderator", channel, timeout_s=HANG_GUARD_S)
    script = Script()
    debate = Debate(config("generic", agents=agents), ScriptedBackend(script), seats={"Moderator": seat})
    asked = "Pro, does anything rule out C?"
    seen = []

    def person():
        while (request := channel.pending(timeout_s=HANG_GUARD_S)) is not None:
            seen.append(request)
            values = {"vote": "wait", "question": f"  {asked} "} if len(seen) == 1 else {"vote": "pro"}
            channel.submit(request.request_id, values)

    helper = threading.Thread(target=person, daemon=True)
    helper.start()
    events = debate.run()
    channel.close()
    assert [[f.name for f in r.fields] for r in seen] == [["vote", "question"], ["vote", "question"]]
    question = next(e for e in of_type(events, UtteranceGenerated) if e.kind == "question")
    assert (question.speaker, question.source.value, question.structured) == ("Moderator", "human", {"question": asked})
    assert json.loads(question.raw or "") == {"vote": "wait", "question": asked}
    assert question.text.endswith(f"My question to both sides: {asked}")
    assert all(TOLD.format(asked) in p for p in _statement_prompts(script)[2:])
    # a person's words cost the tokens of what they said, the question included
    cost = debate_cost(events)
    moderator = [e for e in of_type(events, UtteranceGenerated) if e.speaker == "Moderator"]
    said = sum(u.tokens for u in of_type(events, UnitDisclosed) if u.speaker == "Moderator")
    assert cost.moderator_tokens == said and len(moderator) == 2
    assert events[-1].final_answer == "B"


def test_the_question_counts_as_the_moderators_generated_tokens():
    asking, silent = Script(wait_rounds=1), Script(wait_rounds=1)
    with_questions, without = run(config("generic"), asking), run(config("generic", questions=False), silent)
    ballots = [e for e in of_type(with_questions, UtteranceGenerated) if e.speaker == "Moderator"]
    cost = debate_cost(with_questions)
    assert cost.moderator_tokens == sum(e.generation.completion_tokens for e in ballots)
    assert cost.statement_tokens == debate_cost(without).statement_tokens  # the script's statements ignore it
    assert cost.moderator_tokens > debate_cost(without).moderator_tokens  # the question is paid for
    assert cost.total == cost.statement_tokens + cost.moderator_tokens + cost.decision_tokens


def _demo(variant: str = "random", **params) -> list:
    cfg = DebateConfig(
        question=MC, agents=AGENTS, protocol="handraiser", variant=variant, params={"pro_answer": "B",
        "con_answer": "C", **params}, record_prompts=True,
    )  # fmt: skip
    forced = {("Moderator", 1, 0): True, **{("Moderator", 2, i): False for i in range(20)}}  # Pro cut before its fact
    return Debate(cfg, ScriptedBackend(HandRaiserDemo(cfg).reply), forced=forced).run()


def test_the_demos_moderator_asks_and_the_sides_answer_so_the_question_helps():
    asked = _demo()
    question = next(e for e in of_type(asked, UtteranceGenerated) if e.kind == "question")
    assert question.structured == {"question": QUESTION}
    round_two = [e for e in of_type(asked, UtteranceGenerated) if e.kind == "statement"][2:4]
    assert all(e.text.startswith(ANSWERING) for e in round_two)  # both sides acknowledge it
    assert asked[-1].correct  # the correct side answered with its decisive fact, first
    assert not _demo(questions=False)[-1].correct  # unasked, it was cut off before the fact again


@pytest.mark.parametrize("variant", ["prompted", "generic", "concise", "random", "threshold", "learned"])
def test_every_variant_runs_the_demo_with_questions(variant):
    cfg = DebateConfig(question=MC, agents=AGENTS, protocol="handraiser", variant=variant,
                       params={"listener": "ckpt"} if variant == "learned" else {})  # fmt: skip
    backend = ScriptedBackend(HandRaiserDemo(cfg).reply)
    listener = ScriptedBackend(HandRaiserDemo(cfg).reply, model_id="ckpt")
    router = BackendRouter(backend, by_role={"moderator": listener}) if variant == "learned" else backend
    events = Debate(cfg, router).run()
    assert events[-1].correct
    assert bool(of_type(events, ListenerDecision)) == (variant not in ("generic", "concise"))
