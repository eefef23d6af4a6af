"""What a model is shown: Table I's information, rendered from the template files."""

from __future__ import annotations

import itertools

from debate_core.config import AgentSpec, DebateConfig, Question
from debate_core.events import Action, ActionPlan
from debate_core.kernel.history import HistoryLine, LineKind
from protocols.kimura.plans import WHEN_FLOOR_FREE, WHEN_FLOOR_HELD
from protocols.kimura.prompting import PromptBuilder
from protocols.kimura.views import AgentView, InitialAnswerView, UtteranceView

QUESTION = Question(text="Costs $5 or {x}?", options=("${tokens_left}", "{name}"), answer="A")


def view(**changes) -> AgentView:
    values = dict(
        agent="Alex",
        persona="",
        members=("Alex", "Chris"),
        question=QUESTION,
        turn=4,
        token_budget=500,
        tokens_left=321,
        initial_answers=(InitialAnswerView("Alex", "A", "cheap"), InitialAnswerView("Chris", None, "")),
        turn_log=(
            HistoryLine(turn=1, kind=LineKind.SPEECH, speaker="Chris", text="First point."),
            HistoryLine(turn=2, kind=LineKind.SILENCE),
            HistoryLine(turn=3, kind=LineKind.SPEECH, speaker="Alex", text="No!", interrupting="Chris", finished=True),
        ),
        previous_thoughts=((2, "Chris may be wrong."),),
        last_event=HistoryLine(turn=4, kind=LineKind.SPEECH, speaker="Chris", text="Second point."),
        allowed=WHEN_FLOOR_HELD,
        floor_holder="Chris",
        current_answer="A",
    )
    values.update(changes)
    return AgentView(**values)


def test_plan_prompt_carries_every_table_one_field():
    (message,) = PromptBuilder().plan_messages(view())
    text = message.content
    assert message.role == "user"
    assert "You are Alex." in text
    assert "321 / 500" in text and "500 tokens" in text  # token_budget and tokens_left
    assert "Alex: answer A. Reason: cheap" in text and "Chris: answer (no answer)" in text
    assert "Turn 1 Chris: First point." in text
    assert "Turn 2: (silence, no one spoke)" in text
    assert "Turn 3 Alex (interrupting Chris): No! [Alex has finished speaking.]" in text
    assert "Turn 2: Chris may be wrong." in text  # previous thoughts
    assert "## Event of this turn\nTurn 4 Chris: Second point." in text
    assert "This is turn 4." in text


def test_actions_offered_follow_the_floor_state():
    held = PromptBuilder().plan_messages(view())[0].content
    assert "'interrupt'" in held and "'speak'" not in held
    assert '"interrupt" | "listen"' in held  # the floor-taking action is offered first
    free = PromptBuilder().plan_messages(view(allowed=WHEN_FLOOR_FREE, floor_holder=None))[0].content
    assert "'speak'" in free and "'interrupt'" not in free


def test_agent_text_is_inserted_verbatim_never_interpreted():
    text = PromptBuilder().plan_messages(view())[0].content
    assert "Costs $5 or {x}?" in text
    assert "A) ${tokens_left}" in text and "B) {name}" in text


def test_persona_becomes_the_system_message():
    messages = PromptBuilder().plan_messages(view(persona="You doubt everything."))
    assert [m.role for m in messages] == ["system", "user"]
    assert messages[0].content == "You are Alex. You doubt everything."


def test_whole_message_conditions_describe_their_disclosure_rule():
    sentences = PromptBuilder().plan_messages(view())[0].content
    whole = PromptBuilder(whole_messages=True).plan_messages(view())[0].content
    assert "one chunk at a time" in sentences
    assert "whole statement is revealed" in whole


def test_interrupter_is_told_whom_it_interrupts_and_what_was_said():
    plan = ActionPlan(thought="Wrong premise.", action=Action.INTERRUPT, urgency=8, purpose="correct", answer="A")
    uview = UtteranceView(
        base=view(allowed=()),
        history=view().turn_log,
        plan=plan,
        interrupting="Chris",
        interrupted_text="Second point.",
    )
    text = PromptBuilder().utterance_messages(uview)[0].content
    assert 'You are interrupting Chris, who had said so far: "Second point."' in text
    assert "Thought: Wrong premise." in text


def test_config_defaults_render_a_paper_style_question():
    config = DebateConfig(question=QUESTION, agents=(AgentSpec(name="A1"), AgentSpec(name="B2")))
    assert config.question.render().splitlines()[1:] == ["A) ${tokens_left}", "B) {name}"]


def test_cached_layout_only_appends_between_turns():
    from debate_core import Debate
    from protocols.kimura.demo import demo_backend, demo_config

    config = demo_config(params={"prompt_layout": "cached"}, seed=1, token_budget=400)
    backend = demo_backend(config)
    Debate(config, backend).run()
    prompts = [r.messages[-1].content for r in backend.requests if r.kind == "plan" and r.agent == "Chris"]
    assert len(prompts) > 10
    for before, after in itertools.pairwise(prompts):
        stable = before.split("## Now")[0].rstrip("\n")
        assert after.startswith(stable)  # everything but the short volatile part is reused
        assert len(before) - len(stable) < 400


def test_paper_layout_keeps_algorithm_one_order():
    text = PromptBuilder().plan_messages(view())[0].content
    order = [
        "## Question",
        "## Debate rules",
        "## Initial answers",
        "## Debate history",
        "## Your memory",
        "## Event of this turn",
        "## State",
        "# Actions",
        "# Instructions",
    ]
    positions = [text.index(heading) for heading in order]
    assert positions == sorted(positions)
