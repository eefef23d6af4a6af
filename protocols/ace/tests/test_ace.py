"""ACE on the scripted backend: rounds, the observer's stop, each ablation, the baseline, the final rule, people."""

from __future__ import annotations

import json
import threading

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.config import Question
from debate_core.errors import ConfigError
from debate_core.events import (
    AnswersUpdated,
    DebateEnded,
    EndReason,
    PhaseStarted,
    Source,
    UnitDisclosed,
    UtteranceGenerated,
)
from protocols.ace.demo import AceDemo
from protocols.ace.events import ActionComposed, AnalysisMade
from protocols.ace.forms import ace_forms
from protocols.ace.library import load_library
from protocols.ace.params import AceParams
from protocols.ace.views import AceView, Stance
from tests.conftest import HANG_GUARD_S, QUESTION, of_type

AGENTS = (AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Olive"))


def config(variant: str = "ace", *, agents=AGENTS, question=QUESTION, **params) -> DebateConfig:
    return DebateConfig(
        question=question, agents=agents, protocol="ace", variant=variant, params=params, record_prompts=True
    )


class Recording:
    """The demo script, recording every request; ``override`` replaces the reply of some request kinds."""

    def __init__(self, cfg: DebateConfig, **override) -> None:
        self.demo = AceDemo(cfg)
        self.override = override
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        if request.kind in self.override:
            reply = self.override[request.kind]
            return reply(request) if callable(reply) else reply
        return self.demo.reply(request)

    def kinds(self) -> list[str]:
        return [r.kind for r in self.requests]

    def prompts(self, kind: str) -> list[str]:
        return [r.messages[-1].content for r in self.requests if r.kind == kind]


def run(cfg: DebateConfig, script=None, **kwargs) -> list:
    return Debate(cfg, ScriptedBackend(script or Recording(cfg)), **kwargs).run()


def phases(events) -> list[tuple[str, int | None]]:
    return [(p.phase, p.round) for p in of_type(events, PhaseStarted)]


NEVER_STOP = json.dumps(
    {
        "answers_agree": False,
        "explanations_similar": False,
        "similar": [],
        "dissimilar": [],
        "stop": False,
        "reason": "go on",
    }
)


def STUBBORN(request) -> str:
    """Ann always answers A and Ben C: they never agree."""
    return json.dumps({"answer": "A" if "You are Ann" in request.messages[0].content else "C", "explanation": ["x"]})


# -- the round structure -------------------------------------------------------------------------------
def test_round_one_answers_then_analyze_compose_execute_until_the_observer_stops():
    cfg = config()
    script = Recording(cfg)
    events = run(cfg, script)
    assert phases(events) == [
        ("answer", 1), ("analyze", 2), ("compose", 2), ("execute", 2), ("analyze", 3), ("decision", 3),
    ]  # fmt: skip
    # each step asks its seats in one batch: both debaters answer, compose and execute together
    assert script.kinds() == ["answer", "answer", "analyze", "compose", "compose", "execute", "execute", "analyze"]
    first, second = of_type(events, AnalysisMade)
    assert (first.analyst, first.round, first.stop, second.stop) == ("Olive", 2, False, True)
    pair = first.findings["pairs"][0]
    assert (pair["first"], pair["second"], pair["answers_agree"]) == ("Ann", "Ben", False)
    assert pair["similar"] == [[1, 1]] and pair["dissimilar"] == [[2, 2]]
    acts = {e.agent: e.acts for e in of_type(events, ActionComposed)}
    assert acts == {"Ann": ("retain", "comment"), "Ben": ("adapt", "withhold")}
    end = events[-1]
    assert (end.reason, end.final_answer, end.rule, end.correct) == (EndReason.OBSERVER_STOP, "B", "consensus", True)
    # the observer never takes the floor: only debaters speak
    assert {u.speaker for u in of_type(events, UtteranceGenerated)} == {"Ann", "Ben"}


def test_a_reply_is_disclosed_item_by_item_with_its_structure_on_the_event():
    events = run(config())
    ann = of_type(events, UtteranceGenerated)[0]
    assert ann.units[-1] == "Answer: B" and ann.units[0].startswith("1. ")
    assert ann.structured["answer"] == "B" and len(ann.structured["explanation"]) == 3
    assert [u.text for u in of_type(events, UnitDisclosed) if u.utterance_id == ann.utterance_id] == list(ann.units)


def test_the_analysis_reaches_each_debater_from_its_own_side_with_the_others_reply():
    cfg = config()
    script = Recording(cfg)
    run(cfg, script)
    ann, ben = script.prompts("compose")
    assert "your answers disagree" in ann and "Ben's last reply" in ann and "Ann's last reply" not in ann
    assert "Differing items: your 2 / their 2" in ben
    assert "- adapt:" in ann and "- withhold:" in ann  # the library, with descriptions
    execute = script.prompts("execute")[1]
    assert "Here is the action:adapt + withhold: I will adapt my answer" in execute  # the composed action


def test_a_cap_ends_the_debate_at_max_rounds_with_the_reason_rounds():
    cfg = config(max_rounds=3)
    script = Recording(cfg, analyze=NEVER_STOP, execute=STUBBORN, answer=STUBBORN)
    events = run(cfg, script)
    assert [p for p in phases(events) if p[0] == "execute"] == [("execute", 2), ("execute", 3)]
    assert events[-1].reason == EndReason.ROUNDS
    assert "Round 2 of 3." in script.prompts("compose")[0]  # the debaters are told of the cap


def test_without_a_cap_only_the_observer_ends_the_debate_and_the_safety_net_ends_it_max_turns():
    """The paper states no cap: by default the debate goes on until the observer stops it; a debate whose
    observer never does ends at ``guard_rounds``, with a reason of its own (a stall guard's, ``max_turns``)."""
    assert AceParams().max_rounds is None and AceParams().guard_rounds == 10
    cfg = config(guard_rounds=5)
    script = Recording(cfg, analyze=NEVER_STOP, execute=STUBBORN, answer=STUBBORN)
    events = run(cfg, script)
    assert [p for p in phases(events) if p[0] == "execute"] == [("execute", r) for r in range(2, 6)]
    assert events[-1].reason == EndReason.MAX_TURNS and events[-1].rule == "judge"
    assert "Round 2. Your last reply" in script.prompts("compose")[0]  # no "of N": no cap
    assert "(round 2 comes next" in script.prompts("analyze")[0]  # the observer is told of no cap either
    stopped = run(config(guard_rounds=5))  # the demo's observer stops in round 3, long before the net
    assert stopped[-1].reason == EndReason.OBSERVER_STOP


# -- the final answer -------------------------------------------------------------------------------------
def test_disagreement_at_the_cap_goes_to_the_observers_pick():
    cfg = config(max_rounds=2)
    events = run(cfg, Recording(cfg, analyze=NEVER_STOP, execute=STUBBORN, answer=STUBBORN, pick='{"answer": "C"}'))
    end = events[-1]
    assert (end.final_answer, end.rule, end.decided_by, end.reason) == ("C", "judge", "Olive", EndReason.ROUNDS)
    pick = of_type(events, AnalysisMade)[-1]
    assert pick.findings == {"pick": "C"} and pick.stop


def test_an_unusable_pick_falls_back_to_the_seeded_majority_and_says_so():
    cfg = config(max_rounds=2)
    events = run(cfg, Recording(cfg, analyze=NEVER_STOP, execute=STUBBORN, answer=STUBBORN, pick='{"answer": "D"}'))
    pick = of_type(events, AnalysisMade)[-1]
    assert not pick.valid and "none of the debaters' answers" in pick.error and "majority decides" in pick.reason
    end = events[-1]
    assert end.rule == "majority" and set(end.tie) == {"A", "C"} and end.final_answer in {"A", "C"}
    again = run(cfg, Recording(cfg, analyze=NEVER_STOP, execute=STUBBORN, answer=STUBBORN, pick='{"answer": "D"}'))
    assert again[-1].final_answer == end.final_answer  # the draw is seeded


def test_final_majority_skips_the_pick():
    cfg = config(max_rounds=2, final="majority")
    script = Recording(cfg, analyze=NEVER_STOP, execute=STUBBORN, answer=STUBBORN)
    events = run(cfg, script)
    assert "pick" not in script.kinds() and events[-1].rule == "majority"


# -- ablations and the baseline ------------------------------------------------------------------------------
def test_without_analyze_compose_sees_no_auxiliary_information_and_runs_to_the_cap():
    cfg = config("no_analyze")
    script = Recording(cfg)
    events = run(cfg, script)
    assert "analyze" not in script.kinds()
    assert all("observer's analysis" not in p and "last reply:" in p for p in script.prompts("compose"))
    assert all("Ben's last reply" not in p for p in script.prompts("compose")[::2])  # not even the peer's reply
    assert not any("Ben's last reply" in p for p in script.prompts("execute"))  # the paper's Execute: the action
    assert events[-1].reason == EndReason.ROUNDS and events[-1].rule == "judge"  # they disagree: the pick
    assert [p for p in phases(events) if p[0] == "execute"][-1] == ("execute", 4)  # no observer: `rounds` rounds
    rich = Recording(config("no_analyze", execute_input="rich"))
    run(config("no_analyze", execute_input="rich"), rich)
    assert any("Ben's last reply" in p for p in rich.prompts("execute"))  # the richer Execute shows the peer


def test_without_compose_the_acts_are_drawn_at_random_with_the_debates_seed():
    cfg = config("no_compose", max_rounds=4)
    script = Recording(cfg, analyze=NEVER_STOP)
    events = run(cfg, script)
    assert "compose" not in script.kinds() and "compose_execute" not in script.kinds()
    composed = of_type(events, ActionComposed)
    assert composed and all(e.source is Source.POLICY for e in composed)
    library = load_library()
    assert all(e.acts[0] in library.names("self") and e.acts[1] in library.names("peer") for e in composed)
    again = of_type(run(cfg, Recording(cfg, analyze=NEVER_STOP)), ActionComposed)
    assert [e.acts for e in again] == [e.acts for e in composed]
    other = of_type(run(cfg.model_copy(update={"seed": 7}), Recording(cfg, analyze=NEVER_STOP)), ActionComposed)
    assert [e.acts for e in other] != [e.acts for e in composed]


def test_without_execute_the_answer_comes_with_the_acts():
    cfg = config("no_execute")
    script = Recording(cfg)
    events = run(cfg, script)
    assert "execute" not in script.kinds() and script.kinds().count("compose_execute") == 2
    kinds = [u.kind for u in of_type(events, UtteranceGenerated)]
    assert kinds == ["answer", "answer", "compose_execute", "compose_execute"]
    assert of_type(events, AnswersUpdated)[1].answer_of("Ben") == "B" and events[-1].final_answer == "B"


def test_the_parallel_baseline_revises_after_seeing_the_others_and_takes_the_majority():
    agents = (AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cal"))
    cfg = config("parallel", agents=agents, rounds=3)
    script = Recording(cfg)
    events = run(cfg, script)
    assert script.kinds() == ["answer"] * 3 + ["revise"] * 6
    assert script.prompts("revise")[0].count("One agent solution: ```") == 2  # Ben's and Cal's (Du et al.)
    assert not of_type(events, AnalysisMade) and not of_type(events, ActionComposed)
    end = events[-1]
    assert (end.reason, end.rule, end.final_answer) == (EndReason.ROUNDS, "majority", "B")
    assert {v.answer: v.count for v in end.votes} == {"B": 3}


def test_ace_needs_two_debaters_and_an_observer():
    with pytest.raises(ConfigError, match="observer"):
        Debate(config(agents=AGENTS[:2]), ScriptedBackend(lambda r: ""))


# -- the act library is data ------------------------------------------------------------------------------------
def test_a_researcher_adds_an_act_in_a_file_and_debaters_are_offered_it(tmp_path):
    from pathlib import Path

    text = Path(_packaged_path()).read_text(encoding="utf-8") + (
        '\n[[act]]\nname = "concede"\norientation = "self"\n'
        'description = "Give up your answer for the other debater\'s."\nexample = "You are right; I take C."\n'
    )
    path = tmp_path / "acts.toml"
    path.write_text(text, encoding="utf-8")
    cfg = config(acts=str(path), constrained=True)  # the schema's enums too
    script = Recording(
        cfg, compose=lambda r: json.dumps({"self_act": "concede", "peer_act": "withhold", "action": "x"})
    )
    events = run(cfg, script)
    assert "- concede: Give up your answer" in script.prompts("compose")[0]
    schema = script.requests[script.kinds().index("compose")].json_schema
    assert "concede" in schema["properties"]["self_act"]["enum"]
    assert of_type(events, ActionComposed)[0].acts == ("concede", "withhold")


def _packaged_path() -> str:
    from importlib import resources

    return str(resources.files("protocols.ace") / "acts.toml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not toml [", "not TOML"),
        ('[[act]]\nname = "Bad Name"\norientation = "self"\ndescription = "d"\nexample = "e"\n', "lowercase"),
        ('[[act]]\nname = "solo"\norientation = "self"\ndescription = "d"\nexample = "e"\n', "orientation 'peer'"),
        ('[[act]]\nname = "x"\norientation = "sideways"\ndescription = "d"\nexample = "e"\n', "'self' or 'peer'"),
    ],
)
def test_a_broken_library_is_refused_before_the_debate_starts(tmp_path, text, message):
    path = tmp_path / "acts.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        Debate(config(acts=str(path)), ScriptedBackend(lambda r: ""))


# -- every step asks for JSON (constrained by its schema with constrained=true), and is read with a fallback ----------
def test_every_step_asks_for_json_constrained_by_a_schema():
    cfg = config("no_analyze", rounds=2, constrained=True)
    script = Recording(cfg)
    run(cfg, script)
    cfg2 = config(constrained=True)
    script2 = Recording(cfg2)
    run(cfg2, script2)
    by_kind = {r.kind: r.json_schema for r in script.requests + script2.requests}
    assert set(by_kind) == {"answer", "analyze", "compose", "execute", "pick"}
    assert by_kind["answer"]["properties"]["answer"]["enum"] == ["A", "B", "C", "D"]
    assert by_kind["answer"]["properties"]["explanation"]["maxItems"] == AceParams().items
    assert by_kind["analyze"]["properties"]["stop"] == {"type": "boolean"}
    assert by_kind["pick"]["properties"]["answer"]["enum"] == ["B", "A"]


def _view(**fields) -> AceView:
    values = {"agent": "Ann", "role": "debater", "question": QUESTION, "own": Stance("Ann", "C", ("old",))}
    values.update(fields)
    return AceView(**values)


def test_a_reply_that_is_not_json_is_read_by_its_answer_line_and_items():
    form = ace_forms(AceParams()).execute
    stance, note = form.parse(
        "Here goes.\n1. Air is mostly N2.\n2. Oxygen is second.\nComment: check item 2\nAnswer: (B)", _view()
    )
    assert (stance.answer, stance.explanation, stance.comments) == (
        "B",
        ("Air is mostly N2.", "Oxygen is second."),
        "check item 2",
    )
    kept, note = form.parse('{"answer": "Z", "explanation": ["x"]}', _view())
    assert kept.answer == "C" and "stays as it was" in note


def test_a_broken_analysis_never_ends_the_debate():
    cfg = config(max_rounds=3)
    events = run(cfg, Recording(cfg, analyze="I think they should stop.", execute=STUBBORN, answer=STUBBORN))
    analyses = of_type(events, AnalysisMade)[:2]
    assert all(not a.valid and not a.stop for a in analyses)
    assert analyses[0].findings["pairs"][0]["answers_agree"] is False  # compared directly
    assert events[-1].reason == EndReason.ROUNDS


def test_broken_json_without_a_schema_is_recorded_on_its_event_and_the_debate_goes_on_with_its_fallbacks():
    cfg = config(max_rounds=2)  # the default: no schema sent, as the paper

    def answer(request) -> str:
        if "You are Ann" in request.messages[0].content:
            return "1. Air is mostly nitrogen.\n2. Oxygen comes second.\nAnswer: (B)"  # prose, not JSON
        return '{"answer": "A", "explanation": ["x"'  # JSON cut short

    script = Recording(
        cfg,
        answer=answer,
        analyze='{"answers_agree": false, "stop": tru',
        compose='{"self_act": "adapt", "peer_act"',
        execute='{"answer": "C" "explanation": []}',
        pick='{"answer": ',
    )
    events = run(cfg, script)
    assert all(r.json_schema is None for r in script.requests)
    ann, ben = of_type(events, UtteranceGenerated)[:2]
    assert ann.error is None and ann.structured["answer"] == "B"  # prose is read by its Answer line and items,
    assert ann.structured["note"].startswith("not JSON")  # and the utterance says it was not JSON
    assert ben.error.startswith("invalid JSON") and ben.raw.startswith('{"answer": "A"')  # round 1: no answer
    assert ben.structured["answer"] is None
    analysis = of_type(events, AnalysisMade)[0]
    assert (analysis.valid, analysis.stop) == (False, False) and analysis.error.startswith("invalid JSON")
    assert analysis.raw == '{"answers_agree": false, "stop": tru'  # a broken analysis never ends the debate
    composed = of_type(events, ActionComposed)
    assert all(not c.valid and c.error.startswith("invalid JSON") and c.raw for c in composed)
    assert {c.acts for c in composed} == {("retain", "withhold")}  # the documented fallback acts
    executed = [u for u in of_type(events, UtteranceGenerated) if u.kind == "execute"]
    assert all(u.error.startswith("invalid JSON") and u.raw == '{"answer": "C" "explanation": []}' for u in executed)
    assert [u.structured["answer"] for u in executed] == ["B", None]  # each debater's previous reply stands
    end = events[-1]
    assert (end.reason, end.final_answer, end.rule) == (EndReason.ROUNDS, "B", "majority")  # no usable pick


def test_a_reply_in_prose_is_noted_as_not_json_on_its_event():
    cfg = config(max_rounds=2)
    events = run(cfg, Recording(cfg, analyze=NEVER_STOP, compose="I will revise my answer and comment on item 2."))
    composed = of_type(events, ActionComposed)
    assert all(c.valid and c.acts == ("revise", "comment") and c.note.startswith("not JSON") for c in composed)
    assert all("note" not in u.structured for u in of_type(events, UtteranceGenerated))  # JSON replies: no note


def test_item_pairs_naming_missing_items_are_dropped_and_noted():
    cfg = config(max_rounds=2)
    bad = json.dumps(
        {"answers_agree": False, "explanations_similar": True, "similar": [[1, 1], [9, 1]], "dissimilar": [[2, 2]],
         "stop": False, "reason": "r"}
    )  # fmt: skip
    events = run(cfg, Recording(cfg, analyze=bad))
    first = of_type(events, AnalysisMade)[0]
    assert first.findings["pairs"][0]["similar"] == [[1, 1]] and "dropped" in first.note


# -- people ----------------------------------------------------------------------------------------------------------
def _person(channel: HumanChannel, answers: dict, seen: list) -> threading.Thread:
    def act():
        while (request := channel.pending(timeout_s=HANG_GUARD_S)) is not None:
            seen.append(request)
            channel.submit(request.request_id, answers[request.kind])

    thread = threading.Thread(target=act, daemon=True)
    thread.start()
    return thread


def test_a_person_in_the_observers_seat_analyses_stops_and_is_recorded_as_human():
    agents = (*AGENTS[:2], AgentSpec(name="Olive", seat=SeatKind.HUMAN))
    channel = HumanChannel()
    seen: list = []
    analysis = {"answers_agree": "no", "explanations_similar": False, "similar": "1-1", "dissimilar": "2-2, 3-1",
                "stop": True, "reason": "Enough."}  # fmt: skip
    person = _person(channel, {"analyze": analysis, "pick": {"answer": "B"}}, seen)
    seat = HumanSeat("Olive", channel, timeout_s=HANG_GUARD_S)
    events = run(config(agents=agents), seats={"Olive": seat})
    channel.close()
    person.join(5)
    assert [r.kind for r in seen] == ["analyze", "pick"]
    names = [f.name for f in seen[0].fields]
    assert names == ["answers_agree", "explanations_similar", "similar", "dissimilar", "stop", "reason"]
    made = of_type(events, AnalysisMade)[0]
    assert made.source is Source.HUMAN and made.stop
    assert made.findings["pairs"][0]["dissimilar"] == [[2, 2], [3, 1]]
    end = events[-1]
    assert (end.reason, end.final_answer, end.decided_by) == (EndReason.OBSERVER_STOP, "B", "Olive")


def test_a_person_writing_item_pairs_that_do_not_exist_is_told_and_asked_again():
    agents = (*AGENTS[:2], AgentSpec(name="Olive", seat=SeatKind.HUMAN))
    channel = HumanChannel()
    errors = []

    def act():
        first = True
        while (request := channel.pending(timeout_s=HANG_GUARD_S)) is not None:
            values = {"answers_agree": False, "explanations_similar": False, "similar": "7-1" if first else "1-1",
                      "dissimilar": "", "stop": True, "reason": ""}  # fmt: skip
            if request.kind == "pick":
                values = {"answer": "B"}
            try:
                channel.submit(request.request_id, values)
            except Exception as error:  # the refusal a page shows
                errors.append(str(error))
                first = False
                channel.submit(request.request_id, {**values, "similar": "1-1"})

    thread = threading.Thread(target=act, daemon=True)
    thread.start()
    events = run(config(agents=agents), seats={"Olive": HumanSeat("Olive", channel, timeout_s=HANG_GUARD_S)})
    channel.close()
    thread.join(5)
    assert errors and "no item pair 7-1" in errors[0]
    assert of_type(events, AnalysisMade)[0].findings["pairs"][0]["similar"] == [[1, 1]]


def test_a_person_as_a_debater_answers_chooses_acts_and_executes():
    agents = (AgentSpec(name="Ann", seat=SeatKind.HUMAN), *AGENTS[1:])
    channel = HumanChannel()
    seen: list = []
    replies = {
        "answer": {"answer": "b", "explanation": "Nitrogen is 78% of air.\nOxygen is 21%."},
        "compose": {"self_act": "retain", "peer_act": "comment", "action": "Hold and explain."},
        "execute": {"answer": "B", "explanation": "1. Nitrogen is 78% of air.", "comments": "Check the numbers."},
    }
    person = _person(channel, replies, seen)
    events = run(config(agents=agents, max_rounds=2), seats={"Ann": HumanSeat("Ann", channel, timeout_s=HANG_GUARD_S)})
    channel.close()
    person.join(5)
    assert [r.kind for r in seen] == ["answer", "compose", "execute"]
    ann = [u for u in of_type(events, UtteranceGenerated) if u.speaker == "Ann"]
    assert ann[0].structured["explanation"] == ["Nitrogen is 78% of air.", "Oxygen is 21%."]
    assert ann[1].structured["comments"] == "Check the numbers." and ann[1].source is Source.HUMAN
    assert of_type(events, ActionComposed)[0].acts == ("retain", "comment")


def test_free_form_questions_keep_the_answer_text():
    question = Question(text="How many legs do three spiders have in total?", answer="24")
    cfg = config(question=question, max_rounds=2)
    events = run(cfg, Recording(cfg, answer='{"answer": "24.", "explanation": ["8 legs each."]}', analyze=NEVER_STOP))
    assert of_type(events, AnswersUpdated)[0].answer_of("Ann") == "24"
    assert isinstance(events[-1], DebateEnded)


def test_an_ace_debate_is_stored_and_replays_as_it_ran(tmp_path):
    from storage import Store
    from ui.view_model import DebateView

    events = run(config())
    store = Store(tmp_path / "ace.sqlite3")
    try:
        list(store.record(iter(events)))
        summary = store.debate(events[0].debate_id)
        assert (summary.protocol, summary.variant, summary.status) == ("ace", "ace", "finished")
        assert store.events(summary.id) == events
        view = DebateView.from_events(store.events(summary.id))
        assert view.roles == {"Ann": "debater", "Ben": "debater", "Olive": "observer"}
        assert view.ended is not None and view.ended.rule == "consensus"
    finally:
        store.close()


def test_json_in_a_code_fence_or_after_a_sentence_is_still_read_as_json():
    form = ace_forms(AceParams()).execute
    fenced = 'Sure! Here is my reply:\n```json\n{"answer": "B", "explanation": ["Air is 78% N2."], "comments": ""}\n```'
    stance, note = form.parse(fenced, _view())
    assert (stance.answer, stance.explanation) == ("B", ("Air is 78% N2.",)) and "surrounding text" in note
    compose = ace_forms(AceParams()).compose
    chosen, _ = compose.parse('I choose: {"self_act": "adapt", "peer_act": "comment", "action": "Take B."}', _view())
    assert (chosen.self_act, chosen.peer_act, chosen.action) == ("adapt", "comment", "Take B.")
    worded, _ = compose.parse("I will revise my answer and withhold any comment {for now}.", _view())
    assert (worded.self_act, worded.peer_act) == ("revise", "withhold")


@pytest.mark.parametrize("variant", ["ace", "no_analyze", "no_compose", "no_execute", "parallel"])
@pytest.mark.parametrize(
    "first", ["", "I cannot say.", '{"answer": "B", "explanation": []}'], ids=["empty", "prose", "no-items"]
)
def test_the_demo_goes_on_when_no_first_round_answer_parsed(tmp_path, variant, first):
    """Each debater's first answer unusable (or without items): the demo's debaters go back to their own
    script and the debate ends, recorded whole, in every variant."""
    from storage import Store

    cfg = config(variant, rounds=2, max_rounds=2)
    store = Store(tmp_path / "ace.sqlite3")
    try:
        events = list(store.record(Debate(cfg, ScriptedBackend(Recording(cfg, answer=first))).events()))
        assert isinstance(events[-1], DebateEnded) and store.debate(events[0].debate_id).status == "finished"
        assert store.events(events[0].debate_id) == events
    finally:
        store.close()
    later = [u for u in of_type(events, UtteranceGenerated) if u.speaker != "Olive"][2:]  # after round 1
    assert all(u.error is None for u in later)  # the demo itself never answered with something unusable
    assert later or "explanation" in first  # answers that name nothing agree on nothing: the debate goes on
