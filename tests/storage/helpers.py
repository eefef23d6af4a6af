"""Helpers for the storage tests: recorded debates and row counts."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import text

from debate_core import Debate, DebateConfig, Question
from debate_core.events import Event
from protocols.kimura.demo import demo_backend, demo_config
from storage import Store
from storage.models import Base
from tests.conftest import SentenceSplitter, build_script_backend, make_config

TABLES = (*(table.name for table in Base.metadata.sorted_tables), "alembic_version")


def record_demo(store: Store, *, experiment_id: str | None = None, **overrides: Any) -> list[Event]:
    """Run the scripted demo debate (fast splitter) through ``store`` and return its events."""
    config = demo_config(**overrides)
    debate = Debate(config, demo_backend(config), segmenter=SentenceSplitter())
    return list(store.record(debate.events(), experiment_id=experiment_id))


def record_quick(
    store: Store,
    *,
    question: str = "Which option names the second letter of the Greek alphabet?",
    answer: str = "B",
    condition: str = "interruptible",
    clock: Callable[[], float] | None = None,
    experiment_id: str | None = None,
) -> list[Event]:
    """A short debate in which every agent answers ``answer`` and nobody speaks.

    It ends after two silent turns with final answer ``answer``; the question's
    correct answer is B, so ``answer="A"`` gives an incorrect debate.
    """
    config: DebateConfig = make_config(
        question=Question(text=question, options=("Alpha", "Beta", "Gamma", "Delta"), answer="B"),
        condition=condition,
        max_silent_turns=2,
    )
    backend = build_script_backend(initial={"Alex": answer, "Chris": answer, "Jenny": answer})
    kwargs: dict[str, Any] = {"clock": clock} if clock is not None else {}
    debate = Debate(config, backend, segmenter=SentenceSplitter(), **kwargs)
    return list(store.record(debate.events(), experiment_id=experiment_id))


def row_counts(store: Store) -> dict[str, int]:
    """Rows in every table of the store."""
    with store.engine.connect() as connection:
        return {table: connection.execute(text(f'SELECT COUNT(*) FROM "{table}"')).scalar_one() for table in TABLES}


def failing_script() -> list[str]:
    """Initial answers and turn-0 plans for three agents, one utterance, then nothing."""
    initial = [json.dumps({"reason": "first thought", "answer": "A"})] * 3
    plans = [
        json.dumps({"thought": "", "action": "speak", "urgency": 5, "purpose": "open", "answer": "A"}),
        json.dumps({"thought": "", "action": "listen", "urgency": 1, "purpose": "hear", "answer": "A"}),
        json.dumps({"thought": "", "action": "listen", "urgency": 1, "purpose": "hear", "answer": "A"}),
    ]
    return [*initial, *plans, "I say A. It is the first letter. That is all."]
