"""Parliament's four variants on the scripted backend: flows, points of information, people in both roles."""

from __future__ import annotations

import json
import threading

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.backends.base import Capability
from debate_core.backends.scripted import continuing, scripted_tokens
from debate_core.config import Question
from debate_core.demo import DEMO_QUESTION
from debate_core.errors import ConfigError, HumanInputError
from debate_core.events import (
    AnswersUpdated,
    DebateEnded,
    EndReason,
    Interrupted,
    Intervention,
    ListenerDecision,
    PhaseStarted,
    UnitDisclosed,
    UtteranceExtended,
    UtteranceGenerated,
    UtteranceResumed,
    UtteranceRevised,
    event_from_dict,
    event_to_dict,
)
from debate_core.kernel.chunkers import CharRuleChunker
from debate_core.protocols.consistency import check_stream
from protocols.parliament.answers import find_line, normalize_answer
from protocols.parliament.demo import ParliamentDemo
from tests.conftest import HANG_GUARD_S, QUESTION, of_type

PROVER, CRITIC = "Gov", "Opp"
OPENING = (
    "Beta is the second letter, because the Greek alphabet starts with alpha and then beta. "
    "Every schoolchild in Greece recites it in that order, long before learning to write. "
    "The word alphabet itself is made of the first two letters, alpha and beta. "
    "Gamma comes third and delta fourth, so neither can be second. "
    "So the answer is beta."
)
REST = "Having heard the point, I add that the order is fixed by the Phoenician source.\nProposed Answer: B"


def config(variant: str, *, agents=None, **params) -> DebateConfig:
    agents = agents or (AgentSpec(name=PROVER), AgentSpec(name=CRITIC))
    return DebateConfig(question=QUESTION, agents=agents, protocol="parliament", variant=variant, params=params)


class Script:
    """A responder by request kind; ``points`` are the check numbers (1-based) at which the critic objects."""

    def __init__(self, points=(), opening=OPENING, answer="B") -> None:
        self.points = set(points)
        self.opening, self.answer = opening, answer
        self.checks = 0
        self.requests = []

    def __call__(self, request):
        self.requests.append(request)
        kind = request.kind
        if kind in ("opening", "student_answer", "student_revision", "prover_rebuttal", "cot"):
            return json.dumps({"speech": self.opening, "answer": self.answer})
        if kind == "streamed_opening":  # generated as it streams: a model's steps, max_new_tokens each
            return continuing(f"{self.opening}\nProposed Answer: {self.answer}", request)
        if kind == "streamed_answer":
            return continuing(f"{self.opening}\nProvisional Answer: {self.answer}", request)
        if kind in ("poi_check", "question_check"):
            self.checks += 1
            return f"INTERRUPT: objection {self.checks}." if self.checks in self.points else "NO"
        if kind == "poi_reply":
            return json.dumps({"reply": "One. Two. Three. Four sentences is one too many."})
        if kind in ("resume", "revise_rest"):
            return continuing(REST if kind == "resume" else REST.replace("Proposed", "Provisional"), request)
        if kind in ("closing", "critique"):
            return json.dumps({"speech": "The case holds up.", "verdict": "AGREE", "answer": "SAME"})
        if kind == "socratic_question":
            return json.dumps({"question": "Why not gamma?"})
        if kind == "final":
            return json.dumps({"final_answer": "B"})
        raise AssertionError(kind)


def run(cfg: DebateConfig, script: Script, **kwargs):
    return Debate(cfg, ScriptedBackend(script), **kwargs).run()


def opening_units() -> tuple[str, ...]:
    return CharRuleChunker().split(OPENING + "\nProposed Answer: B")


def spoken(events, utterance_id: int) -> tuple[str, ...]:
    return tuple(u.text for u in of_type(events, UnitDisclosed) if u.utterance_id == utterance_id)


def generated(events, utterance_id: int, before=None) -> str:
    """What the generations of an utterance produced (before the event ``before``, if given)."""
    kept = events[: events.index(before)] if before is not None else events
    made = (e for e in kept if isinstance(e, UtteranceGenerated | UtteranceExtended))
    return "".join(e.text for e in made if e.utterance_id == utterance_id)


# -- British Parliament ---------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 4])
def test_a_point_raised_at_chunk_k_interrupts_exactly_there_and_the_speech_goes_on(k):
    events = run(config("british", resume="continue"), Script(points=[k]))
    units = opening_units()
    opening = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "opening")
    assert opening.streaming and spoken(events, opening.utterance_id) == units and len(units) > k
    point = of_type(events, Intervention)[0]
    assert (point.author, point.target, point.kind, point.blocking) == (CRITIC, PROVER, "point_of_information", True)
    assert (point.utterance_id, point.unit_index, point.text) == (opening.utterance_id, k - 1, f"objection {k}.")
    cut = of_type(events, Interrupted)[0]
    assert (cut.interrupter, cut.disclosed_count, cut.suspended) == (CRITIC, k, True)
    # the order: chunk k, the critic's yes, the point, the suspension, the reply, the resumption, chunk k+1
    after = events[events.index(point) - 1 :]
    kinds = [type(e).__name__ for e in after[:8]]
    assert kinds[:4] == ["ListenerDecision", "Intervention", "Interrupted", "UtteranceGenerated"]
    reply = after[3]
    assert (reply.speaker, reply.kind) == (PROVER, "poi_reply")
    assert reply.text == "One. Two. Three."  # cut to poi_reply_sentences (3)
    resumed = next(e for e in after if isinstance(e, UtteranceResumed))
    assert resumed.mode == "continue" and not of_type(events, UtteranceRevised)  # the same generation goes on
    decisions = [d for d in of_type(events, ListenerDecision) if d.utterance_id == opening.utterance_id]
    assert len(decisions) == len(units) - 1  # one check between every two chunks
    assert [d.interrupt for d in decisions] == [i == k - 1 for i in range(len(units) - 1)]


def test_regenerate_rewrites_the_rest_from_the_disclosed_prefix_with_the_exchange_in_view():
    script = Script(points=[2])
    events = run(config("british"), script)  # resume=regenerate: the default (paper §3.2)
    units = opening_units()
    resumed = of_type(events, UtteranceResumed)[0]
    revised = of_type(events, UtteranceRevised)[0]
    assert resumed.mode == "regenerate" and revised.streaming
    opening_id = revised.utterance_id
    assert spoken(events, opening_id) == units[:2] + CharRuleChunker().split(REST)
    request = next(r for r in script.requests if r.kind == "resume")
    assert request.assistant_prefix == " ".join(units[:2]) + " "  # continues what was said, nothing more
    prompt = request.messages[-1].content
    assert "objection 2." in prompt and "One. Two. Three." in prompt
    # what the opening's generation had produced past the point was generated, never said, and recorded
    unsaid = " ".join((*revised.discarded, revised.unfinished)).strip()
    assert unsaid and unsaid not in " ".join(spoken(events, opening_id))
    assert OPENING.endswith(unsaid) is False and unsaid in OPENING
    end = events[-1]
    assert end.final_answer == "B" and end.stats.revisions == 1


def test_the_opening_is_generated_as_it_streams_and_a_point_stops_its_generation_there():
    """§4.2: the prover's output is an incremental stream; a point halts generation at the chunk it follows."""
    script = Script(points=[1])
    events = run(config("british", stream_tokens=5), script)
    steps = [r for r in script.requests if r.kind == "streamed_opening"]
    assert len(steps) > 2 and all(r.sampling.max_new_tokens == 5 for r in steps)
    assert [r.assistant_prefix for r in steps[1:]] == [
        "".join(str(continuing(OPENING, r).text) for r in steps[:i]) for i in range(1, len(steps))
    ]  # each step continues exactly what the steps before it generated
    cut = of_type(events, Interrupted)[0]
    first_chunk = opening_units()[0]
    before = generated(events, cut.utterance_id, before=cut)
    assert before.startswith(first_chunk) and len(scripted_tokens(before[len(first_chunk) :])) <= 5
    assert cut.unfinished == before[len(first_chunk) :]  # generated past the point, held, then discarded
    resumes = [r for r in script.requests if r.kind == "resume"]
    assert resumes[0].assistant_prefix == first_chunk + " " and all(r.sampling.max_new_tokens == 5 for r in resumes)
    assert script.requests.index(resumes[0]) > script.requests.index(steps[-1])  # no opening step after the point


@pytest.mark.parametrize("step", [1, 3, 16, 400])
def test_a_streamed_speech_says_the_same_whatever_its_step(step):
    events = run(config("british", stream_tokens=step), Script())
    opening = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "opening")
    assert spoken(events, opening.utterance_id) == opening_units()
    assert generated(events, opening.utterance_id) == OPENING + "\nProposed Answer: B"
    extended = [e for e in of_type(events, UtteranceExtended) if e.utterance_id == opening.utterance_id]
    assert opening.streaming is (step < 100) and (not extended or extended[-1].ended)


def test_after_a_conceded_point_the_refuted_claim_is_not_said_in_the_resumed_speech():
    """The issue's must-show (#25): the scripted demo's prover concedes a point of information and its speech is
    regenerated from what it had said, so the claims the point refuted are never said; with resume=continue
    (the authors' code) the prepared speech goes on and says them."""
    refuted = ("A gas produced on that scale must make up most of the air", "So oxygen is the largest share")

    def debate(**params):
        cfg = DebateConfig(question=DEMO_QUESTION, agents=(AgentSpec(name=PROVER), AgentSpec(name=CRITIC)),
                           protocol="parliament", variant="british", params=params)  # fmt: skip
        return run(cfg, ParliamentDemo(cfg).reply)

    events = debate()
    point = of_type(events, Intervention)[0]
    assert "says nothing about how much of the air it makes up" in point.text
    reply = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "poi_reply")
    assert reply.text.startswith("Fair: production is not the same as share")  # conceded
    opening = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "opening")
    said = spoken(events, opening.utterance_id)
    after = " ".join(said[point.unit_index + 1 :])
    assert after and not any(claim in after for claim in refuted)
    assert "nitrogen comes first" in after and events[-1].final_answer == "B"
    assert refuted[1] not in generated(events, opening.utterance_id)  # cut before the generation got there
    before = debate(resume="continue")
    said_before = spoken(before, opening.utterance_id)
    assert all(claim in " ".join(said_before[point.unit_index + 1 :]) for claim in refuted)


class PlainChat(ScriptedBackend):
    """A plain OpenAI-compatible chat API (GPT-4o-mini, the paper's model): it cannot continue a partial reply."""

    capabilities = frozenset(Capability) - {Capability.CONTINUATION}


def test_without_continuation_a_conceded_point_resumes_with_what_was_said_in_the_prompt():
    """#25: the paper's set-up (British, resume=regenerate) runs on a backend that cannot continue a partial
    reply: the opening is generated whole and disclosed chunk by chunk; after the conceded point the prover is
    asked the rest with what it had said in its prompt, and the claims the point refuted are not said."""
    refuted = ("A gas produced on that scale must make up most of the air", "So oxygen is the largest share")
    cfg = DebateConfig(question=DEMO_QUESTION, agents=(AgentSpec(name=PROVER), AgentSpec(name=CRITIC)),
                       protocol="parliament", variant="british")  # fmt: skip
    backend = PlainChat(ParliamentDemo(cfg).reply)
    events = Debate(cfg, backend).run()
    check_stream(events)
    opening = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "opening")
    assert not opening.streaming and any(claim in opening.text for claim in refuted)  # prepared, whole
    point = of_type(events, Intervention)[0]
    reply = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "poi_reply")
    assert reply.text.startswith("Fair: production is not the same as share")  # conceded
    said = spoken(events, opening.utterance_id)
    before, after = " ".join(said[: point.unit_index + 1]), " ".join(said[point.unit_index + 1 :])
    assert after and not any(claim in after for claim in refuted) and "nitrogen comes first" in after
    revised = of_type(events, UtteranceRevised)[0]
    assert (revised.streaming, revised.continued) == (True, "prompt")
    assert any(claim in " ".join(revised.discarded) for claim in refuted)  # generated, never said
    [resume] = [r for r in backend.requests if r.kind == "resume"]
    assert resume.assistant_prefix == ""  # nothing to continue: what was said is in the prompt
    prompt = resume.messages[-1].content
    assert f'You have said so far:\n"{before}"' in prompt and "from exactly where you stopped" in prompt
    assert point.text in prompt and reply.text in prompt
    end = events[-1]
    assert (end.reason, end.final_answer) == (EndReason.PHASES_DONE, "B")


def test_without_continuation_a_socratic_question_revises_the_rest_with_what_was_said_in_the_prompt():
    script = Script(points=[1])
    events = Debate(config("socratic"), PlainChat(script)).run()  # socratic_mode=streaming, the default
    check_stream(events)
    revised = of_type(events, UtteranceRevised)[0]
    assert (revised.streaming, revised.continued) == (True, "prompt")
    [revise] = [r for r in script.requests if r.kind == "revise_rest"]
    first = CharRuleChunker().split(OPENING)[0]
    assert revise.assistant_prefix == "" and f'You have said so far:\n"{first}"' in revise.messages[-1].content
    answer = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "answer")
    assert spoken(events, answer.utterance_id)[1:] == CharRuleChunker().split(REST.replace("Proposed", "Provisional"))
    assert events[-1].final_answer == "B"


def test_with_continuation_the_resume_continues_the_provers_own_words_and_records_it():
    events = run(config("british"), Script(points=[1]))
    assert of_type(events, UtteranceRevised)[0].continued == "prefill"
    events = run(config("british", resume="continue"), Script(points=[1]))  # the code's form: the same generation
    assert of_type(events, UtteranceResumed)[0].mode == "continue" and not of_type(events, UtteranceRevised)


def test_the_cap_bounds_points_per_speech_and_the_critic_is_not_asked_past_it():
    script = Script(points=[1, 2, 3, 4, 5, 6])
    events = run(config("british", poi_cap=2), script)
    assert len(of_type(events, Intervention)) == 2
    decisions = of_type(events, ListenerDecision)
    assert [d.policy for d in decisions[2:]] == ["never"] * (len(decisions) - 2)
    assert script.checks == 2  # no model call once the cap is reached


def test_the_critic_sees_the_chunk_or_the_prefix_as_configured():
    for sees, expect_prefix in (("chunk", False), ("prefix", True)):
        script = Script()
        run(config("british", critic_sees=sees), script)
        checks = [r.messages[-1].content for r in script.requests if r.kind == "poi_check"]
        units = opening_units()
        assert units[1] in checks[1]
        assert (units[0] in checks[1]) is expect_prefix


def test_british_ends_with_the_closing_rebuttal_and_the_provers_final_answer():
    events = run(config("british"), Script(answer="A"))
    phases = [p.phase for p in of_type(events, PhaseStarted)]
    assert phases == ["opening", "closing", "final"]
    kinds = [(u.speaker, u.kind) for u in of_type(events, UtteranceGenerated)]
    assert kinds == [(PROVER, "opening"), (CRITIC, "closing"), (PROVER, "final")]
    updates = [(u.cause, dict((a.agent, a.answer) for a in u.answers)) for u in of_type(events, AnswersUpdated)]
    assert updates[0] == ("opening", {PROVER: "A", CRITIC: None})
    assert updates[1] == ("closing", {PROVER: "A", CRITIC: "A"})  # SAME: the prover's answer
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert (end.reason, end.final_answer, end.rule, end.decided_by, end.correct) == (
        EndReason.PHASES_DONE, "B", "single", PROVER, True
    )  # fmt: skip


# -- Congress, Socratic, CoT -------------------------------------------------------------------------


def test_congress_runs_its_rounds_of_critique_and_rebuttal_then_the_final_answer():
    events = run(config("congress", congress_rounds=3), Script())
    phases = [(p.phase, p.round) for p in of_type(events, PhaseStarted)]
    assert phases == [("opening", 1), ("critique", 1), ("rebuttal", 2), ("rebuttal", 3), ("final", None)]
    kinds = [u.kind for u in of_type(events, UtteranceGenerated)]
    assert kinds == ["opening", "critique", "rebuttal", "critique", "rebuttal", "critique", "final"]
    critique = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "critique")
    assert critique.structured == {"answer": "SAME", "verdict": "AGREE"}
    assert "Verdict: AGREE" in critique.text
    assert events[-1].reason is EndReason.ROUNDS and not of_type(events, Interrupted)


def test_socratic_turns_ask_one_question_per_round_and_the_student_revises():
    script = Script()
    events = run(config("socratic", socratic_mode="turns", socratic_rounds=2), script)
    kinds = [(u.speaker, u.kind) for u in of_type(events, UtteranceGenerated)]
    assert kinds == [
        (PROVER, "answer"), (CRITIC, "question"), (PROVER, "revision"),
        (CRITIC, "question"), (PROVER, "revision"), (PROVER, "final"),
    ]  # fmt: skip
    revision = next(r for r in script.requests if r.kind == "student_revision")
    assert "Why not gamma?" in revision.messages[-1].content


def test_socratic_streaming_puts_a_question_without_taking_the_floor_and_the_rest_is_revised():
    script = Script(points=[1])
    events = run(config("socratic"), script)  # socratic_mode=streaming: the default (paper §3.3)
    question = of_type(events, Intervention)[0]
    assert (question.kind, question.blocking, question.unit_index) == ("question", False, 0)
    assert not of_type(events, Interrupted) and not of_type(events, UtteranceResumed)  # never halts
    revised = of_type(events, UtteranceRevised)[0]
    assert revised.reason.startswith("question: objection 1.") and revised.streaming
    answer = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "answer")
    said = spoken(events, answer.utterance_id)
    assert said[1:] == CharRuleChunker().split(REST.replace("Proposed", "Provisional"))
    assert events[events.index(question) + 1] is revised  # revised before the next chunk is disclosed
    request = next(r for r in script.requests if r.kind == "revise_rest")
    assert request.assistant_prefix == said[0] + " " and "objection 1." in request.messages[-1].content
    cause = next(u for u in of_type(events, AnswersUpdated) if u.cause == "answer")
    assert cause.answers[0].answer == "B"


def test_cot_is_one_solver_and_a_critic_has_no_seat():
    events = run(config("cot", agents=(AgentSpec(name="Solo"),)), Script())
    assert [u.kind for u in of_type(events, UtteranceGenerated)] == ["reasoning"]
    assert (events[-1].final_answer, events[-1].decided_by) == ("B", "Solo")
    with pytest.raises(ConfigError, match="no role left"):
        Debate(config("cot"), ScriptedBackend(Script()))
    with pytest.raises(ConfigError, match="at least 1 critic"):
        Debate(config("british", agents=(AgentSpec(name="Solo"),)), ScriptedBackend(Script()))


def test_kimura_still_needs_two_agents():
    cfg = DebateConfig(question=QUESTION, agents=(AgentSpec(name="Solo"),))
    with pytest.raises(ConfigError, match="at least 2 agents"):
        Debate(cfg, ScriptedBackend(Script()))


# -- models' mistakes --------------------------------------------------------------------------------


def test_a_speech_without_an_answer_line_is_kept_and_the_answer_stays_noted():
    script = Script()

    def respond(request):
        if request.kind == "streamed_opening":
            return "Plain words with no answer line at all, long enough to be a chunk. And a second sentence here."
        if request.kind == "final":
            return "I cannot decide."
        return script(request)

    events = Debate(config("british"), ScriptedBackend(respond)).run()
    opening = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "opening")
    assert opening.units and opening.structured == {"problem": opening.structured["problem"]}
    assert "no Proposed Answer line" in opening.structured["problem"]
    assert not [u for u in of_type(events, AnswersUpdated) if u.cause == "opening"]  # the answer stays as it was
    final = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "final")
    assert final.error and "no final answer" in final.error  # recorded; the fallback is the prover's answer
    end = events[-1]
    assert (end.final_answer, end.correct) == (None, False)  # the prover never named an answer


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("B", "B"), ("(b)", "B"), ("B) Beta", "B"), ("option B", "B"), ("Beta.", "B"), ("**C**", "C"), ("Z", None)],
)
def test_answer_lines_name_options_in_the_ways_models_write_them(raw, expected):
    assert normalize_answer(raw, QUESTION) == expected


def test_the_last_answer_line_counts_and_markdown_is_tolerated():
    text = "Proposed Answer: A\nthen I changed my mind.\n**Proposed Answer:** C"
    assert find_line(text, "proposed answer") == "C"
    assert find_line("Opposition Proposed Answer: SAME", "opposition proposed answer") == "SAME"
    free = Question(text="Who wrote Hamlet?")
    assert normalize_answer("William Shakespeare.", free) == "William Shakespeare"


# -- people in either role ---------------------------------------------------------------------------


def test_a_person_as_critic_raises_a_point_mid_chunk_and_it_lands_at_the_next_boundary():
    channel = HumanChannel()
    agents = (AgentSpec(name=PROVER), AgentSpec(name=CRITIC, seat=SeatKind.HUMAN))
    seat = HumanSeat(CRITIC, channel, timeout_s=0.05, live=True)  # the closing's words: let pass
    debate = Debate(config("british", agents=agents), ScriptedBackend(Script()), seats={CRITIC: seat})
    events = []
    for event in debate:
        events.append(event)
        if isinstance(event, UnitDisclosed) and event.speaker == PROVER and event.index == 2:
            # while chunk 3 is on screen the person presses "Point of information"
            channel.set_stance(intent="interrupt", point="Gamma is not third in every alphabet.")
        if isinstance(event, Intervention):
            channel.set_stance(intent=None, point=None)  # what the page does once the point is taken
        if isinstance(event, DebateEnded):
            break
    point = of_type(events, Intervention)[0]
    assert (point.author, point.unit_index, point.text) == (CRITIC, 2, "Gamma is not third in every alphabet.")
    assert len(of_type(events, Intervention)) == 1
    decisions = of_type(events, ListenerDecision)
    assert [d.interrupt for d in decisions[:4]] == [False, False, True, False]
    closing = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "closing")
    assert (closing.units, closing.error) == ((), "the person let it pass")


def test_a_person_as_prover_writes_the_speech_and_answers_the_critics_point():
    channel = HumanChannel()
    agents = (AgentSpec(name=PROVER, seat=SeatKind.HUMAN), AgentSpec(name=CRITIC))
    seat = HumanSeat(PROVER, channel, timeout_s=HANG_GUARD_S, live=True)
    debate = Debate(config("british", agents=agents), ScriptedBackend(Script(points=[1])), seats={PROVER: seat})
    answers = {
        "streamed_opening": {"speech": OPENING, "answer": "B"},
        "poi_reply": {"reply": "Fair, but beta is still second."},
        "resume": {"rest": ""},  # blank: the rest as written
        "final": {"answer": "B"},
    }
    asked = []

    def person():
        while True:
            request = channel.pending(timeout_s=HANG_GUARD_S)
            if request is None:
                return
            asked.append(request.kind)
            channel.submit(request.request_id, answers[request.kind])

    thread = threading.Thread(target=person, daemon=True)
    thread.start()
    events = debate.run()
    channel.close()
    thread.join(5)
    assert asked == ["streamed_opening", "poi_reply", "resume", "final"]
    opening = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "opening")
    assert opening.text.endswith("Proposed Answer: B") and len(opening.units) > 2 and not opening.streaming
    assert spoken(events, opening.utterance_id) == opening.units  # a person's rest left blank: as written
    reply = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "poi_reply")
    assert reply.text == "Fair, but beta is still second."
    assert events[-1].final_answer == "B"


def test_every_event_of_every_variant_survives_a_round_trip_through_json():
    for variant, params in (("british", {"resume": "regenerate"}), ("congress", {}), ("socratic", {}), ("cot", {})):
        agents = (AgentSpec(name="Solo"),) if variant == "cot" else None
        events = run(config(variant, agents=agents, **params), Script(points=[2]))
        assert [event_from_dict(json.loads(json.dumps(event_to_dict(e)))) for e in events] == events


def test_the_page_draws_the_point_and_its_reply_as_a_side_exchange_and_the_researcher_view_shows_every_no():
    from ui import render
    from ui.view_model import DebateView

    events = run(config("british"), Script(points=[2]))
    view = DebateView.from_events(events)
    lines = render.transcript_lines(view)
    point = next(i for i, line in enumerate(lines) if "line intervention blocking" in line)
    assert "point of information to Gov" in lines[point] and "objection 2." in lines[point]
    assert 'class="line speech side"' in lines[point + 1] and "One. Two. Three." in lines[point + 1]
    assert "resumes" in lines[point + 2] and "cut off" not in lines[point + 2]  # it goes on, after the exchange
    assert '<span class="more">…</span>' in lines[point - 1]  # the chunk it interrupted, held
    checks = sum(line.count('class="decision"') for line in lines)
    assert checks == len(of_type(events, ListenerDecision))  # every private "no" and the "yes", after its chunk
    assert 'class="transcript"' in render.transcript_html(view)  # hidden unless asked for
    assert 'class="transcript private"' in render.transcript_html(view, private=True)


def test_a_parliament_debate_is_stored_and_replayed_event_for_event(tmp_path):
    from storage import Store

    store = Store(tmp_path / "p.sqlite3")
    try:
        events = list(store.record(Debate(config("british"), ScriptedBackend(Script(points=[1]))).events()))
        listed = store.list_debates()
        assert [(d.protocol, d.variant, d.final_answer, d.correct) for d in listed] == [
            ("parliament", "british", "B", True)
        ]
        assert store.events(listed[0].id) == events
    finally:
        store.close()


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


@pytest.mark.parametrize("variant", ["british", "socratic"])
@pytest.mark.parametrize("reply", [":", ": INTERRUPT", ":: NO"])
def test_a_critics_check_starting_with_a_colon_is_a_mistake_and_the_debate_goes_on(tmp_path, variant, reply):
    class Colon(Script):
        def __call__(self, request) -> str:
            return reply if request.kind in ("poi_check", "question_check") else super().__call__(request)

    params = {"socratic_mode": "streaming"} if variant == "socratic" else {}  # questions while the student speaks
    events = _recorded(tmp_path, Debate(config(variant, **params), ScriptedBackend(Colon())))
    checks = [d for d in of_type(events, ListenerDecision) if d.policy == "prompted"]
    assert checks and all(not d.valid and not d.interrupt and d.raw == reply for d in checks)
    assert not of_type(events, Intervention) and events[-1].final_answer == "B"


def _critic_points(tmp_path, **stance) -> list:
    """A live critic armed with ``stance`` from the start; the debate recorded."""
    channel = HumanChannel()
    channel.set_stance(**stance)
    agents = (AgentSpec(name=PROVER), AgentSpec(name=CRITIC, seat=SeatKind.HUMAN))
    seat = HumanSeat(CRITIC, channel, timeout_s=0.05, live=True)
    return _recorded(
        tmp_path, Debate(config("british", agents=agents), ScriptedBackend(Script()), seats={CRITIC: seat})
    )


def test_a_lone_surrogate_in_a_persons_point_is_cleaned_before_it_is_raised(tmp_path):
    events = _critic_points(tmp_path, intent="interrupt", point="Is \ud800 gamma \x00 third?")
    point = of_type(events, Intervention)[0]
    assert (point.author, point.text) == (CRITIC, "Is \ufffd gamma  third?")


def test_the_critics_live_controls_refuse_a_point_too_long_or_saying_nothing_and_arm_nothing(tmp_path):
    channel = HumanChannel()
    for point in ("p" * 1_001, "\ud800 ?", ["a list"], 10**5_000):
        with pytest.raises(HumanInputError):
            channel.set_stance(intent="interrupt", point=point)
    assert channel.stance() == {}
    events = _critic_points(tmp_path, urgency=10**5_000, answer="B" * 3)  # no intent, odd values: nothing raised
    assert not of_type(events, Intervention)


def test_the_paper_token_note_is_in_a_report_only_where_a_parliament_system_ran():
    from protocols.parliament.study.report import report_section

    assert report_section(None, [], ["sid/mad", "baselines/cot"]).lines == ()  # type: ignore[arg-type]
    assert any("British opening" in line for line in report_section(None, [], ["parliament/british"]).lines)  # type: ignore[arg-type]
