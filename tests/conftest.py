"""Shared test helpers and fixtures.

* ``build_script_backend``: a ``ScriptedBackend`` driven by small tables: plans per
  ``(turn, agent)``, utterances per speaker, initial answers per agent.
* ``SentenceSplitter``: a fast, deterministic segmenter (no spaCy) for rule tests.
* ``make_config`` / ``run``: a small debate set-up and a one-call runner.
* ``of_type`` / ``first`` / ``at_turn``: queries over the emitted events.

Test modules, here and in each protocol's own ``protocols/<name>/tests/``, import these plain
helpers (``from tests.conftest import ...``). It defines no fixture and no hook: those (the fixtures of
the same purpose, the lanes, ``--shard``) are in ``tests/plugin.py``, which the root conftest.py
registers once for every test folder.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from debate_core import AgentSpec, Debate, DebateConfig, Question, ScriptedBackend
from debate_core.backends.base import GenerationRequest
from debate_core.events import PlanRecord, PlansMade

# Tests never download. debate_core imports transformers lazily, so this is set before
# any Hugging Face library reads it; the embedded model needs no hub at all.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

# Waits in tests are guards against hangs, not speed checks: work is bounded by tokens and
# turns, and a wait returns as soon as its condition holds, so a generous guard costs nothing.
HANG_GUARD_S = 1800

AGENTS = ("Alex", "Chris", "Jenny")
QUESTION = Question(
    text="Which option names the second letter of the Greek alphabet?",
    options=("Alpha", "Beta", "Gamma", "Delta"),
    answer="B",
)

# A plan spec is (action, urgency, answer) or a raw string sent verbatim (for malformed
# output). ``action`` may be "floor": "speak" when the floor is free, "interrupt" when it
# is held. ``answer`` None means the agent's initial answer. Urgency is sent as given,
# so out-of-range or mistyped values reach the engine unchanged.
PlanSpec = tuple[str, Any, str | None] | str
LISTEN: PlanSpec = ("listen", 0, None)
DEFAULT_UTTERANCE = "I have nothing to add."

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


class SentenceSplitter:
    """Splits after '.', '!' or '?' followed by whitespace. Deterministic and instant."""

    name = "test-splitter"

    def split(self, text: str) -> tuple[str, ...]:
        return tuple(piece.strip() for piece in _SENTENCE_END.split(text) if piece.strip())


def allowed_actions_of(request: GenerationRequest) -> tuple[str, ...]:
    """The actions a plan request allows, as the engine put them in its JSON schema."""
    assert request.json_schema is not None
    return tuple(request.json_schema["properties"]["action"]["enum"])


def plan_json(action: str, urgency: Any, answer: str | None, thought: str = "") -> str:
    return json.dumps({"thought": thought, "action": action, "urgency": urgency, "purpose": "test", "answer": answer})


def build_script_backend(
    plans: Mapping[tuple[int, str], PlanSpec] | None = None,
    utterances: Mapping[str, Sequence[str]] | None = None,
    *,
    default_plan: PlanSpec | Callable[[int, str], PlanSpec] = LISTEN,
    initial: Mapping[str, str] | None = None,
    default_utterance: str = DEFAULT_UTTERANCE,
    model_id: str = "scripted",
) -> ScriptedBackend:
    """A ScriptedBackend answering from tables (named ``model_id``).

    plans: (turn, agent) -> plan spec; other plan requests get ``default_plan`` (a spec,
    or a function of (turn, agent) returning one).
    utterances: agent -> texts, used in order; then ``default_utterance``.
    initial: agent -> initial answer label (default "A").
    """
    plans = dict(plans or {})
    queues = {agent: list(texts) for agent, texts in (utterances or {}).items()}
    initial = dict(initial or {})

    def respond(request: GenerationRequest) -> str:
        agent, turn = request.agent, request.turn
        if request.kind == "initial_answer":
            return json.dumps({"reason": f"{agent} thinks so.", "answer": initial.get(agent, "A")})
        if request.kind == "utterance":
            queue = queues.get(agent)
            return queue.pop(0) if queue else default_utterance
        spec = plans.get((turn, agent))
        if spec is None:
            spec = default_plan(turn, agent) if callable(default_plan) else default_plan
        if isinstance(spec, str):
            return spec
        action, urgency, answer = spec
        if action == "floor":
            action = "interrupt" if "interrupt" in allowed_actions_of(request) else "speak"
        return plan_json(action, urgency, answer or initial.get(agent, "A"), f"{agent} at turn {turn}")

    return ScriptedBackend(respond, model_id=model_id)


def agents(*names: str) -> tuple[AgentSpec, ...]:
    return tuple(AgentSpec(name=name) for name in names)


def make_config(**overrides: Any) -> DebateConfig:
    """Three agents on QUESTION, a large budget and a short max_turns unless overridden."""
    values: dict[str, Any] = {"question": QUESTION, "token_budget": 10_000, "max_turns": 20}
    values.update(overrides)
    return DebateConfig.model_validate(values)


def run(config: DebateConfig, backend: ScriptedBackend, segmenter: Any = None, **kwargs: Any) -> list:
    return Debate(config, backend, segmenter=segmenter or SentenceSplitter(), **kwargs).run()


# -- event queries -------------------------------------------------------------------

E = TypeVar("E")


def of_type(events: Iterable[Any], cls: type[E]) -> list[E]:
    return [event for event in events if isinstance(event, cls)]


def first(events: Iterable[Any], cls: type[E]) -> E:
    found = of_type(events, cls)
    assert found, f"no {cls.__name__} event"
    return found[0]


def at_turn(events: Iterable[Any], cls: type[E], turn: int) -> list[E]:
    return [event for event in of_type(events, cls) if event.turn == turn]  # type: ignore[attr-defined]


def plans_at(events: Iterable[Any], turn: int) -> PlansMade:
    found = at_turn(events, PlansMade, turn)
    assert len(found) == 1, f"expected one PlansMade at turn {turn}, got {len(found)}"
    return found[0]


def plan_of(plans: PlansMade, agent: str) -> PlanRecord:
    for record in plans.plans:
        if record.agent == agent:
            return record
    raise AssertionError(f"{agent} did not plan at turn {plans.turn}")


def request_texts(backend: ScriptedBackend) -> list[str]:
    """The full text of every prompt sent to the backend."""
    return ["\n".join(m.content for m in request.messages) for request in backend.requests]
