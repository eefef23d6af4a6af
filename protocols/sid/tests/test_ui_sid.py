"""SID in the web app without a browser: a confidence gauge per agent per round, what each agent read, a seat."""

from __future__ import annotations

import html
import json
import re
import time

import gradio as gr
import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.events import SignalsMeasured
from debate_core.events.records import TokenStats
from protocols.kimura.demo import demo_backend, demo_config
from protocols.sid import web as render_signals
from protocols.sid.demo import SidDemo
from protocols.sid.events import ContextCompressed
from tests.conftest import QUESTION
from ui import render, seat_form
from ui.live_stream import Drawn, LiveView, updates
from ui.session import SCRIPTED, LiveSession, backend_for
from ui.setup_config import config_from_form
from ui.setup_panel import _human_choices, _protocol_chosen, _roles_info
from ui.view_model import DebateView

HOSTILE = '<script>window.x=1</script> <img src=x onerror="alert(1)"> & "quotes"'
NAMES = ("Alex", "Chris", "Jenny")


def config(variant: str = "sid", *, human: str | None = None, confident: bool = False, **params) -> DebateConfig:
    agents = tuple(
        AgentSpec(
            name=n,
            seat="human" if n == human else "model",
            persona="You are confident." if confident and n == NAMES[0] else "",
        )
        for n in NAMES
    )
    return DebateConfig(question=QUESTION, agents=agents, protocol="sid", variant=variant, params=params)


def view_of(variant: str = "sid", *, confident: bool = False, **params) -> DebateView:
    cfg = config(variant, confident=confident, **params)
    return DebateView.from_events(Debate(cfg, ScriptedBackend(SidDemo(cfg).reply)).run())


def gauges(page: str) -> list[tuple[str, int, bool]]:
    """(agent, round, passed) of every gauge, in the order drawn."""
    found = re.findall(r'<div class="gauge \w+" data-agent="([^"]*)" data-round="(\d+)" data-passed="(\w+)"', page)
    return [(agent, int(number), passed == "true") for agent, number, passed in found]


def gauge_of(page: str, agent: str, number: int) -> str:
    start = rf'<div class="gauge \w+" data-agent="{agent}" data-round="{number}"'
    return re.search(start + r'.*?class="gauge-nums">.*?</span></div>', page, re.S)[0]


def text(fragment: str) -> str:
    """What a reader sees of an HTML fragment."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def reading_of(page: str, agent: str, number: int) -> str:
    start = rf'<details class="reading" data-agent="{agent}" data-round="{number}"'
    return re.search(start + r".*?</details>", page, re.S)[0]


def shown_text(reading: str) -> str:
    """The text of a reading as drawn (kept and dropped pieces joined, unescaped)."""
    body = re.search(r'<div class="reading-text">(.*?)</div>', reading, re.S)[0]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def wait(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def stats(nll_max: float = 0.5, ent_max: float = 0.5) -> TokenStats:
    return TokenStats(
        nll_max=nll_max, nll_avg=0.2, nll_first=0.1, nll_penultimate=0.1,
        ent_max=ent_max, ent_avg=0.2, ent_first=0.1, ent_penultimate=0.1,
    )  # fmt: skip


def measured(agent: str, score: float, threshold: float | None, rule: str, passed: bool) -> SignalsMeasured:
    return SignalsMeasured(
        seq=1, turn=1, public_tokens=0, at=0.0, agent=agent, stats=stats(), score=score, threshold=threshold,
        rule=rule, passed=passed,
    )  # fmt: skip


def hand_made(*events) -> DebateView:
    view = DebateView()
    for event in events:
        view.apply(event)
    return view


# -- the confidence gauges -------------------------------------------------------------------------------------------
def test_every_measured_reply_has_a_gauge_per_agent_per_round_coloured_by_its_verdict():
    view = view_of("sid")
    page = render_signals.confidence_html(view)
    assert gauges(page) == [
        ("Alex", 1, False), ("Chris", 1, True), ("Jenny", 1, True),
        ("Alex", 2, True), ("Chris", 2, True), ("Jenny", 2, True),
    ]  # fmt: skip
    assert page.count('data-round="1"><div class="round-head">Round 1') == 1 and "Round 2" in page
    alex = gauge_of(page, "Alex", 1)
    # the demo's Alex hesitates on one token: NLL 7 above 0.5 ln|V| = 5.41, so the debate goes on
    assert "NLL max 7.00 · entropy max 0.40 · score 7.00 > 5.41" in text(alex)
    assert "exit gate: not passed, the debate goes on" in text(alex) and '<span class="verdict fail">' in alex
    assert page.count("exit gate") == 1  # only the first agent's first reply can end the debate
    chris = gauge_of(page, "Chris", 1)
    assert "score 0.40 ≤ 5.41" in text(chris) and '<span class="verdict pass">passed' in chris
    # one scale for the panel: twice the threshold, the marker at its middle, a low score's side tinted
    assert '<div class="gauge-mark" style="left:50.0%">' in alex
    assert '<div class="gauge-zone" style="left:0;width:50.0%">' in alex
    assert 'class="gauge-fill" style="width:64.7%"' in alex  # 7.00 / 10.82
    assert 'title="max(nll_max, ent_max) &lt;= 0.5 ln|V| (a low score passes) — not passed. NLL max 7.000' in alex
    assert "Gate: max(nll_max, ent_max) &lt;= 0.5 ln|V|." in page


def test_a_confident_first_answer_is_labelled_the_early_exit():
    view = view_of("exit", confident=True)
    page = render_signals.confidence_html(view)
    assert gauges(page) == [("Alex", 1, True)]
    assert '<span class="badge gate exit">exit gate: early exit</span>' in page
    assert view.ended is not None and view.ended.reason.value == "early_exit"
    assert render_signals.reading_html(view) == ""  # nobody revised: nothing compressed
    table = render.rounds_html(view)
    assert table.count("<tr data-round=") == 1 and "early exit: Alex" in text(table)


def test_every_reply_is_measured_in_the_exit_variant_without_compression():
    view = view_of("exit")
    assert len(gauges(render_signals.confidence_html(view))) == 6
    assert render_signals.reading_html(view) == ""


def test_the_answers_per_round_have_one_row_per_round_with_every_answer():
    view = view_of("sid")
    table = render.rounds_html(view)
    # round 1 is published in two steps (the gate's agent first, then the others): one row, the latest answers
    assert re.findall(r'<tr data-round="(\d+)">', table) == ["1", "2"]
    first = re.search(r'<tr data-round="1">.*?</tr>', table)[0]
    assert text(first) == "1 B ✓ A B ✓"
    assert "majority" in text(table)


def test_a_classifier_gate_passes_to_the_right_of_tau(tmp_path):
    from protocols.sid.tests.test_sid import _model

    path = tmp_path / "gate.json"
    path.write_text(json.dumps(_model().to_json()), encoding="utf-8")
    view = view_of("sid_c", classifier=str(path), tau=0.9)
    page = render_signals.confidence_html(view)
    assert [passed for _, _, passed in gauges(page)] == [False, True, True, True, True, True]
    alex, chris = gauge_of(page, "Alex", 1), gauge_of(page, "Chris", 1)
    assert '<div class="gauge-zone" style="left:90.0%;width:10.0%">' in alex  # passing: right of tau
    assert '<div class="gauge-mark" style="left:90.0%">' in alex and 'aria-valuemax="1.000"' in alex
    assert re.search(r"P\(right\) 0\.00 < 0\.90", text(alex)) and "(a high score passes)" in alex
    assert re.search(r"P\(right\) 0\.93 ≥ 0\.90", text(chris))
    assert 'class="gauge-fill" style="width:93.' in chris


def test_the_side_that_passes_follows_the_rule_or_else_the_verdict():
    fixed = measured("Alex", 0.8, 1.0, "nll_max < 2.5 and ent_max < 3.0", True)
    classifier = measured("Alex", 0.95, 0.9, "classifier P(right) >= 0.9", True)
    unsaid_high = measured("Alex", 0.8, 0.5, "a learned rule", True)
    unsaid_low = measured("Alex", 0.8, 0.5, "a learned rule", False)
    view = hand_made(fixed, classifier, unsaid_high, unsaid_low)
    assert [render_signals.higher_passes(g) for g in view.gauges] == [False, True, True, False]
    no_threshold = hand_made(measured("Alex", 2.0, None, "custom", False))
    page = render_signals.confidence_html(no_threshold)
    assert "gauge-mark" not in page and "score 2.00</span>" in page


# -- what each agent read -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["no_expand", "sid"])
def test_the_kept_spans_are_marked_at_their_offsets_and_the_dropped_text_greyed(variant):
    view = view_of(variant)
    page = render_signals.reading_html(view)
    assert [(c.agent, c.round) for c in view.readings] == [("Alex", 2), ("Chris", 2), ("Jenny", 2)]
    for reading in view.readings:
        drawn = reading_of(page, reading.agent, reading.round)
        marks = re.findall(r'<mark class="kept" data-span="(\d+)-(\d+)">(.*?)</mark>', drawn, re.S)
        assert [(int(s), int(e)) for s, e, _ in marks] == [tuple(span) for span in reading.kept_spans]
        assert [html.unescape(m) for _, _, m in marks] == [reading.source_text[s:e] for s, e in reading.kept_spans]
        assert shown_text(drawn) == reading.source_text.strip()  # nothing lost or added between the pieces
        assert f"kept {100 * reading.ratio:.0f}% of the others' text (rho = 0.4, layers 0-3)" in text(drawn)  # Eq. 5
        assert " open>" in drawn  # the latest round is open
    alex = reading_of(page, "Alex", 2)
    if variant == "no_expand":  # bare tokens: text is dropped between them
        assert '<span class="dropped"> at what </span>' in alex and "kept 25%" in text(alex)
    else:  # widened to clauses: almost everything kept, only the line break between answers dropped
        assert alex.count('<span class="dropped">') == 1


def test_the_token_saving_is_the_running_total_of_what_the_recipients_did_not_read():
    cfg = config("no_expand")
    events = Debate(cfg, ScriptedBackend(SidDemo(cfg).reply)).run()
    view, totals = DebateView(), []
    for event in events:
        view.apply(event)
        if isinstance(event, ContextCompressed):
            totals.append(re.search(r'data-unread="(\d+)"', render_signals.reading_html(view))[1])
    expected = [0.0]
    for reading in view.readings:
        expected.append(expected[-1] + reading.source_tokens * (1 - reading.ratio))
    assert totals == [f"{v:.0f}" for v in expected[1:]] and int(totals[-1]) > int(totals[0]) > 0
    page = render_signals.reading_html(view)
    unread, given = render_signals.unread_tokens(view)
    assert given == 180 and f"Not read so far: ≈{unread:.0f} of 180 tokens ({100 * unread / given:.0f}%)" in text(page)
    assert "Approximate" in page
    assert render_signals.unread_tokens(view_of("sid"))[0] < unread  # widening keeps more


def test_everything_a_model_or_a_person_wrote_is_escaped_and_spans_are_clipped():
    source = f"\nChris: {HOSTILE}\nJenny: fine.\n"
    start = source.index("<script>")
    spans = ((start + 3, start + 20), (start + 10, start + 12), (len(source) - 7, len(source) + 50), (5, 5))
    event = ContextCompressed(
        seq=1, turn=2, public_tokens=0, at=0.0, agent='Al"ex<i>', round=2, source_text=source, source_tokens=40,
        kept_spans=spans, kept_text="kept", ratio=0.4, top_p=0.4,
    )  # fmt: skip
    signals = measured('Al"ex<i>', 9.0, 5.0, f"max <= {HOSTILE}", False)
    view = hand_made(event, signals)
    page = render_signals.reading_html(view) + render_signals.confidence_html(view)
    assert "<script>" not in page and "<img" not in page and "<i>" not in page
    drawn = re.search(r'<details class="reading".*?</details>', page, re.S)[0]
    assert 'data-agent="Al&quot;ex&lt;i&gt;"' in drawn
    marks = re.findall(r'<mark class="kept" data-span="(\d+)-(\d+)">', drawn)
    # the overlapping span is skipped, the one past the end clipped, the empty one dropped
    assert marks == [(str(start + 3), str(start + 20)), (str(len(source) - 7), str(len(source)))]
    assert shown_text(drawn) == source.lstrip()  # a kept span is drawn whole, its closing line break too
    assert html.escape(HOSTILE, quote=True) in page  # the rule, in the caption


def test_the_panels_are_absent_for_a_debate_without_signals_or_compressions():
    kimura_config = demo_config(seed=1, max_turns=3)
    kimura = DebateView.from_events(Debate(kimura_config, demo_backend(kimura_config)).run())
    for view in (kimura, view_of("mad"), DebateView()):
        assert render_signals.confidence_html(view) == "" and render_signals.reading_html(view) == ""
    compressed_only = view_of("compress")
    assert render_signals.confidence_html(compressed_only) == "" and render_signals.reading_html(compressed_only)


# -- a person at the table ---------------------------------------------------------------------------------------------
def form_updates(request):
    with gr.Blocks():
        form = seat_form.build_seat_form()
    shown = seat_form.updates(request, form)
    slots = shown[2:-1]
    names = [f"{kind}-{i}" for kind, count in seat_form.SLOTS.items() for i in range(count)]
    return shown, {name: update for name, update in zip(names, slots, strict=True) if update.get("visible")}


def test_the_set_up_form_offers_sid_its_variants_and_every_seat_without_roles():
    from tests.test_ui_view import form_fields

    variants = ["sid", "mad", "compress", "exit", "sid_c", "no_expand", "cot", "summary"]
    assert _protocol_chosen("sid")[0]["choices"] == variants
    assert _roles_info("sid", "sid") == "sid has no roles: every agent debates."
    seats = _human_choices("Alex, Chris, Jenny", "Chris", "sid", "sid")
    assert [value for _, value in seats["choices"][1:]] == list(NAMES) and seats["value"] == "Chris"
    assert all(label == value for label, value in seats["choices"])
    for human, variant in (("Alex", "exit"), ("Chris", "sid"), ("Jenny", "no_expand")):
        fields = form_fields(protocol="sid", condition=variant, agents="Alex, Chris, Jenny", human=human)
        built = config_from_form(fields)
        assert built.protocol == "sid" and built.variant == variant
        assert [a.name for a in built.agents if a.seat.value == "human"] == [human]


def test_a_seated_person_answers_revises_and_the_live_panels_show_what_they_read():
    cfg = config("sid", human="Chris")
    session = LiveSession(cfg, backend_for(SCRIPTED, cfg), human="Chris", pace_s=0).start()
    try:
        assert session.controls == "none"  # words only: no floor to ask for
        for kind in ("answer", "revise"):
            request = session.channel.pending(timeout_s=30)
            assert request is not None and request.kind == kind
            shown, slots = form_updates(request)
            assert shown[-1] == "" and set(slots) == {"text-0", "choice-0"}
            assert slots["text-0"]["label"] == "Your reasoning" and slots["choice-0"]["label"] == "Your answer"
            assert [value for _, value in slots["choice-0"]["choices"]] == ["A", "B", "C", "D"]
            values = [None] * sum(seat_form.SLOTS.values())
            values[0], values[seat_form.SLOTS["choice"] + seat_form.SLOTS["integer"]] = "B", f"Nitrogen. {HOSTILE}"
            session.channel.submit(request.request_id, seat_form.values(request, values))
        assert wait(lambda: session.done)
        view = session.view
        assert view.ended is not None and view.ended.final_answer == "B"
        page = render_signals.confidence_html(view)
        assert {agent for agent, _, _ in gauges(page)} == {"Alex", "Jenny"}  # a person has no signals
        reading = render_signals.reading_html(view)
        assert [c.agent for c in view.readings] == ["Alex", "Jenny"]
        assert "Chris (a person) read the others whole" in text(reading)
        assert "Chris: Nitrogen." in shown_text(reading_of(reading, "Alex", 2))  # compressed for the others
        assert "<script>" not in reading and "&lt;script&gt;" in reading
        with gr.Blocks():
            form = seat_form.build_seat_form()
        names = [
            f for f in LiveView.__dataclass_fields__ if f not in ("form", "plan_boxes", "panels", "groups", "answers")
        ]
        live_view = LiveView(
            **{name: name for name in names}, form=form, panels={"confidence": "confidence", "reading": "reading"}
        )
        pushed = dict(zip(live_view.outputs(), updates(session, Drawn(), live_view, plots=False), strict=True))
        assert pushed["confidence"] == page and pushed["reading"] == reading
        assert "Answers per round" in pushed["rounds"]
    finally:
        session.stop()


def test_the_reading_panel_shows_a_summary_recipients_summary():
    page = render_signals.reading_html(view_of("summary"))
    assert page.count('class="reading"') == 3 and "read a summary of the others' text" in page
    assert "checked the options; the answer is" in page and "<mark>" not in page
