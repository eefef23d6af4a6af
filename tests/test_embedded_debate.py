"""A whole debate on the embedded SmolLM2-135M (moved verbatim from test_transformers_backend.py).

It runs the engine end to end on the real (tiny) model, on the CPU, offline.
"""

from __future__ import annotations

import pytest

from debate_core import AgentSpec, Debate, DebateConfig, Question
from debate_core.backends.hf import TransformersBackend
from debate_core.events import DebateEnded, InitialAnswersGiven, PlansMade, UnitDisclosed

LABELS = ("A", "B", "C", "D")
BUDGET = 60  # public tokens: seven to ten turns, enough for speech, interruptions and prefix reuse (bounded by tokens)
MMLU_STYLE = Question(
    text="Which of the following is the body cavity that contains the pituitary gland?",
    options=("Abdominal", "Cranial", "Pleural", "Spinal"),
    answer="B",
)


@pytest.fixture(scope="module")
def backend() -> TransformersBackend:
    return TransformersBackend()


def test_three_agent_interruptible_debate_on_the_embedded_model(backend):
    config = DebateConfig(
        question=MMLU_STYLE,
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name="Jenny")),
        condition="interruptible",
        token_budget=BUDGET,
        seed=3,
        params={"utterance_max_new_tokens": 40, "prompt_layout": "cached"},
    )
    events = Debate(config, backend).run()
    end = events[-1]
    assert isinstance(end, DebateEnded)
    assert end.final_answer in LABELS
    assert end.reason.value in ("budget", "silence")
    initial = next(e for e in events if isinstance(e, InitialAnswersGiven))
    assert all(answer.valid and answer.answer in LABELS for answer in initial.answers)
    records = [record for e in events if isinstance(e, PlansMade) for record in e.plans]
    assert records and all(record.valid for record in records), [r.error for r in records if not r.valid]
    if end.reason.value == "budget":
        assert any(isinstance(e, UnitDisclosed) for e in events)
        assert end.public_tokens >= BUDGET
    # the public budget is counted with the model's tokenizer
    for event in events:
        if isinstance(event, UnitDisclosed):
            assert event.tokens == backend.count_tokens(event.text)
    # prefix reuse was at work on the plan prompts
    assert end.stats.cached_prompt_tokens > end.stats.prompt_tokens / 2
