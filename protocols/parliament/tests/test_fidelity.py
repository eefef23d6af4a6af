"""Parliament as its paper describes it (Hu, Yu and Zhou), by default; the authors' code and ours one value away.

Each test here backs a row of the fidelity ledger in ``protocols/parliament/docs.md``: the defaults,
the chunk rule of §3.2, the prompts' plain-text answer lines (App. A), what the critic reads, the
Socratic questions of §3.3, and that every request kind is reached by a scripted demo.
"""

from __future__ import annotations

import json

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, ScriptedBackend
from debate_core.config import Question
from debate_core.demo import DEMO_QUESTION
from debate_core.events import Intervention, UtteranceGenerated
from debate_core.kernel.chunkers import CharRuleChunker
from debate_core.protocols import protocol_class
from protocols.parliament.catalogue import parliament_forms
from protocols.parliament.demo import ParliamentDemo
from protocols.parliament.params import ParliamentParams
from protocols.parliament.views import RoleView
from tests.conftest import QUESTION, of_type

AGENTS = (AgentSpec(name="Gov"), AgentSpec(name="Opp"))


def demo(variant: str, question: Question = DEMO_QUESTION, **params):
    agents = (AgentSpec(name="Solo"),) if variant == "cot" else AGENTS
    cfg = DebateConfig(question=question, agents=agents, protocol="parliament", variant=variant, params=params)
    backend = ScriptedBackend(ParliamentDemo(cfg).reply)
    return Debate(cfg, backend).run(), backend


def test_the_defaults_are_the_papers_and_the_codes_forms_are_one_value_away():
    params = ParliamentParams()
    assert (params.resume, params.socratic_mode, params.critic_sees, params.reply_format) == (
        "regenerate", "streaming", "chunk", "lines"
    )  # fmt: skip
    assert (params.max_chars, params.min_chars, params.enders) == (120, 40, ".?!")
    assert (params.speech_sentences, params.poi_reply_sentences, params.critique_sentences) == ((4, 7), 3, 5)
    assert (params.congress_rounds, params.socratic_rounds, params.poi_cap, params.context_to_critic) == (
        2, 1, None, False
    )  # fmt: skip
    code = ParliamentParams(resume="continue", socratic_mode="turns")
    assert (code.resume, code.socratic_mode) == ("continue", "turns")
    assert protocol_class("parliament").variants == ("british", "congress", "socratic", "cot")


def test_a_chunk_closes_past_120_characters_or_past_40_at_a_sentence_end():
    rule = CharRuleChunker()
    forty = "x" * 38 + "y."  # 40 characters ending with a period: not past 40, the chunk goes on
    assert rule.split(f"{forty} and more words after it.") == (f"{forty} and more words after it.",)
    assert rule.split("z" + forty + " Next one.") == ("z" + forty, "Next one.")  # 41 at a period: closes
    long = " ".join(["word"] * 30)  # no sentence end: closes at the first piece past 120 characters
    first = rule.split(long)[0]
    assert len(first) > 120 and len(first) - len(" word") <= 120
    assert {rule.split(f"{'q' * 45}{end} rest")[0][-1] for end in ".?!"} == {".", "?", "!"}


def _view(**fields) -> RoleView:
    values = {"agent": "Gov", "role": "prover", "title": "Government", "other": "Opposition", "question": QUESTION}
    return RoleView(**{**values, **fields})


@pytest.mark.parametrize("reply_format", ["lines", "json"])
def test_the_prompts_ask_for_the_papers_answer_lines_and_json_is_an_option(reply_format):
    forms = parliament_forms(ParliamentParams(reply_format=reply_format)).by_kind()
    streamed = {"streamed_opening", "streamed_answer", "resume", "revise_rest"}  # plain text in either format
    for kind, form in forms.items():
        view = _view(speech="Beta is second.", chunk="Beta is second.", point="Why?", reply="Because.")
        prompt = form.render(view)[-1].content
        asks_json = "JSON" in prompt
        assert asks_json is (reply_format == "json" and kind not in streamed), kind
        assert (form.schema(view) is not None) is asks_json, kind
    opening = forms["streamed_opening"].render(_view())[-1].content
    assert "4 to 7 sentences" in opening and opening.rstrip().endswith('Proposed Answer: "A" or "B" or "C" or "D"')
    check = forms["poi_check"].render(_view(chunk="Beta is second."))[-1].content
    assert ("INTERRUPT: <one short sentence" in check) is (reply_format == "lines")


def test_a_reply_is_read_the_same_in_either_format():
    for reply_format in ("lines", "json"):
        forms = parliament_forms(ParliamentParams(reply_format=reply_format))
        view = _view()
        lines = forms.closing.parse("Gamma is third.\nOpposition Proposed Answer: SAME", view)[0]
        jsoned = forms.closing.parse(json.dumps({"speech": "Gamma is third.", "answer": "SAME"}), view)[0]
        assert lines.answer == jsoned.answer == "SAME"
        check = forms.poi_check.parse("INTERRUPT: Gamma is third.", view)[0]
        assert (check.interrupt, check.text) == (True, "Gamma is third.")
        assert forms.final.parse("Final Answer: B", view)[0].answer == "B"


def test_the_critics_closing_reads_the_speech_as_said_not_the_exchanges():
    events, backend = demo("british")
    closing = next(r for r in backend.requests if r.kind == "closing").messages[-1].content
    point = of_type(events, Intervention)[0]
    reply = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "poi_reply")
    assert "Measured by volume, nitrogen comes first" in closing  # the speech, as it was said
    assert point.text not in closing and reply.text not in closing
    assert "A gas produced on that scale" not in closing  # never said


def test_the_question_goes_to_the_prover_and_not_to_the_critic_unless_asked():
    given = Question(text=QUESTION.text, options=QUESTION.options, answer="B", context="The Greek alphabet: ...")
    for to_critic in (False, True):
        _, backend = demo("british", given, context_to_critic=to_critic)
        prover = next(r for r in backend.requests if r.kind == "streamed_opening").messages[-1].content
        critic = next(r for r in backend.requests if r.kind == "poi_check").messages[-1].content
        assert "The Greek alphabet" in prover and ("The Greek alphabet" in critic) is to_critic


def test_socratic_questions_come_while_the_student_answers_and_never_take_the_floor():
    events, backend = demo("socratic")
    [question] = of_type(events, Intervention)
    assert (question.kind, question.blocking) == ("question", False)
    answer = next(u for u in of_type(events, UtteranceGenerated) if u.kind == "answer")
    assert answer.streaming and question.utterance_id == answer.utterance_id
    revise = next(r for r in backend.requests if r.kind == "revise_rest")
    assert question.text in revise.messages[-1].content and events[-1].final_answer == "B"


def test_every_request_kind_is_asked_by_a_scripted_demo_with_the_defaults_or_the_one_option_that_uses_it():
    declared = set(parliament_forms(ParliamentParams()).by_kind())
    runs = [
        ("british", {}),
        ("british", {"resume": "continue"}),
        ("congress", {}),
        ("socratic", {}),
        ("socratic", {"socratic_mode": "turns"}),
        ("cot", {}),
    ]
    asked: dict[tuple[str, str], set[str]] = {}
    for variant, params in runs:
        _, backend = demo(variant, **params)
        asked[(variant, ",".join(params))] = {r.kind for r in backend.requests}
    assert set().union(*asked.values()) == declared
    defaults = asked[("british", "")] | asked[("socratic", "")]
    assert {"resume", "question_check", "revise_rest", "poi_check", "streamed_opening"} <= defaults


def test_each_request_is_capped_at_its_kinds_tokens_and_the_largest_cap_is_as_good_as_none():
    events, backend = demo("british")
    cap = events[0].config.max_new_tokens
    caps = {r.kind: r.sampling.max_new_tokens for r in backend.requests}
    assert caps["closing"] == min(cap, 400) and caps["poi_reply"] == min(cap, 160) and caps["final"] == min(cap, 48)
    assert caps["streamed_opening"] == caps["resume"] == 16  # the step of a streamed speech (stream_tokens)
    loose = ParliamentParams(speech_tokens=8_192, reply_tokens=4_096)
    forms = parliament_forms(loose)
    config = DebateConfig(question=QUESTION, max_new_tokens=8_192)
    assert forms.closing.token_cap(config) == 8_192 and forms.poi_reply.token_cap(config) == 4_096


def test_the_papers_model_is_an_option_of_the_comparison():
    from experiments.cli import build_parser
    from experiments.compare_cli import model_label

    argv = ["compare", "--experiment", "x", "--backend", "openai", "--model", "gpt-4o-mini"]
    args = build_parser().parse_args([*argv, "--base-url", "https://api.openai.com/v1"])
    assert model_label(args) == "openai:gpt-4o-mini"
    default = build_parser().parse_args(["compare", "--experiment", "x"])
    assert (default.backend, default.model) == ("transformers", None)  # the embedded model, offline


def test_a_small_model_is_given_json_replies_and_the_paper_keeps_its_lines():
    """The paper's plain answer lines stay the default; a tiny model (SmolLM2-135M) cannot write them, so
    Parliament recommends reply_format=json for small models, which the web app writes into the parameters
    field when the embedded model is chosen and the terminal's --small-model sets."""
    from console.cli import build_parser, config_from_args
    from debate_core.protocols.registry import small_model_params
    from ui.model_presets import SMALL_MODELS, default_params, model_chosen
    from ui.session import SCRIPTED
    from ui.setup_panel import _protocol_chosen

    tiny = SMALL_MODELS[0]  # the app's embedded-model choice (no model is loaded here)
    assert ParliamentParams().reply_format == "lines"
    assert small_model_params("parliament") == {"reply_format": "json"}
    *_, chosen = model_chosen(tiny, "parliament", default_params("parliament"))
    assert json.loads(chosen["value"])["reply_format"] == "json" and 'reply_format="json"' in chosen["label"]
    *_, back = model_chosen(SCRIPTED, "parliament", chosen["value"])
    assert json.loads(back["value"])["reply_format"] == "lines"
    assert json.loads(_protocol_chosen("parliament", tiny)[1]["value"])["reply_format"] == "json"
    args = build_parser().parse_args(["run", "--protocol", "parliament", "--variant", "british", "--small-model"])
    config = config_from_args(args)
    assert config.params["reply_format"] == "json"
    backend = ScriptedBackend(ParliamentDemo(config).reply)
    events = Debate(config, backend).run()
    checks = [r for r in backend.requests if r.kind == "poi_check"]
    assert checks and all(r.json_schema is not None and "JSON" in r.messages[-1].content for r in checks)
    assert events[-1].final_answer == "B"
