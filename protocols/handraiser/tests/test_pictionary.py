"""Text Pictionary on the scripted backend: the rules, every listener policy, the paper's cost, a person guessing."""

from __future__ import annotations

import threading

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.backends.router import BackendRouter
from debate_core.backends.scripted import ScriptedReply
from debate_core.config import Question
from debate_core.errors import ConfigError
from debate_core.events import (
    DebateEnded,
    EndReason,
    Interrupted,
    ListenerDecision,
    PhaseStarted,
    UnitDisclosed,
    UtteranceGenerated,
)
from debate_core.protocols.consistency import check_stream
from protocols.handraiser.cost import debate_cost
from protocols.handraiser.pictionary.demo import PictionaryDemo
from tests.conftest import HANG_GUARD_S, of_type

AGENTS = (AgentSpec(name="Dee"), AgentSpec(name="Gus"))
SECRET = Question(text="Text Pictionary", answer="alarm clock")
CLUES = "It rings in the morning. You set it before you sleep. It sits on the table by your bed. It is loud."


def config(variant: str = "prompted", *, agents=AGENTS, question=SECRET, **params) -> DebateConfig:
    return DebateConfig(question=question, agents=agents, protocol="pictionary", variant=variant, params=params)


class Script:
    """The describer says ``descriptions`` in turn; the guesser says yes at the listed (round, chunk) points
    (chunks counted from 1) and makes the ``moves`` in turn."""

    def __init__(self, descriptions=(CLUES,), moves=("Guess: lamp",), yes=()) -> None:
        self.descriptions, self.moves, self.yes = list(descriptions), list(moves), set(yes)
        self.round = 0
        self.chunk = 0
        self.kinds: list[str] = []

    def __call__(self, request):
        self.kinds.append(request.kind)
        if request.kind == "describe":
            self.round, self.chunk = self.round + 1, 0
            return self.descriptions[min(self.round, len(self.descriptions)) - 1]
        if request.kind == "listen":
            self.chunk += 1
            yes = (self.round, self.chunk) in self.yes
            return ScriptedReply("Yes" if yes else "No", choice_probs={"Yes": 0.9 if yes else 0.1})
        return self.moves[min(self.round, len(self.moves)) - 1]


def run(cfg: DebateConfig, script=None) -> list:
    events = Debate(cfg, ScriptedBackend(script or Script())).run()
    check_stream(events)  # a stream that can have happened, under the protocol's own rules
    return events


# -- the rules ------------------------------------------------------------------------------------------------
def test_a_right_guess_ends_the_game_with_the_questions_answer_scored_correct():
    events = run(config("generic"), Script(moves=("Guess: lamp", "Question: Is it loud?", "Guess: an Alarm-Clock!")))
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct, end.rule) == (EndReason.VERDICT, "alarm clock", True, "single")
    assert [p.round for p in of_type(events, PhaseStarted) if p.phase == "round"] == [1, 2, 3]
    said = [(u.speaker, u.kind) for u in of_type(events, UtteranceGenerated)]
    assert said == [("Dee", "description"), ("Gus", "guess")] * 1 + [("Dee", "description"), ("Gus", "question")] + [
        ("Dee", "description"),
        ("Gus", "guess"),
    ]


def test_a_multiple_choice_questions_option_is_the_secret_and_its_label_the_answer():
    question = Question(text="Which gas?", options=("Oxygen", "Nitrogen"), answer="B")
    script = Script(descriptions=("Most of the air.",), moves=("Guess: nitrogen",))
    events = run(config("generic", question=question), script)
    assert (events[-1].final_answer, events[-1].correct) == ("B", True)


def test_saying_the_secret_ends_the_game_at_once_with_no_answer_and_nothing_more_disclosed():
    reveal = "It rings in the morning and wakes you. It is an alarm clock on your table by the bed, loud and clear."
    script = Script(descriptions=(reveal,))
    events = run(config("prompted", chunk_tokens=4), script)
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct) == (EndReason.EARLY_EXIT, None, False)
    phase = next(p for p in of_type(events, PhaseStarted) if p.phase == "revealed")
    assert "alarm clock" in phase.detail
    assert "guess" not in script.kinds  # the game ended before the guesser's turn
    disclosed = " ".join(u.text for u in of_type(events, UnitDisclosed))
    assert "alarm clock" in disclosed and "loud and clear" not in disclosed and end.undisclosed
    cost = debate_cost(events)
    assert cost.statement_tokens == sum(u.tokens for u in of_type(events, UnitDisclosed))  # up to the reveal


def test_an_alias_reveals_too_and_a_word_containing_the_secret_does_not():
    events = run(config("generic"), Script(descriptions=("An alarming noise. The alarm rings.",)))
    assert events[-1].reason is EndReason.EARLY_EXIT
    safe = run(config("generic", max_rounds=1), Script(descriptions=("An alarming noise wakes you.",)))
    assert safe[-1].reason is EndReason.ROUNDS


def test_a_reveal_in_the_part_the_guesser_cut_off_is_never_said():
    said = "It rings in the morning and wakes you up early. Some call it an alarm clock."
    events = run(config("prompted", chunk_tokens=4, max_rounds=1), Script(descriptions=(said,), yes={(1, 2)}))
    assert events[-1].reason is EndReason.ROUNDS and of_type(events, Interrupted)


def test_the_round_limit_ends_the_game_unsolved():
    script = Script(moves=("Guess: lamp", "Guess: bell", "Question: Is it round?"))
    events = run(config("generic", max_rounds=3), script)
    end = events[-1]
    assert (end.reason, end.final_answer, end.correct) == (EndReason.ROUNDS, None, False)
    assert script.kinds.count("describe") == 3 and script.kinds.count("guess") == 3


def test_an_unreadable_guess_is_recorded_and_the_game_goes_on():
    text = "Hmm, I really cannot tell what it might be from what you said so far, sorry"
    events = run(config("generic", max_rounds=2), Script(moves=(text, "Guess: alarm clock")))
    bad = next(u for u in of_type(events, UtteranceGenerated) if u.speaker == "Gus")
    assert bad.text == "" and bad.error and bad.raw == text
    assert events[-1].correct is True


def test_the_describer_alone_sees_the_secret():
    backend = ScriptedBackend(Script())
    Debate(config("prompted", max_rounds=1), backend).run()
    for request in backend.requests:
        prompt = " ".join(m.content for m in request.messages)
        assert ("alarm clock" in prompt) == (request.kind == "describe"), request.kind


def test_a_game_without_a_secret_or_a_third_agent_is_refused():
    with pytest.raises(ConfigError, match="secret entity"):
        Debate(config(question=Question(text="No answer")), ScriptedBackend([]))
    with pytest.raises(ConfigError):
        Debate(config(agents=(*AGENTS, AgentSpec(name="Kit"))), ScriptedBackend([]))


# -- the listener policies, on the guesser ----------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["prompted", "generic", "concise", "random", "threshold", "learned"])
def test_every_policy_plays_the_scripted_game_to_the_right_guess(variant):
    params = {"listener": "demo-listener"} if variant == "learned" else {}
    cfg = config(variant, question=Question(text="Text Pictionary", answer="giraffe"), **params)
    demo = ScriptedBackend(PictionaryDemo(cfg).reply)
    listener = ScriptedBackend(PictionaryDemo(cfg).reply, model_id="demo-listener")
    backend = BackendRouter(demo, by_role={"guesser": listener}) if variant == "learned" else demo
    events = Debate(cfg, backend).run()
    check_stream(events)
    assert events[-1].correct is True and events[-1].reason is EndReason.VERDICT
    decisions = of_type(events, ListenerDecision)
    assert bool(decisions) == (variant not in ("generic", "concise"))
    assert all(d.listener == "Gus" for d in decisions)
    if variant in ("prompted", "threshold", "learned"):
        assert of_type(events, Interrupted), "the scripted guesser cuts in once the clues single the entity out"
    cost = debate_cost(events)
    assert cost.decision_tokens == len(decisions) and cost.statements >= 1 and cost.total > 0


def test_the_paper_cost_counts_descriptions_up_to_the_cut_the_guessers_words_and_one_token_per_decision():
    events = run(config("prompted", chunk_tokens=4, max_rounds=1), Script(yes={(1, 3)}))
    cost = debate_cost(events)
    cut = of_type(events, Interrupted)[0]
    disclosed = [u for u in of_type(events, UnitDisclosed) if u.utterance_id == cut.utterance_id]
    assert len(disclosed) == 3 and cost.statement_tokens == sum(u.tokens for u in disclosed)
    guess = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "guess")
    assert cost.moderator_tokens == guess.generation.completion_tokens
    assert cost.decision_tokens == 3 and cost.interrupt_chunks == (3,)
    assert cost.total == cost.statement_tokens + cost.moderator_tokens + 3


def test_the_concise_variant_asks_the_describer_to_be_brief():
    backend = ScriptedBackend(Script())
    Debate(config("concise", max_rounds=1), backend).run()
    describe = next(r for r in backend.requests if r.kind == "describe")
    assert "Be concise" in describe.messages[-1].content


# -- a person as the guesser ------------------------------------------------------------------------------------
def test_a_person_as_guesser_interrupts_at_the_next_chunk_and_types_the_guess():
    with pytest.raises(ConfigError, match="person in the guesser's seat"):
        Debate(config("human"), ScriptedBackend(Script()))
    channel = HumanChannel()
    agents = (AGENTS[0], AgentSpec(name="Gus", seat=SeatKind.HUMAN))
    seat = HumanSeat("Gus", channel, timeout_s=HANG_GUARD_S, live=True)
    cfg = config("human", agents=agents, chunk_tokens=4)
    debate = Debate(cfg, ScriptedBackend(Script()), seats={"Gus": seat})
    typed = iter(["is it loud?", "an alarm clock"])
    asked = []

    def person():
        while True:
            request = channel.pending(timeout_s=HANG_GUARD_S)
            if request is None:
                return
            asked.append(request.kind)
            channel.submit(request.request_id, {"text": next(typed)})

    helper = threading.Thread(target=person, daemon=True)
    helper.start()
    events = []
    for event in debate:
        events.append(event)
        if isinstance(event, UnitDisclosed) and event.speaker == "Dee" and event.index == 1 and len(events) < 40:
            channel.set_stance(intent="interrupt")  # pressed while chunk 2 is on screen: the cut follows it
        if isinstance(event, Interrupted):
            channel.set_stance(intent=None)
    channel.close()
    check_stream(events)
    cut = of_type(events, Interrupted)[0]
    assert (cut.interrupter, cut.interrupted, cut.disclosed_count) == ("Gus", "Dee", 2)
    moves = [(u.kind, u.text) for u in of_type(events, UtteranceGenerated) if u.speaker == "Gus"]
    assert moves == [("question", "is it loud?"), ("guess", "Guess: an alarm clock")]
    assert asked == ["guess", "guess"] and isinstance(events[-1], DebateEnded) and events[-1].correct is True


# -- the paper's settings ---------------------------------------------------------------------------------------
def test_the_papers_settings_chunks_of_8_tokens_10_rounds_temperature_0_7_and_our_caps():
    from debate_core.backends.scripted import scripted_tokens
    from debate_core.protocols.registry import protocol_class

    cls = protocol_class("pictionary")
    assert (cls.Params().chunk_tokens, cls.Params().max_rounds, cls.study_temperature) == (8, 10, 0.7)
    backend = ScriptedBackend(Script())
    events = Debate(config("generic", max_rounds=1), backend).run()
    units = [u for u in of_type(events, UnitDisclosed) if u.speaker == "Dee"]
    assert len(units) > 1 and all(len(scripted_tokens(u.text)) <= 8 for u in units)
    assert events[0].segmenter == "tokens:8"
    caps = {r.kind: r.sampling.max_new_tokens for r in backend.requests}
    assert caps == {"describe": 128, "guess": 32}
