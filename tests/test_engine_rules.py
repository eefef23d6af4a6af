"""The debate engine's rules (Section III-C/D of the paper), checked on the emitted events."""

from __future__ import annotations

import pytest

from debate_core import BackendError, Debate, ScriptedBackend, SuppliedInitialAnswer
from debate_core.events import (
    DebateEnded,
    DebateStarted,
    EndReason,
    InitialAnswersGiven,
    Interrupted,
    PlansMade,
    SilentTurn,
    Source,
    SpeakerSelected,
    UnitDisclosed,
    UtteranceCompleted,
    UtteranceGenerated,
)
from protocols.kimura.plans import Action, fallback_plan
from tests.conftest import (
    AGENTS,
    LISTEN,
    SentenceSplitter,
    agents,
    at_turn,
    build_script_backend,
    first,
    make_config,
    of_type,
    plan_json,
    plan_of,
    plans_at,
    request_texts,
    run,
)

FOUR = "Alpha is first. Beta is second. Gamma is third. Delta is fourth."
SECRET = "Secret sentence three is here. Secret sentence four is here."


def speakers(events):
    return [event.speaker for event in of_type(events, SpeakerSelected)]


def ended(events) -> DebateEnded:
    assert isinstance(events[-1], DebateEnded)
    return events[-1]


# -- speaker selection ------------------------------------------------------------------


def test_highest_urgency_candidate_takes_the_floor():
    backend = build_script_backend(
        {(0, "Alex"): ("speak", 5, None), (0, "Chris"): ("speak", 8, None), (0, "Jenny"): ("speak", 3, None)}
    )
    events = run(make_config(max_turns=2), backend)
    selected = first(events, SpeakerSelected)
    assert (selected.turn, selected.speaker, selected.urgency, selected.rule) == (0, "Chris", 8, "urgency")
    assert [(c.agent, c.action, c.urgency) for c in selected.candidates] == [
        ("Alex", Action.SPEAK, 5),
        ("Chris", Action.SPEAK, 8),
        ("Jenny", Action.SPEAK, 3),
    ]
    assert selected.tie == ()
    assert first(events, UtteranceGenerated).speaker == "Chris"
    assert first(events, UnitDisclosed).speaker == "Chris"


def test_listeners_are_not_candidates_even_with_high_urgency():
    backend = build_script_backend({(0, "Alex"): ("listen", 9, None), (0, "Chris"): ("speak", 1, None)})
    selected = first(run(make_config(max_turns=1), backend), SpeakerSelected)
    assert selected.speaker == "Chris"
    assert [c.agent for c in selected.candidates] == ["Chris"]


def _tied(turn, agent):
    # Alex and Chris always want the floor with the same urgency; Jenny listens.
    return ("speak", 5, None) if agent in ("Alex", "Chris") else LISTEN


def _tie_debate(seed):
    # One-sentence utterances, so the floor is free at every planning step.
    return run(make_config(seed=seed, max_turns=12), build_script_backend(default_plan=_tied))


def test_ties_are_broken_by_the_seed_reproducibly():
    first_run, second_run = _tie_debate(seed=3), _tie_debate(seed=3)
    assert len(speakers(first_run)) >= 6
    assert speakers(first_run) == speakers(second_run)
    for selected in of_type(first_run, SpeakerSelected):
        assert selected.tie == ("Alex", "Chris")
        assert selected.speaker in selected.tie
        assert selected.urgency == 5


def test_ties_pick_each_tied_agent_across_seeds():
    sequences = {seed: speakers(_tie_debate(seed)) for seed in range(8)}
    chosen = {speaker for sequence in sequences.values() for speaker in sequence}
    assert chosen == {"Alex", "Chris"}
    assert {sequence[0] for sequence in sequences.values()} == {"Alex", "Chris"}
    assert len({tuple(sequence) for sequence in sequences.values()}) > 1


# -- silent turns -------------------------------------------------------------------------


def test_silent_turn_when_nobody_asks_for_the_floor():
    backend = build_script_backend({(2, "Alex"): ("speak", 4, None)}, {"Alex": ["Beta is the answer."]})
    events = run(make_config(max_turns=6), backend)
    silent = of_type(events, SilentTurn)
    assert [(e.turn, e.consecutive) for e in silent] == [(1, 1), (2, 2), (4, 1), (5, 2), (6, 3)]
    assert at_turn(events, SpeakerSelected, 0) == []
    # After a silent turn every agent re-plans, and the floor is free.
    for turn in (1, 2, 4):
        plans = plans_at(events, turn)
        assert [record.agent for record in plans.plans] == list(AGENTS)
        assert plans.floor_holder is None
        assert all(record.allowed == (Action.LISTEN, Action.SPEAK) for record in plans.plans)
    assert [e.turn for e in of_type(events, UnitDisclosed)] == [3]
    assert ended(events).stats.silent_turns == 5


# -- disclosure ----------------------------------------------------------------------------


@pytest.mark.parametrize("use_real_segmenter", [False, True], ids=["fast-splitter", "spacy"])
def test_one_sentence_is_disclosed_per_turn(use_real_segmenter, real_segmenter):
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [FOUR]})
    segmenter = real_segmenter if use_real_segmenter else SentenceSplitter()
    events = run(make_config(max_turns=6), backend, segmenter=segmenter)
    expected = ("Alpha is first.", "Beta is second.", "Gamma is third.", "Delta is fourth.")
    assert first(events, UtteranceGenerated).units == expected
    disclosed = of_type(events, UnitDisclosed)
    assert [(e.turn, e.index, e.total, e.text) for e in disclosed] == [
        (turn, turn - 1, 4, text) for turn, text in enumerate(expected, start=1)
    ]
    total = 0
    for event in disclosed:
        assert event.tokens == backend.count_tokens(event.text) > 0
        total += event.tokens
        assert event.public_tokens == total
        assert plans_at(events, event.turn).public_tokens == total
    completed = first(events, UtteranceCompleted)
    assert (completed.turn, completed.speaker, completed.units) == (4, "Alex", 4)
    assert first(events, DebateStarted).segmenter == segmenter.name


@pytest.mark.parametrize("text", ["... Well. Beta is right.", "!!! Beta is right. Yes."])
def test_no_turn_discloses_only_punctuation(text, real_segmenter):
    # segmentation.py promises that a piece with no letters or digits is glued to a
    # neighbouring sentence "so no turn discloses only punctuation".
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [text]})
    events = run(make_config(max_turns=4), backend, segmenter=real_segmenter)
    disclosed = [e.text for e in of_type(events, UnitDisclosed)]
    assert disclosed, "nothing was disclosed"
    assert all(any(ch.isalnum() for ch in unit) for unit in disclosed), disclosed


def test_tokens_left_shown_to_agents_follows_public_tokens():
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [FOUR]})
    events = run(make_config(max_turns=3, token_budget=100), backend)
    for request in backend.requests:
        if request.kind == "plan":
            public = plans_at(events, request.turn).public_tokens
            assert f"Remaining public tokens available to all agents: {100 - public} / 100" in (
                request.messages[-1].content
            )


def test_floor_holder_does_not_plan_until_its_queue_is_empty():
    backend = build_script_backend({(0, "Alex"): ("speak", 7, "C")}, {"Alex": [FOUR]})
    events = run(make_config(max_turns=5), backend)
    for turn in (1, 2, 3):
        plans = plans_at(events, turn)
        assert plans.floor_holder == "Alex"
        assert [record.agent for record in plans.plans] == ["Chris", "Jenny"]
        assert all(record.allowed == (Action.LISTEN, Action.INTERRUPT) for record in plans.plans)
        alex = next(answer for answer in plans.answers if answer.agent == "Alex")
        assert (alex.answer, alex.carried) == ("C", True)
        assert all(not answer.carried for answer in plans.answers if answer.agent != "Alex")
    # Turn 4 disclosed Alex's last sentence: Alex plans again.
    plans = plans_at(events, 4)
    assert plans.floor_holder is None
    assert [record.agent for record in plans.plans] == list(AGENTS)
    plan_turns_of_alex = [r.turn for r in backend.requests if r.kind == "plan" and r.agent == "Alex"]
    assert plan_turns_of_alex == [0, 4, 5]


# -- interruption ---------------------------------------------------------------------


def _interruption_debate(segmenter=None):
    backend = build_script_backend(
        {
            (0, "Alex"): ("speak", 7, "A"),
            (2, "Jenny"): ("interrupt", 8, "B"),
            (2, "Chris"): ("listen", 6, None),
        },
        {"Alex": ["Alpha is first. Alpha is the answer. " + SECRET], "Jenny": ["No, Beta. It is second."]},
    )
    events = run(make_config(max_turns=8), backend, segmenter=segmenter)
    return events, backend


@pytest.mark.parametrize("use_real_segmenter", [False, True], ids=["fast-splitter", "spacy"])
def test_interruption_discards_exactly_the_undisclosed_sentences(use_real_segmenter, real_segmenter):
    events, _ = _interruption_debate(real_segmenter if use_real_segmenter else None)
    selected = at_turn(events, SpeakerSelected, 2)
    assert len(selected) == 1
    assert (selected[0].speaker, selected[0].interrupts) == ("Jenny", "Alex")
    [cut] = of_type(events, Interrupted)
    assert (cut.turn, cut.interrupter, cut.interrupted, cut.disclosed_count) == (2, "Jenny", "Alex", 2)
    assert cut.utterance_id == first(events, UtteranceGenerated).utterance_id
    assert cut.discarded == ("Secret sentence three is here.", "Secret sentence four is here.")
    # Nothing of Alex's utterance is disclosed after the cut, and it never completes.
    assert [e.text for e in of_type(events, UnitDisclosed) if e.speaker == "Alex"] == [
        "Alpha is first.",
        "Alpha is the answer.",
    ]
    assert [e.speaker for e in of_type(events, UtteranceCompleted)] == ["Jenny"]
    assert ended(events).stats.interruptions == 1


def test_interrupter_speaks_the_very_next_turn():
    events, _ = _interruption_debate()
    turn3 = at_turn(events, UnitDisclosed, 3)
    assert len(turn3) == 1
    assert (turn3[0].speaker, turn3[0].index, turn3[0].text, turn3[0].interrupting) == (
        "Jenny",
        0,
        "No, Beta.",
        "Alex",
    )
    turn4 = at_turn(events, UnitDisclosed, 4)[0]
    assert (turn4.speaker, turn4.index, turn4.interrupting) == ("Jenny", 1, None)
    generated = at_turn(events, UtteranceGenerated, 2)[0]
    assert (generated.speaker, generated.interrupting) == ("Jenny", "Alex")
    # The interrupted agent is a planner again from the very next turn.
    assert "Alex" in [record.agent for record in plans_at(events, 3).plans]


def test_discarded_sentences_never_reach_any_prompt():
    _, backend = _interruption_debate()
    utterance_requests = [r for r in backend.requests if r.kind == "utterance"]
    alex_request = utterance_requests[0]
    later = backend.requests[backend.requests.index(alex_request) + 1 :]
    assert len(later) > 10
    for text in ["\n".join(m.content for m in request.messages) for request in later]:
        assert "Secret sentence" not in text
    # ... while the disclosed ones do.
    assert any("Alpha is the answer." in text for text in request_texts(backend)[-3:])


def test_interrupters_utterance_prompt_names_the_interrupted_agent():
    _, backend = _interruption_debate()
    jenny = next(r for r in backend.requests if r.kind == "utterance" and r.agent == "Jenny")
    prompt = jenny.messages[-1].content
    assert "You are interrupting Alex" in prompt
    assert "Alpha is first. Alpha is the answer." in prompt
    alex = next(r for r in backend.requests if r.kind == "utterance" and r.agent == "Alex")
    assert "interrupting" not in alex.messages[-1].content


# -- batching ---------------------------------------------------------------------------


def test_all_plans_of_a_turn_go_to_the_backend_as_one_batch():
    events, backend = _interruption_debate()
    plan_batches = [b for b in backend.batches if b[0].kind == "plan"]
    plans_made = of_type(events, PlansMade)
    assert len(plan_batches) == len(plans_made)
    for batch, plans in zip(plan_batches, plans_made, strict=True):
        assert all(request.kind == "plan" for request in batch)
        assert [request.agent for request in batch] == [record.agent for record in plans.plans]
        assert {request.turn for request in batch} == {plans.turn}
    assert [len(b) for b in plan_batches][:5] == [3, 2, 2, 2, 3]
    [initial_batch] = [b for b in backend.batches if b[0].kind == "initial_answer"]
    assert [request.agent for request in initial_batch] == list(AGENTS)
    assert ended(events).stats.batches == len(backend.batches)


# -- the end: budget and final answer -------------------------------------------------------

THREE = "One two three. Four five six. Seven eight nine."  # 4 tokens per sentence


def test_debate_ends_in_the_turn_the_budget_is_reached_with_that_turns_majority():
    backend = build_script_backend(
        {
            (0, "Alex"): ("speak", 7, "B"),
            (2, "Chris"): ("listen", 0, "B"),
            (2, "Jenny"): ("listen", 0, "B"),
            (3, "Alex"): ("listen", 0, "B"),
            (3, "Chris"): ("listen", 0, "C"),
            (3, "Jenny"): ("listen", 0, "C"),
        },
        {"Alex": [THREE]},
    )
    events = run(make_config(token_budget=10), backend)
    end = ended(events)
    assert (end.reason, end.turn, end.public_tokens) == (EndReason.BUDGET, 3, 12)
    assert plans_at(events, 2).public_tokens == 8 < 10
    assert [type(e) for e in events[-4:]] == [UnitDisclosed, UtteranceCompleted, PlansMade, DebateEnded]
    assert end.final_answer == "C"
    assert [(v.answer, v.count) for v in end.votes] == [("C", 2), ("B", 1)]
    assert end.tie == ()
    assert end.correct is False
    assert end.answers == plans_at(events, 3).answers
    assert end.undisclosed == ()


def test_budget_end_mid_utterance_counts_the_speakers_carried_answer():
    backend = build_script_backend(
        {(0, "Alex"): ("speak", 7, "B"), (2, "Chris"): ("listen", 0, "B"), (2, "Jenny"): ("listen", 0, "D")},
        {"Alex": [THREE]},
    )
    end = ended(run(make_config(token_budget=8), backend))
    assert (end.reason, end.turn) == (EndReason.BUDGET, 2)
    assert end.final_answer == "B"
    assert end.correct is True
    assert [(a.agent, a.answer, a.carried) for a in end.answers] == [
        ("Alex", "B", True),
        ("Chris", "B", False),
        ("Jenny", "D", False),
    ]
    assert end.undisclosed == ("Seven eight nine.",)


def _tied_vote(seed):
    backend = build_script_backend(
        {(0, "Alex"): ("speak", 7, "A"), (1, "Alex"): ("listen", 0, "A"), (1, "Chris"): ("listen", 0, "B")},
        {"Alex": ["One two three four."]},
    )
    return ended(run(make_config(agents=agents("Alex", "Chris"), token_budget=3, seed=seed), backend))


def test_majority_tie_is_broken_by_the_seed_and_recorded():
    outcomes = set()
    for seed in range(10):
        end = _tied_vote(seed)
        assert end.reason is EndReason.BUDGET
        assert end.tie == ("A", "B")
        assert end.final_answer in ("A", "B")
        assert end.correct is (end.final_answer == "B")
        assert _tied_vote(seed).final_answer == end.final_answer
        outcomes.add(end.final_answer)
    assert outcomes == {"A", "B"}


# -- invalid plans -------------------------------------------------------------------

NOT_ALLOWED = plan_json("interrupt", 9, "B")


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("I think I should speak now, urgency 9.", "no JSON object"),
        ('{"thought": "x", "action": "speak", "urgency": 9', "invalid JSON"),
        (plan_json("speak", 12, "B"), "urgency 12 is outside 0-9"),
        (plan_json("speak", "9", "B"), "urgency must be an integer"),
        (NOT_ALLOWED, "'interrupt' is not allowed now"),
        (plan_json("speak", 9, "E"), "answer 'E' is not one of"),
        ('{"thought": "x", "action": "speak", "purpose": "p", "answer": "B"}', "missing field 'urgency'"),
    ],
)
def test_invalid_plan_falls_back_to_listen_and_the_debate_goes_on(raw, error):
    backend = build_script_backend(
        {
            (0, "Alex"): ("speak", 7, None),
            (0, "Chris"): ("listen", 0, "D"),
            (1, "Chris"): raw,
            (1, "Jenny"): ("speak", 3, None),
        },
        default_utterance="Beta is the answer.",  # 4 tokens
    )
    events = run(make_config(token_budget=8), backend)
    record = plan_of(plans_at(events, 1), "Chris")
    assert record.valid is False
    assert error in record.error
    assert record.raw == raw
    assert record.source is Source.MODEL
    # listen, urgency 0, and the answer of Chris's previous plan (not the initial "A")
    assert record.plan == fallback_plan("D")
    assert plans_at(events, 1).answer_of("Chris") == "D"
    # The invalid plan did not win the floor; Jenny's urgency-3 plan did.
    selected = at_turn(events, SpeakerSelected, 1)[0]
    assert (selected.speaker, [c.agent for c in selected.candidates]) == ("Jenny", ["Jenny"])
    end = ended(events)
    assert (end.reason, end.turn) == (EndReason.BUDGET, 2)
    assert end.stats.invalid_plans == 1
    assert all(r.valid for p in of_type(events, PlansMade) for r in p.plans if r is not record)


def test_plan_in_a_code_fence_is_valid_with_a_note():
    fenced = "```json\n" + plan_json("speak", 6, "B") + "\n```"
    backend = build_script_backend({(0, "Chris"): fenced})
    events = run(make_config(max_turns=1), backend)
    record = plan_of(plans_at(events, 0), "Chris")
    assert record.valid and record.note and record.error is None
    assert first(events, SpeakerSelected).speaker == "Chris"


# -- guards, stop() and errors ----------------------------------------------------------------


def test_stall_guard_ends_a_debate_where_nobody_speaks():
    events = run(make_config(max_silent_turns=3), build_script_backend())
    assert [(e.turn, e.consecutive) for e in of_type(events, SilentTurn)] == [(1, 1), (2, 2), (3, 3)]
    end = ended(events)
    assert (end.reason, end.turn) == (EndReason.SILENCE, 3)
    assert of_type(events, SpeakerSelected) == []


def test_max_turns_guard_ends_a_long_debate_and_records_the_cut_off_queue():
    long_text = " ".join(f"Sentence number {n} is here." for n in range(1, 11))
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [long_text]})
    end = ended(run(make_config(max_turns=4), backend))
    assert (end.reason, end.turn) == (EndReason.MAX_TURNS, 4)
    assert end.undisclosed == tuple(f"Sentence number {n} is here." for n in range(5, 11))
    assert end.stats.turns == 4


def test_stop_from_inside_the_iteration_ends_the_debate_before_more_model_work():
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [FOUR]})
    debate = Debate(make_config(), backend, segmenter=SentenceSplitter())
    events = []
    for event in debate.events():
        events.append(event)
        if isinstance(event, UnitDisclosed) and event.turn == 2:
            asked = len(backend.requests)
            debate.stop()
    end = ended(events)
    assert (end.reason, end.turn) == (EndReason.STOPPED, 2)
    assert isinstance(events[-2], UnitDisclosed)  # no plans were asked for after the stop
    assert len(backend.requests) == asked
    assert end.undisclosed == ("Gamma is third.", "Delta is fourth.")
    assert end.final_answer == "A"  # the majority of the answers the agents held when stopped


def test_stop_after_a_turns_plans_ends_the_debate_at_that_turn():
    backend = build_script_backend({(0, "Alex"): ("speak", 7, None)}, {"Alex": [FOUR]})
    debate = Debate(make_config(), backend, segmenter=SentenceSplitter())
    events = []
    for event in debate.events():
        events.append(event)
        if isinstance(event, PlansMade) and event.turn == 2:
            debate.stop()
    end = ended(events)
    assert (end.reason, end.turn) == (EndReason.STOPPED, 2)
    assert isinstance(events[-2], PlansMade)


def test_stop_before_the_first_turn():
    debate = Debate(make_config(), build_script_backend(), segmenter=SentenceSplitter())
    events = []
    for event in debate:
        events.append(event)
        if isinstance(event, DebateStarted):
            debate.stop()
    assert [type(e) for e in events] == [DebateStarted, DebateEnded]
    assert ended(events).reason is EndReason.STOPPED
    assert ended(events).final_answer is None


def test_a_debate_runs_once():
    debate = Debate(make_config(max_turns=1), build_script_backend(), segmenter=SentenceSplitter())
    debate.run()
    with pytest.raises(RuntimeError):
        debate.run()


def test_backend_error_ends_the_debate_then_is_raised():
    initial = '{"reason": "r", "answer": "B"}'
    backend = ScriptedBackend([initial, initial, initial, plan_json("listen", 0, "B")])
    debate = Debate(make_config(), backend, segmenter=SentenceSplitter())
    events = []
    with pytest.raises(BackendError, match="the script ran out"):
        for event in debate.events():
            events.append(event)
    assert [type(e) for e in events] == [DebateStarted, InitialAnswersGiven, DebateEnded]
    end = ended(events)
    assert end.reason is EndReason.ERROR
    assert "the script ran out" in end.error
    assert end.final_answer == "B"


def test_backend_returning_too_few_completions_is_an_error():
    class Short(ScriptedBackend):
        def generate(self, requests):
            return super().generate(requests)[:-1]

    inner = build_script_backend()
    backend = Short(lambda request: inner.generate([request])[0].text)
    events = []
    with pytest.raises(BackendError, match="2 completions for 3 requests"):
        events.extend(Debate(make_config(), backend, segmenter=SentenceSplitter()).events())
    assert ended(events).reason is EndReason.ERROR


# -- initial answers ----------------------------------------------------------------------


def test_supplied_initial_answers_are_used_and_not_requested():
    supplied = {"Alex": SuppliedInitialAnswer(answer="C", reason="given by the harness")}
    backend = build_script_backend(initial={"Chris": "B", "Jenny": "D"})
    events = run(make_config(initial_answers=supplied, max_turns=1), backend)
    given = first(events, InitialAnswersGiven).answers
    assert [(a.agent, a.answer, a.source) for a in given] == [
        ("Alex", "C", Source.SUPPLIED),
        ("Chris", "B", Source.MODEL),
        ("Jenny", "D", Source.MODEL),
    ]
    assert given[0].reason == "given by the harness"
    initial_requests = [r for r in backend.requests if r.kind == "initial_answer"]
    assert [r.agent for r in initial_requests] == ["Chris", "Jenny"]
    # Every agent's plan prompt shows the supplied answer and its reason.
    plan_prompt = next(r for r in backend.requests if r.kind == "plan").messages[-1].content
    assert "Alex: answer C. Reason: given by the harness" in plan_prompt


def test_all_initial_answers_supplied_means_no_initial_request():
    supplied = {name: SuppliedInitialAnswer(answer="(b)") for name in AGENTS}
    backend = build_script_backend()
    events = run(make_config(initial_answers=supplied, max_turns=1), backend)
    assert [a.answer for a in first(events, InitialAnswersGiven).answers] == ["B", "B", "B"]
    assert all(r.kind != "initial_answer" for r in backend.requests)


def test_invalid_initial_answer_is_recorded_and_the_agent_has_no_answer():
    def respond(request):
        if request.kind == "initial_answer" and request.agent == "Chris":
            return "I pick B"
        return inner.generate([request])[0].text

    inner = build_script_backend()
    events = run(make_config(max_turns=1), ScriptedBackend(respond))
    chris = first(events, InitialAnswersGiven).answers[1]
    assert (chris.agent, chris.answer, chris.valid, chris.raw) == ("Chris", None, False, "I pick B")
    assert chris.error


# -- event invariants -----------------------------------------------------------------------

ORDER = {
    UnitDisclosed: 0,
    SilentTurn: 0,
    UtteranceCompleted: 1,
    PlansMade: 2,
    DebateEnded: 3,
    SpeakerSelected: 4,
    Interrupted: 5,
    UtteranceGenerated: 6,
}


def assert_event_invariants(events):
    assert isinstance(events[0], DebateStarted)
    assert isinstance(events[-1], DebateEnded)
    assert len(of_type(events, DebateEnded)) == 1
    assert [e.seq for e in events] == list(range(len(events)))
    turns = [e.turn for e in events]
    assert turns == sorted(turns)
    tokens = [e.public_tokens for e in events]
    assert tokens == sorted(tokens)
    assert isinstance(events[1], InitialAnswersGiven) and events[1].turn == 0
    for turn in range(turns[-1] + 1):
        in_turn = [e for e in events if e.turn == turn]
        if turn == 0:
            in_turn = in_turn[2:]
        else:
            assert type(in_turn[0]) in (UnitDisclosed, SilentTurn), f"turn {turn}"
            assert len([e for e in in_turn if ORDER[type(e)] == 0]) == 1
        ranks = [ORDER[type(e)] for e in in_turn]
        assert ranks == sorted(ranks), f"turn {turn}: {[type(e).__name__ for e in in_turn]}"
        assert len(of_type(in_turn, PlansMade)) == 1, f"turn {turn}"
        if of_type(in_turn, Interrupted):
            assert of_type(in_turn, SpeakerSelected)[0].interrupts is not None
        if of_type(in_turn, SpeakerSelected):
            assert len(of_type(in_turn, UtteranceGenerated)) == 1
        # public_tokens grows only by disclosures
        before = [e for e in events if e.turn < turn]
        start = before[-1].public_tokens if before else 0
        gained = sum(e.tokens for e in of_type(in_turn, UnitDisclosed))
        assert all(e.public_tokens == start + gained for e in in_turn[1:] if turn > 0)


def test_event_invariants_hold_for_a_debate_with_every_mechanism():
    events, _ = _interruption_debate()
    assert of_type(events, Interrupted) and of_type(events, SilentTurn)
    assert of_type(events, UtteranceCompleted)
    assert_event_invariants(events)


def test_event_invariants_hold_for_a_budget_end():
    backend = build_script_backend(default_plan=("floor", 5, None), default_utterance=THREE)
    events = run(make_config(token_budget=40, max_turns=50), backend)
    assert ended(events).reason is EndReason.BUDGET
    assert_event_invariants(events)
