"""What a model, a person or a file sends can crash no debate, lose no turn and write nowhere else (issue #11).

Each test reproduces one case found by probing the engine from outside; each failed before
its fix (on commit c2695e5, the release the probing was done on).
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from debate_core import AgentSpec, Debate, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.errors import BackendError, ConfigError, HumanInputError
from debate_core.events import DebateEnded, InitialAnswersGiven, PlansMade, UnitDisclosed, UtteranceGenerated
from debate_core.kernel import sentence_rules
from debate_core.kernel.forms import FormInvalid
from debate_core.kernel.policies import Decision, decision_form, parse_decision
from storage import Store
from tests.conftest import SentenceSplitter, build_script_backend, make_config, of_type, plan_json

DEEP = "[" * 5_000 + "]" * 5_000
HUGE_NUMBER = "9" * 5_000
SURROGATE = "bad \udcff byte?"


def run(config, backend, **kwargs):
    return Debate(config, backend, segmenter=kwargs.pop("segmenter", SentenceSplitter()), **kwargs).run()


# -- 1, 3, 4, 8: what a model sends ------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        '{"thought": ' + DEEP + ', "action": "listen", "urgency": 1, "purpose": "", "answer": "A"}',
        '{"thought": "t", "action": "listen", "urgency": ' + HUGE_NUMBER + ', "purpose": "", "answer": "A"}',
        DEEP,
        '```json\n{"a": ' + DEEP + "}\n```",
    ],
    ids=["nested-5000", "int-5000-digits", "bare-nesting", "fenced-nesting"],
)
def test_unreadable_json_in_a_plan_is_an_invalid_plan_not_a_crash(raw):
    events = run(make_config(max_turns=2), build_script_backend({(1, "Chris"): raw}))
    record = next(p for p in of_type(events, PlansMade)[1].plans if p.agent == "Chris")
    assert not record.valid and "unreadable JSON" in (record.error or "")
    assert isinstance(events[-1], DebateEnded)


def test_unreadable_json_in_an_initial_answer_is_an_invalid_answer():
    def respond(request):
        if request.kind == "initial_answer":
            return '{"reason": ' + DEEP + ', "answer": "B"}'
        return plan_json("listen", 0, "B")

    events = run(make_config(max_turns=1), ScriptedBackend(respond))
    answers = of_type(events, InitialAnswersGiven)[0].answers
    assert all(not a.valid and "unreadable JSON" in (a.error or "") for a in answers)


def test_half_an_emoji_in_a_valid_plan_is_stored_not_lost(tmp_path):
    raw = '{"thought": "smile \\ud83d here", "action": "speak", "urgency": 5, "purpose": "p\\udfff", "answer": "B"}'
    backend = build_script_backend({(0, "Alex"): raw}, {"Alex": ["One. Two."]})
    store = Store(tmp_path / "s.sqlite3")
    events = list(store.record(Debate(make_config(max_turns=3), backend, segmenter=SentenceSplitter()).events()))
    record = next(p for p in of_type(events, PlansMade)[0].plans if p.agent == "Alex")
    assert record.valid and record.plan.thought == "smile \ufffd here" and record.plan.purpose == "p\ufffd"
    assert store.debate(events[0].debate_id).status == "finished"
    assert store.events(events[0].debate_id) == events
    store.close()


def test_a_million_character_utterance_is_cut_and_the_debate_goes_on(real_segmenter):
    huge = "word " * 250_000  # 1,250,000 characters on one line
    backend = build_script_backend({(0, "Alex"): ("floor", 7, None)}, {"Alex": [huge]})
    events = run(make_config(max_turns=2), backend, segmenter=real_segmenter)
    generated = of_type(events, UtteranceGenerated)[0]
    assert len(generated.text) == 20_000 and "cut to its first 20,000 characters" in (generated.error or "")
    assert of_type(events, UnitDisclosed) and isinstance(events[-1], DebateEnded)


def test_an_utterance_of_fifty_thousand_lines_is_cut_and_disclosed(real_segmenter):
    lines = "\n".join(f"Line {n}." for n in range(50_000))
    backend = build_script_backend({(0, "Alex"): ("floor", 7, None)}, {"Alex": [lines]})
    events = run(make_config(max_turns=2), backend, segmenter=real_segmenter)
    generated = of_type(events, UtteranceGenerated)[0]
    assert generated.units[0] == "Line 0." and len(generated.units) > 1_000
    assert isinstance(events[-1], DebateEnded)


@pytest.mark.parametrize("output", [None, 42, b"bytes", ["list"]], ids=["none", "int", "bytes", "list"])
def test_a_backend_that_returns_no_text_ends_the_debate_with_its_error(output):
    events: list = []
    with pytest.raises(BackendError, match="not text"):
        for event in Debate(make_config(), ScriptedBackend(lambda r: output)).events():
            events.append(event)
    assert isinstance(events[-1], DebateEnded) and events[-1].reason.value == "error"


# -- 2, 8: what a person sends -------------------------------------------------------------------------


def human_debate(values_for):
    """A debate with a person in Hana's seat who answers each request with ``values_for(request)``."""
    config = make_config(
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Hana", seat=SeatKind.HUMAN)),
        max_turns=3,
    )
    channel = HumanChannel()
    refusals: list[str] = []

    def play():
        seen = set()
        while (request := channel.pending(timeout_s=10)) is not None:
            if request.request_id in seen:
                continue
            seen.add(request.request_id)
            for values in values_for(request):
                try:
                    channel.submit(request.request_id, values)
                    break
                except HumanInputError as error:
                    refusals.append(str(error))

    player = threading.Thread(target=play, daemon=True)
    player.start()
    backend = build_script_backend({(0, "Alex"): ("floor", 3, None)}, {"Alex": ["Alpha first. Then more."]})
    events = run(config, backend, seats={"Hana": HumanSeat("Hana", channel, timeout_s=10)})
    channel.close()
    player.join(5)
    return events, refusals


def test_lone_surrogates_from_a_person_are_cleaned_everywhere_they_can_be_typed(tmp_path):
    def values_for(request):
        if request.kind == "initial_answer":
            return [{"answer": "B", "reason": SURROGATE}]
        if request.kind == "plan":
            if request.view.turn == 1:
                return [
                    {"action": "interrupt", "urgency": 9, "answer": "b\udcff", "purpose": SURROGATE},
                    {"action": "interrupt", "urgency": 9, "answer": "b", "purpose": SURROGATE},
                ]
            return [{"action": "listen", "urgency": 0, "thought": SURROGATE, "purpose": SURROGATE}]
        return [{"text": SURROGATE + " And more."}]

    events, refusals = human_debate(values_for)
    assert refusals == ["answer 'b\ufffd' is not one of A, B, C, D"]
    said = [e.text for e in of_type(events, UnitDisclosed) if e.speaker == "Hana"]
    assert said and said[0] == "bad \ufffd byte?"
    store = Store(tmp_path / "s.sqlite3")
    assert list(store.record(iter(events))) == events
    assert store.events(events[0].debate_id) == events
    store.close()


@pytest.mark.parametrize("value", [7, 1.5, ["a"], {"a": 1}, True, b"bytes"], ids=lambda v: type(v).__name__)
def test_a_person_who_sends_no_text_where_text_belongs_is_told_so(value):
    def values_for(request):
        if request.kind == "plan" and request.view.turn == 0:
            return [{"action": "speak", "urgency": 9, "thought": value}, {"action": "speak", "urgency": 9}]
        if request.kind == "utterance":
            return [{"text": value}, {"text": "Fine. Beta."}]
        if request.kind == "initial_answer":
            return [{"answer": "B", "reason": value}, {"answer": "B"}]
        return [{}]

    events, refusals = human_debate(values_for)
    assert any("reason must be text" in r for r in refusals)
    assert any("thought must be text" in r for r in refusals)
    assert any("message must be text" in r for r in refusals)
    assert "Fine." in [e.text for e in of_type(events, UnitDisclosed)]


# -- 6, 9: ids ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("debate_id", ["../victim/planted", "/abs/path", "", "a\x00b", "x" * 10_000, ".hidden"])
def test_a_debate_id_must_be_safe(debate_id):
    with pytest.raises(ConfigError, match="debate id"):
        Debate(make_config(), build_script_backend(), debate_id=debate_id)


def test_ids_that_differ_only_in_case_are_told_apart(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    for debate_id in ("abc1", "ABC1"):
        list(store.record(Debate(make_config(max_turns=1), build_script_backend(), debate_id=debate_id).events()))
    assert store.find("abc") == "abc1" and store.find("AB") == "ABC1"
    store.close()


def test_an_export_without_a_file_name_stays_in_the_folder_it_is_run_in(tmp_path):
    from storage.transfer import safe_file_name

    assert safe_file_name("../victim/planted", ".json") == "victim_planted.json"
    assert safe_file_name("..", ".json") == "debate.json"
    assert "/" not in safe_file_name("a/b\\c", ".json")


# -- 7: the storage command line ------------------------------------------------------------------------


def run_storage(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m storage ARGS``, run by its ``main`` in this process (a process per call costs a second)."""
    from storage.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exited:  # what argparse's errors end in, as the command line does
            code = 0 if exited.code is None else exited.code if isinstance(exited.code, int) else 1
    return subprocess.CompletedProcess(["storage", *args], code, out.getvalue(), err.getvalue())


def test_list_since_keeps_an_explicit_offset_and_refuses_nonsense(tmp_path):
    db = tmp_path / "s.sqlite3"
    store = Store(db)
    events = list(store.record(Debate(make_config(max_turns=1), build_script_backend()).events()))
    created = store.debate(events[0].debate_id).created_at
    store.close()
    from datetime import timedelta, timezone

    plus5 = created.astimezone(timezone(timedelta(hours=5)))
    before = (plus5 - timedelta(minutes=1)).isoformat()
    after = (plus5 + timedelta(minutes=1)).isoformat()
    assert "1 debate(s)" in run_storage("--db", str(db), "list", "--since", before).stdout
    assert "0 debate(s)" in run_storage("--db", str(db), "list", "--since", after).stdout
    for bad in (["--since", "yesterday"], ["--since", "2026-13-45"], ["--limit", "1e30"], ["--limit", "0"]):
        result = run_storage("--db", str(db), "list", *bad)
        assert result.returncode == 2 and "Traceback" not in result.stderr and "error:" in result.stderr


def test_importing_json_nonsense_from_the_command_line_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "interruptible-debate", "schema_version": 2, "events": [{"seq": "0"}]}))
    result = run_storage("--db", str(tmp_path / "s.sqlite3"), "import", str(bad))
    assert result.returncode == 1 and "error:" in result.stdout and "Traceback" not in result.stderr
    result = run_storage("--db", str(tmp_path / "s.sqlite3"), "import", str(tmp_path))
    assert result.returncode == 1 and "cannot read" in result.stdout


# -- the hostile-probe round after #11: listener replies, rescans of long text -------------------------------------
LISTENER_REPLY = st.one_of(
    st.text(st.characters(codec=None, exclude_categories=()), max_size=60),
    st.text(alphabet=st.sampled_from(":{} \n\tyesnoINTERRUPT.*\"'`"), max_size=30),
    st.tuples(st.sampled_from(["", " ", ":", "::", "{", "yes", "NO", "interrupt"]), st.text(max_size=20)).map("".join),
)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(raw=LISTENER_REPLY, with_text=st.booleans())
def test_any_listener_reply_is_a_decision_or_the_documented_fallback(raw, with_text):
    """``parse_decision`` answers or refuses (``FormInvalid``, whose fallback is not to interrupt); nothing else."""
    form = decision_form("listen", "cut now?", lambda view: (), with_text=with_text)
    try:
        decision = parse_decision(raw, with_text)
    except FormInvalid:
        assert form.fallback(None) == Decision(False)
        return
    assert isinstance(decision, Decision) and isinstance(decision.interrupt, bool)
    assert decision.text is None or (decision.interrupt and isinstance(decision.text, str))
    assert form.parse(raw, None) == (decision, None)


@pytest.mark.parametrize("raw", [":", " : yes", ":\n", "::", ":{"])
def test_a_listener_reply_starting_with_a_colon_is_refused_not_a_crash(raw):
    for with_text in (False, True):
        with pytest.raises(FormInvalid, match="expected yes or no"):
            parse_decision(raw, with_text)


def _option_boundaries_by_rescan(masked: str) -> list[int]:
    """The option-letter rule as first written: the text before each match sliced and split again."""
    cuts = []
    for match in sentence_rules._OPTION.finditer(masked):
        before = masked[: match.start()].rstrip()
        word = before.split()[-1] if before.split() else ""
        bare = word.strip("*_\"'(").lower()
        if (
            word.endswith(":")
            or bare in sentence_rules._OPTION_WORDS
            or (word[:1].islower() and bare.rstrip(",;") not in sentence_rules._NOT_BEFORE and word[-1:].isalpha())
        ):
            cuts.append(match.end())
    return cuts


OPTION_PIECES = ["A.", "B. ", " ", "answer ", "is ", "(", "*", "C.", "Oxygen", "\u00a0", "\t", "by ", "x:", "J. "]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(pieces=st.lists(st.sampled_from(OPTION_PIECES), max_size=14))
def test_option_letters_end_sentences_as_before_without_rescanning_the_line(pieces):
    masked = "".join(pieces)
    assert sentence_rules._option_boundaries(masked) == _option_boundaries_by_rescan(masked)


STANCE_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(st.characters(codec=None, exclude_categories=()), max_size=40),
    st.sampled_from(["interrupt", "raise", "listen", " Listen ", "\ud800", "x" * 3_000, "B"]),
    st.integers(4_301, 6_000).map(lambda n: 10**n),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(values=st.dictionaries(st.sampled_from(["intent", "urgency", "answer", "point", "mood"]), STANCE_VALUE))
def test_whatever_the_live_controls_send_the_stance_holds_only_clean_bounded_values(values):
    channel = HumanChannel()
    try:
        stance = channel.set_stance(**values)
    except HumanInputError:
        assert channel.stance() == {}  # refused: nothing changed
        return
    assert set(stance) <= {"intent", "urgency", "answer", "point"}
    assert stance.get("intent", "listen") in ("listen", "interrupt", "raise")
    assert stance.get("urgency", 0) in range(10) and not isinstance(stance.get("urgency"), bool)
    for key in ("answer", "point"):
        text = stance.get(key, "")
        assert isinstance(text, str) and text == text.strip() and len(text) <= 2_000
        text.encode("utf-8")  # storable: no lone surrogate
        assert "\x00" not in text
