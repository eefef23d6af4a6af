"""The baselines with a person's seat, without a browser: every variant and every role in the web app's session
layer, the set-up form that seats them, and a person's seat at the terminal (issue #26).

Each web case starts the debate as the page does (``LiveSession`` on the scripted backend, the person in one
seat), reads every request the person gets as the seat form draws it (the prompt and the visible fields with
their labels), answers through the form's own mapping (``seat_form.values``) and checks that the debate ends,
the person's words are in the recorded events as their utterances, their answer folded into the view.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr
import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.events import AnswersUpdated, DebateEnded, UtteranceGenerated
from debate_core.kernel.human import HumanRequest
from protocols.baselines.demo import BaselinesDemo
from protocols.baselines.forms import ASKED
from tests.conftest import HANG_GUARD_S, QUESTION
from ui import render, render_rounds, seat_form
from ui.session import SCRIPTED, LiveSession, backend_for
from ui.setup_config import config_from_form, seat_roles
from ui.setup_panel import _fit_agents, _human_choices, _protocol_chosen
from ui.view_model import DebateView

ROOT = Path(__file__).resolve().parents[3]
HOSTILE = '<script>window.x=1</script> & "quotes"'
SAID = f"Nitrogen is most of the air. {HOSTILE}"
SINGLE = ("io", "cot", "self_consistency", "step_back", "self_contrast")
DEBATERS = ("parallel", "dmad", "rtc", "rpd")
TAR = {"Alex": "affirmative", "Chris": "negative", "Jenny": "judge"}
CASES = [
    *((variant, "Alex", "solver") for variant in SINGLE),
    *((variant, "Chris", "debater") for variant in DEBATERS),
    *(("tar", name, role) for name, role in TAR.items()),
    ("rpd", "Jenny", "summarizer"),  # ChatEval's simultaneous talk with a summarizer, a person summarizing
]
# the request kinds a person in each seat is asked, in order (the demo's models agree in round 2 of TAR)
KINDS = {
    "io": ["answer"],
    "cot": ["reasoning"],
    "self_consistency": ["sample"] * 3,
    "step_back": ["step_back", "step_back_reasoning"],
    "self_contrast": ["perspectives", "perspective", "perspective", "perspective", "contrast", "reconcile"],
    "parallel": ["first_answer", "revise"],
    "dmad": ["method_answer", "method_revise"],
    "rtc": ["rtc_first"],  # everyone agrees at once: the discussion is never held
    "rpd": ["rpd_turn", "rpd_turn"],
    "affirmative": ["affirmative", "affirmative"],
    "negative": ["negative", "negative"],
    "judge": ["judge_check", "judge_check"],
    "summarizer": ["rpd_summary"],  # after round 1 of 2: no summary follows the last round
}


def config(variant: str, human: str, role: str = "") -> DebateConfig:
    names = ("Alex",) if variant in SINGLE else tuple(TAR)
    summarizing = role == "summarizer"
    agents = tuple(
        AgentSpec(name=n, seat="human" if n == human else "model", role=role if summarizing and n == human else None)
        for n in names
    )
    params = {"strategy": "simultaneous_summarizer"} if summarizing else {}
    return DebateConfig(question=QUESTION, agents=agents, protocol="baselines", variant=variant, params=params)


@dataclass
class Kept:
    """A stand-in for the store: keeps every event the session records."""

    events: list[Any]

    def record(self, events):
        for event in events:
            self.events.append(event)
            yield event


def shown(request: HumanRequest) -> tuple[str, dict[str, dict[str, Any]], str]:
    """What the seat form draws: the prompt, each visible slot's update by slot name, and its message."""
    with gr.Blocks():
        form = seat_form.build_seat_form()
    updates = seat_form.updates(request, form)
    names = [f"{kind}-{i}" for kind, count in seat_form.SLOTS.items() for i in range(count)]
    slots = {name: update for name, update in zip(names, updates[2:-1], strict=True) if update.get("visible")}
    return updates[1], slots, updates[-1]


def answer(request: HumanRequest, **by_name: Any) -> dict[str, Any]:
    """The values as the page submits them: each field's slot set, mapped back by ``seat_form.values``."""
    slots: list[Any] = [None] * sum(seat_form.SLOTS.values())
    counts = list(seat_form.SLOTS.values())
    offsets = {kind: sum(counts[:i]) for i, kind in enumerate(seat_form.SLOTS)}
    for spec, kind, index in seat_form.assign(request.fields):
        slots[offsets[kind] + index] = by_name.get(spec.name)
    return seat_form.values(request, slots)


def reply(request: HumanRequest, round_: int) -> dict[str, Any]:
    """The person's reply to a request: their words and B; the judge declines in round 1, then sides with the
    affirmative (who says B); an RTC agent is fairly sure."""
    if request.kind == "judge_check":
        if round_ == 1:
            return answer(request, preference="no", reason=SAID)
        return answer(request, preference="yes", side="affirmative", reason=SAID)
    if request.kind == "perspectives":
        return answer(request, text="From the chemistry.\nFrom the numbers.")
    return answer(request, reasoning=SAID, text=SAID, answer="B", confidence="0.9")


def requests_of(session: LiveSession) -> Iterator[HumanRequest]:
    """Each request the person gets, as it comes, until the debate ends (the session's thread is done)."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not session.done and time.monotonic() < deadline:
        request = session.channel.pending(timeout_s=0.05)
        if request is not None:
            yield request
    assert session.done and session.error is None and session.view.ended is not None


@pytest.mark.parametrize(("variant", "person", "role"), CASES, ids=[f"{v}-{r}" for v, _, r in CASES])
def test_a_person_takes_any_seat_of_any_baseline_and_their_words_and_answer_are_the_debates(variant, person, role):
    cfg = config(variant, person, role)
    kept = Kept([])
    session = LiveSession(cfg, backend_for(SCRIPTED, cfg), store=kept, human=person, pace_s=0).start()
    asked: list[str] = []
    try:
        assert session.controls == "none"  # words only: no floor, no interruptions in a baseline
        for request in requests_of(session):
            prompt, slots, message = shown(request)
            assert message == "", f"{request.kind}: the form cannot be drawn: {message}"
            assert request.prompt and request.prompt in prompt, f"{request.kind}: no prompt of its own"
            if request.kind in ASKED:
                assert ASKED[request.kind](request.view) in prompt
            labels = [slot["label"].removesuffix(" (optional)") for slot in slots.values()]
            assert sorted(labels) == sorted(spec.label for spec in request.fields)
            asked.append(request.kind)
            session.channel.submit(request.request_id, reply(request, asked.count(request.kind)))
    finally:
        session.stop()
    assert asked == KINDS[role if role in KINDS else variant]
    ended = kept.events[-1]
    assert isinstance(ended, DebateEnded) and (ended.final_answer, ended.correct) == ("B", True)
    said = [e for e in kept.events if isinstance(e, UtteranceGenerated) and e.speaker == person]
    assert [e.kind for e in said] == asked  # each step of theirs is their utterance, in order
    assert any(SAID in e.text for e in said) or variant == "io"  # IO asks for the answer alone: no words
    answered = [e.answer_of(person) for e in kept.events if isinstance(e, AnswersUpdated) and e.answer_of(person)]
    if role == "summarizer":  # a summary names no answer and casts no vote
        assert not answered and ended.rule == "majority"
    else:
        assert answered and answered[-1] == "B"
        assert session.view.trajectory[-1][2][person] == "B"  # folded into the view the page draws (its answers)
    if ended.rule in ("single", "judge"):  # the solver's answer, the judge's verdict; else a vote of the answers
        assert ended.decided_by == (person if role in ("solver", "judge") else "Jenny")
    page = render.transcript_html(session.view) + render.result_html(session.view)
    assert "<script>" not in page and (html.escape(HOSTILE) in page or variant == "io")


def test_the_judge_sees_each_sides_answer_and_what_the_call_does():
    cfg = config("tar", "Jenny")
    session = LiveSession(cfg, backend_for(SCRIPTED, cfg), human="Jenny", pace_s=0).start()
    try:
        requests = requests_of(session)
        request = next(requests)
        assert request.kind == "judge_check"
        prompt, slots, _ = shown(request)
        assert prompt.startswith("### Your call as the judge, round 1\nYes ends the debate")
        assert prompt.endswith("say whether one side is clearly right.")  # worded for a person, said once
        assert "the judge's call" not in prompt and prompt.count("round 1") == 1
        assert slots["choice-0"]["choices"] == [("No: another round", "no"), ("Yes: end the debate now", "yes")]
        assert slots["choice-1"]["choices"] == [("Affirmative: B", "affirmative"), ("Negative: A", "negative")]
        assert slots["choice-2"]["choices"] == [(label, label) for label in "ABCD"]
        session.channel.submit(request.request_id, reply(request, 1))
        request = next(requests)
        assert shown(request)[0].startswith("### Your call as the judge, round 2")
        # the negative side came round: both sides say B; yes with an answer and no side ends it with that answer
        assert shown(request)[1]["choice-1"]["choices"][1] == ("Negative: B", "negative")
        session.channel.submit(request.request_id, answer(request, preference="yes", answer="B"))
        assert next(requests, None) is None  # no more: the debate has ended
        view = session.view
        assert (view.ended.final_answer, view.ended.rule, view.ended.decided_by) == ("B", "judge", "Jenny")
        lines = render.transcript_lines(view)
        judged = [line for line in lines if 'class="line speech' in line and ">Jenny</span>" in line]
        assert "No side is clearly right yet" in judged[0] and "Final Answer: B" in judged[1]
        # a side's kind repeats its role: one badge, not "affirmative affirmative"
        alex = next(line for line in lines if ">Alex</span>" in line)
        assert '<span class="role">affirmative</span>' in alex and 'class="badge kind"' not in alex
        assert '<span class="badge kind">judge check</span>' in judged[0]
    finally:
        session.stop()


def test_the_set_up_form_offers_every_variant_and_seats_a_person_in_each_role():
    from tests.test_ui_view import form_fields

    variants = _protocol_chosen("baselines")[0]["choices"]
    assert variants[0] == "cot" and set(variants) == {*SINGLE, *DEBATERS, "tar"}
    # the default variant takes one solver: the names are cut to one, and a multi-seat variant brings them back
    assert _fit_agents("baselines", "cot", "Alex, Chris, Jenny", "Chris: calm") == ["Alex", ""]
    assert _fit_agents("baselines", "tar", "Alex", "")[0] == "Alex, Chris, Jenny"
    assert _fit_agents("baselines", "parallel", "Ann", "")[0] == "Ann, Alex, Chris"
    assert _fit_agents("baselines", "rtc", "Alex, Chris, Jenny, Dee", "") == [gr.skip(), gr.skip()]
    assert seat_roles("baselines", "tar", "Alex, Chris, Jenny") == TAR
    seats = _human_choices("Alex, Chris, Jenny", "Jenny", "baselines", "tar")
    assert seats["choices"][1:] == [(f"{n} · {r}", n) for n, r in TAR.items()] and seats["value"] == "Jenny"
    assert _human_choices("Alex", "Alex", "baselines", "io")["choices"][1] == ("Alex · solver", "Alex")
    for variant, person, role in CASES:
        if role == "summarizer":  # seated by the roles field under strategy=simultaneous_summarizer, not by default
            continue
        names = "Alex" if variant in SINGLE else "Alex, Chris, Jenny"
        built = config_from_form(form_fields(protocol="baselines", condition=variant, agents=names, human=person))
        assert (built.protocol, built.variant) == ("baselines", variant)
        assert [a.name for a in built.agents if a.seat.value == "human"] == [person]
        assert seat_roles("baselines", variant, names)[person] == role


def run_cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "debate_core", "run", "--protocol", "baselines", "--backend", "scripted", *args]
    return subprocess.run(command, capture_output=True, text=True, input=stdin, cwd=ROOT, timeout=HANG_GUARD_S)


@pytest.mark.parametrize(
    ("variant", "person", "lines", "kinds"),
    [
        ("tar", "Jenny", ["no not yet", "yes affirmative B the facts stand"], ["judge_check", "judge_check"]),
        ("rtc", "Chris", ["B 0.9 Nitrogen is most of the air."], ["rtc_first"]),
    ],
    ids=["tar-judge", "rtc-debater"],
)
def test_a_person_at_the_terminal_takes_a_multi_seat_baselines_seat_from_stdin(tmp_path, variant, person, lines, kinds):
    out = tmp_path / "events.jsonl"
    stdin = "\n".join(lines) + "\n"
    result = run_cli("--variant", variant, "--human", person, "--events-jsonl", str(out), stdin=stdin)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    said = [e for e in events if e["type"] == "utterance_generated" and e["speaker"] == person]
    assert [e["kind"] for e in said] == kinds
    ended = events[-1]
    assert ended["type"] == "debate_ended" and (ended["final_answer"], ended["correct"]) == ("B", True)
    if variant == "tar":
        assert ended["reason"] == "verdict" and "not yet" in said[0]["text"] and "the facts stand" in said[1]["text"]
        assert re.search(r"Final answer: B\s+\(judge by Jenny\)", result.stdout)


@pytest.mark.parametrize(
    ("variant", "params", "rounds"),
    [
        ("parallel", {"rounds": 3}, [1, 2, 3]),
        ("dmad", {"rounds": 3}, [1, 2, 3]),
        ("tar", {}, [1, 2]),  # the demo's judge ends it after round 2
        ("rtc", {}, [1, 2]),  # the demo's doubter comes round in round 2: round 3 would open in consensus
        ("rpd", {"rounds": 3}, [1, 2, 3]),
        ("rpd", {"rounds": 3, "strategy": "simultaneous_summarizer"}, [1, 2, 3]),
    ],
    ids=["parallel", "dmad", "tar", "rtc", "rpd", "rpd-summarizer"],
)
def test_the_app_draws_a_debating_baselines_answers_one_row_per_round(variant, params, rounds):
    cfg = config(variant, "").model_copy(update={"params": params})
    events = Debate(cfg, ScriptedBackend(BaselinesDemo(cfg).reply)).run()
    view = DebateView.from_events(events)
    assert [number for number, _ in view.rounds] == rounds
    debaters = ("Alex", "Chris") if variant == "tar" else tuple(TAR)  # TAR's judge names an answer only to end it
    assert all(answers[name] for _, answers in view.rounds for name in debaters)  # each one's answer after the round
    table = render_rounds.rounds_html(view)
    assert "Answers per round" in table and [f'data-round="{n}"' in table for n in rounds] == [True] * len(rounds)
    assert 'class="decision"' in table and view.ended is not None and view.ended.final_answer == "B"
    assert 'class="answer changed' in table  # the demo's doubter came round after round 1
