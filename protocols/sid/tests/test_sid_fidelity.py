"""SID's ledger rows that no other test showed: the study's seats, each round's input, the probe's order, the cap."""

from __future__ import annotations

from debate_core.events import UtteranceGenerated
from experiments.compare import agents_for
from protocols.sid.tests.test_sid import Recording, config, run
from tests.conftest import of_type

FOCUS = "Identify the key points where the other agents disagree with your own reasoning"


def test_a_study_seats_three_agents_for_every_variant():
    for variant in ("sid", "mad", "compress", "exit", "no_expand"):
        assert len(agents_for("sid", variant)) == 3  # n = 3 agents, as the paper and Du et al.


def test_round_one_sees_the_query_alone_and_a_revision_the_query_its_own_answer_and_the_others():
    cfg = config("mad")
    script = Recording(cfg)
    events = run(cfg, script)
    said = {(e.speaker, e.kind): e.text for e in of_type(events, UtteranceGenerated)}
    first = next(r for r in script.requests if r.kind == "answer").messages[-1].content
    assert cfg.question.text in first and "Your previous answer" not in first and "other agents" not in first
    alex = next(r for r in script.requests if r.kind == "revise" and r.agent == "Alex").messages[-1].content
    own, chris, jenny = said[("Alex", "answer")], said[("Chris", "answer")], said[("Jenny", "answer")]
    assert alex.index(cfg.question.text) < alex.index(own) < alex.index(chris) and jenny in alex  # Eq. 1's order


def test_the_probe_puts_the_papers_focus_prompt_between_the_own_answer_and_the_others():
    cfg = config("compress")
    script = Recording(cfg)
    events = run(cfg, script)
    said = {(e.speaker, e.kind): e.text for e in of_type(events, UtteranceGenerated)}
    probe = next(r for r in script.requests if r.kind == "focus" and r.agent == "Alex").messages[-1].content
    own, other = said[("Alex", "answer")], said[("Chris", "answer")]
    assert probe.index(own) < probe.index(FOCUS) < probe.index(other)  # Eq. 4: Q || y_own || [PROMPT] || others


def test_answers_are_capped_by_answer_tokens():
    cfg = config("mad", answer_tokens=64)
    script = Recording(cfg)
    run(cfg, script)
    assert {r.sampling.max_new_tokens for r in script.requests} == {64}
