"""ACE in the web app without a browser: the observer's analysis as linked items, the acts, answers per round, seats."""

from __future__ import annotations

import html
import json
import re
import time

import gradio as gr
import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from protocols.ace.demo import SHARED, AceDemo
from protocols.ace.events import AnalysisMade
from tests.conftest import QUESTION
from ui import render, seat_form
from ui.session import SCRIPTED, LiveSession, backend_for
from ui.setup_config import config_from_form, seat_roles
from ui.setup_panel import _fit_agents, _human_choices, _protocol_chosen, _roles_info
from ui.view_model import DebateView, unit_gaps

HOSTILE = '<script>window.x=1</script> <img src=x onerror="alert(1)"> & "quotes"'
NAMES = ("Ann", "Ben", "Olive")


def config(variant: str = "ace", *, human: str | None = None, **params) -> DebateConfig:
    agents = tuple(AgentSpec(name=n, seat="human" if n == human else "model") for n in NAMES)
    return DebateConfig(question=QUESTION, agents=agents, protocol="ace", variant=variant, params=params)


def scripted(cfg: DebateConfig, **override) -> ScriptedBackend:
    """The demo script, with the replies of some request kinds replaced (a text, or a function of the request)."""
    demo = AceDemo(cfg)

    def reply(request):
        found = override.get(request.kind)
        if found is None:
            return demo.reply(request)
        return found(request) if callable(found) else found

    return ScriptedBackend(reply)


def view_of(variant: str = "ace", **override) -> DebateView:
    cfg = config(variant, **override.pop("params", {}))
    return DebateView.from_events(Debate(cfg, scripted(cfg, **override)).run())


def lines_of(view: DebateView, css: str) -> list[str]:
    return [line for line in render.transcript_lines(view) if line.startswith(f'<div class="line {css}')]


def text(fragment: str) -> str:
    """What a reader sees of an HTML fragment."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def side(line: str, n: int) -> str:
    """The ``n``-th column (0: first debater, 1: second) of an analysis panel."""
    return re.findall(r'<div class="pair-side".*?</ol>', line)[n]


def wait(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


# -- the transcript --------------------------------------------------------------------------------------------------
def test_a_reply_is_drawn_one_item_per_line_as_its_text_has_them():
    view = view_of()
    ann = next(line for line in render.transcript_lines(view) if 'data-utterance="1"' in line)
    assert (
        '<span class="sentence">1. The question turns on what it states, not on what it leaves out.</span><br>'
        '<span class="sentence">2. Each option is checked against that statement.</span><br>'
    ) in ann
    assert ann.count("<br>") == 3 and "Answer: B</span> </div>" in ann  # none after the last line
    assert unit_gaps("One.\n\n2. Two here", ("One.", "2. Two", "here")) == ["\n", " ", " "]
    assert unit_gaps("Trailing.\n", ("Trailing.",)) == [" "]


def test_an_analysis_shows_both_explanations_side_by_side_with_matched_and_differing_items_linked():
    view = view_of()
    first, second = lines_of(view, "analysis")
    assert 'data-first="Ann" data-second="Ben"' in first
    ann, ben = side(first, 0), side(first, 1)
    # the items each debater gave in the reply the observer read: Ann three, Ben his first two
    assert text(ann).startswith("Ann · answer B 1. The question turns on what it states")
    assert ann.count("<li ") == 3 and ben.count("<li ") == 2
    assert "The first option that looks plausible" in ben  # Ben's round-1 item, though he later took Ann's
    # item 1 matches item 1: the same badge on both sides; item 2 differs from item 2, in the warning colour
    assert '<li class="item match" data-item="1">' in ann and '<li class="item match" data-item="1">' in ben
    assert '<li class="item differ" data-item="2">' in ann and '<li class="item differ" data-item="2">' in ben
    for column in (ann, ben):
        assert column.count('<span class="link-badge match c0">1</span>') == 1
        assert column.count('<span class="link-badge differ c0">≠1</span>') == 1
    assert '<li class="item" data-item="3">' in ann  # in no pair: plain, no badge
    assert "link-badge" not in re.search(r'<li class="item" data-item="3">.*?</li>', ann).group(0)
    links = text(re.search(r'<div class="links">.*?</div></div>', first).group(0))
    assert "1 1 ↔ 1 match" in links and "≠1 2 ≠ 2 differ" in links
    # the headers: the observer's verdicts and its reason
    assert text(first).startswith("Olive observer analysis, round 2 go on")
    assert '<span class="verdict go">go on</span>: They disagree on the second step.' in first
    assert "answers disagree" in first and "explanations not similar overall" in first
    assert '<span class="verdict stop">stop</span>: They agree and explain it the same way.' in second
    assert "answers agree" in second and "explanations similar overall" in second
    assert 'class="invalid"' not in first + second


def test_each_rounds_acts_are_one_line_with_every_debaters_acts_and_action():
    view = view_of()
    (acts,) = lines_of(view, "acts")
    assert text(acts) == (
        "acts chosen, round 2 Ann retain + comment — I will retain my answer and comment on theirs. My answer: B."
        f" My reasons: (1) {SHARED} (2) Each option is checked against that statement. (3) Only one option survives"
        " the check. My comment: Your second item skips the check against the statement."
        " Ben adapt + withhold — I will adapt my answer and withhold on theirs. My answer: B."
        f" My reasons: (1) {SHARED} (2) Each option is checked against that statement. (3) Only one option survives"
        " the check."
    )
    assert "drawn at random" not in acts
    assert set(view.acts) == {"Ann", "Ben"}  # the latest acts per agent are still folded
    # the line sits between the analysis it answered and the round's execution
    lines = render.transcript_lines(view)
    order = [i for i, line in enumerate(lines) if 'class="line acts' in line or 'class="line analysis' in line]
    assert order == sorted(order) and 'class="line acts' in lines[order[1]]


def test_acts_drawn_at_random_say_so():
    view = view_of("no_compose", params={"max_rounds": 2})
    (acts,) = lines_of(view, "acts")
    assert acts.count('<span class="badge random">drawn at random</span>') == 2


def test_the_observers_pick_and_the_answers_per_round_with_the_decision():
    view = view_of("no_analyze")  # no analysis, so no stop: the debaters still disagree at the cap
    (pick,) = lines_of(view, "analysis")
    assert text(pick).startswith("Olive observer pick, round 4 Olive picks B")
    assert "the debaters disagree at the end" in pick
    table = render.rounds_html(view)
    assert "Answers per round" in table
    heads = re.findall(r"<th><span class=\"agent\"[^>]*>(\w+)</span></th>", table)
    assert heads == ["Ann", "Ben"]  # the observer never answers: no column
    rows = re.findall(r'<tr data-round="(\d)"><th>\d</th>(.*?)</tr>', table)
    assert [(n, text(cells)) for n, cells in rows] == [(str(n), "B ✓ A") for n in range(1, 5)]
    decision = re.search(r'<tr class="decision">.*?</tr>', table).group(0)
    assert text(decision) == "final B ✓ judge: picked by Olive" and 'data-rule="judge"' in decision


def test_the_answers_per_round_mark_a_change_and_end_with_the_consensus():
    table = render.rounds_html(view_of())
    rows = re.findall(r'<tr data-round="\d">.*?</tr>', table)
    assert len(rows) == 2 and '<td class="answer changed right">B ✓</td>' in rows[1]
    assert text(re.search(r'<tr class="decision">.*?</tr>', table).group(0)) == "final B ✓ consensus"


def test_the_table_grows_round_by_round_and_shows_the_pick_before_the_end():
    cfg = config("no_analyze", rounds=2)
    events = Debate(cfg, scripted(cfg)).run()
    picked = next(i for i, e in enumerate(events) if isinstance(e, AnalysisMade))
    assert render.rounds_html(DebateView.from_events(events[:1])) == ""  # nothing answered yet
    before_end = render.rounds_html(DebateView.from_events(events[: picked + 1]))
    assert text(re.search(r'<tr class="decision">.*?</tr>', before_end).group(0)) == "final Olive picks B"


def test_a_debate_that_does_not_answer_in_rounds_has_no_table():
    from protocols.kimura.demo import demo_backend, demo_config

    kimura = demo_config(seed=1, max_turns=3)
    assert render.rounds_html(DebateView.from_events(Debate(kimura, demo_backend(kimura)).run())) == ""


def test_an_unusable_analysis_and_an_unusable_pick_show_their_errors():
    def stubborn(request):  # Ann says A and Ben C: they never agree
        answer = "A" if "You are Ann" in request.messages[0].content else "C"
        return json.dumps({"answer": answer, "explanation": ["x"]})

    view = view_of(params={"max_rounds": 2}, analyze="I think they should stop.", execute=stubborn, pick="no idea")
    analysis, pick = lines_of(view, "analysis")
    assert '<div class="invalid">invalid reply: ' in analysis and "go on" in analysis
    assert "explanations not similar overall" in analysis and "no items linked" in analysis
    assert "no usable pick: the majority decides" in pick and '<div class="invalid">invalid reply: ' in pick


def test_a_debaters_unusable_reply_is_kept_and_says_why():
    view = view_of(params={"max_rounds": 2}, execute="")
    executed = [line for line in lines_of(view, "speech") if '<span class="badge kind">execute</span>' in line]
    assert len(executed) == 2
    assert all(
        '</div><div class="invalid">no answer and no explanation in the output</div></div>' in e for e in executed
    )
    assert "Only one option survives the check." in executed[0]  # Ann's round-1 reply, kept


def test_everything_a_model_writes_in_an_ace_debate_is_escaped():
    def hostile_stance(request):
        return json.dumps({"answer": "B", "explanation": [HOSTILE, "fine"], "comments": HOSTILE})

    analysis = json.dumps(
        {"answers_agree": True, "explanations_similar": True, "similar": [[1, 1]], "dissimilar": [],
         "stop": False, "reason": HOSTILE}
    )  # fmt: skip
    compose = json.dumps({"self_act": "retain", "peer_act": "comment", "action": HOSTILE})
    view = view_of(
        params={"max_rounds": 2}, answer=hostile_stance, execute=hostile_stance, analyze=analysis, compose=compose
    )
    page = render.transcript_html(view) + render.rounds_html(view) + render.result_html(view)
    assert "<script>" not in page and "<img" not in page
    shown = html.escape(HOSTILE)
    (panel,) = lines_of(view, "analysis")
    assert side(panel, 0).count(shown) == 1 and side(panel, 1).count(shown) == 1  # the items
    assert f"go on</span>: {shown}" in panel  # the reason
    (acts,) = lines_of(view, "acts")
    assert acts.count(f"— {shown}") == 2  # both actions


# -- seats -----------------------------------------------------------------------------------------------------------
def form_updates(request):
    with gr.Blocks():
        form = seat_form.build_seat_form()
    updates = seat_form.updates(request, form)
    slots = updates[2:-1]
    names = [f"{kind}-{i}" for kind, count in seat_form.SLOTS.items() for i in range(count)]
    return updates, {name: update for name, update in zip(names, slots, strict=True) if update.get("visible")}


def test_a_person_as_the_observer_gets_the_analysis_form_whole_then_picks_and_decides():
    cfg = config(human="Olive")
    session = LiveSession(cfg, backend_for(SCRIPTED, cfg), human="Olive").start()
    try:
        assert session.controls == "none"  # words only: no floor to ask for
        request = session.channel.pending(timeout_s=30)
        assert request is not None and request.kind == "analyze"
        updates, shown = form_updates(request)
        assert updates[-1] == ""  # no "Cannot show this request": three yes/no fit
        assert [shown[f"boolean-{i}"]["label"] for i in range(3)] == [
            "Do the answers agree?",
            "Are the explanations similar overall?",
            "Stop the debate now?",
        ]
        assert shown["text-0"]["label"] == "Matching items (optional)"
        assert shown["text-1"]["label"] == "Differing items (optional)"
        assert shown["text-0"]["info"] == shown["text-1"]["info"] == "pairs of item numbers, Ann's first: 1-2, 3-1"
        assert shown["text-2"]["label"] == "Why (one sentence) (optional)" and shown["text-2"]["info"] == ""
        # what the person set, slot by slot: no choice, no integer; the texts; agree no, similar no, stop yes
        slots = [None, None, None, None, None, "1-1", "2-2", HOSTILE, False, False, True]
        session.channel.submit(request.request_id, seat_form.values(request, slots))
        pick = session.channel.pending(timeout_s=30)
        assert pick is not None and pick.kind == "pick"
        _, shown = form_updates(pick)
        assert shown["choice-0"]["choices"] == [("B", "B"), ("A", "A")]
        session.channel.submit(pick.request_id, {"answer": "B"})
        assert wait(lambda: session.done)
        view = session.view
        assert (view.ended.final_answer, view.ended.rule, view.ended.decided_by) == ("B", "judge", "Olive")
        analysis, picked = lines_of(view, "analysis")
        assert '<span class="verdict stop">stop</span>: ' + html.escape(HOSTILE) in analysis
        assert "1 ↔ 1 match" in analysis and "2 ≠ 2 differ" in analysis
        assert "Olive picks B" in text(picked)
        assert "picked by Olive" in text(render.rounds_html(view))
    finally:
        session.stop()


def test_a_person_as_a_debater_sees_the_acts_described_and_one_item_per_line_asked():
    cfg = config(human="Ben")
    session = LiveSession(cfg, backend_for(SCRIPTED, cfg), human="Ben").start()
    try:
        answer = session.channel.pending(timeout_s=30)
        assert answer is not None and answer.kind == "answer"
        _, shown = form_updates(answer)
        assert "one per line" in shown["text-0"]["label"]
        session.channel.submit(answer.request_id, {"answer": "A", "explanation": "Oxygen feeds fire.\nWe breathe it."})
        compose = session.channel.pending(timeout_s=30)
        assert compose is not None and compose.kind == "compose"
        _, shown = form_updates(compose)
        own, peer = shown["choice-0"], shown["choice-1"]
        assert [value for _, value in own["choices"]] == ["adapt", "revise", "retain"]
        assert own["info"].startswith("- adapt: Update your answer") and "- retain: Keep your answer" in own["info"]
        assert [value for _, value in peer["choices"]] == ["comment", "withhold"]
        assert "- withhold: Say nothing" in peer["info"]
        session.channel.submit(compose.request_id, {"self_act": "adapt", "peer_act": "withhold", "action": "Take B."})
        assert wait(lambda: "Ben" in session.view.acts)
        (acts,) = lines_of(session.view, "acts")
        assert "Ben adapt + withhold — Take B." in text(acts)
    finally:
        session.stop()


def test_the_set_up_form_offers_ace_its_variants_and_every_seat_with_its_role():
    choices = _protocol_chosen("ace")[0]["choices"]
    assert choices == ["ace", "no_analyze", "no_compose", "no_execute", "parallel"]
    assert seat_roles("ace", "ace", "Ann, Ben, Olive") == {"Ann": "debater", "Ben": "debater", "Olive": "observer"}
    seats = _human_choices("Ann, Ben, Olive", "Olive", "ace", "ace")
    assert ("Olive · observer", "Olive") in seats["choices"] and ("Ann · debater", "Ann") in seats["choices"]
    assert seats["value"] == "Olive"
    assert "observer (1:" in _roles_info("ace", "ace") and "observer" not in _roles_info("ace", "parallel")
    assert "debater (2 or more:" in _roles_info("ace", "parallel")
    assert _fit_agents("ace", "ace", "Ann, Ben, Olive, Dee", "Dee: late") == ["Ann, Ben, Olive", ""]
    from tests.test_ui_view import form_fields

    for human, variant in (("Olive", "ace"), ("Ann", "no_execute"), ("Ben", "parallel")):
        built = config_from_form(form_fields(protocol="ace", condition=variant, agents="Ann, Ben, Olive", human=human))
        assert built.protocol == "ace" and built.variant == variant
        assert [a.name for a in built.agents if a.seat.value == "human"] == [human]


@pytest.mark.parametrize("variant", ["ace", "no_analyze", "no_compose", "no_execute", "parallel"])
def test_every_variant_renders(variant):
    view = view_of(variant)
    page = render.transcript_html(view) + render.rounds_html(view) + render.result_html(view)
    assert "Answers per round" in page and "Final answer" in page
    assert bool(lines_of(view, "acts")) == (variant != "parallel")
