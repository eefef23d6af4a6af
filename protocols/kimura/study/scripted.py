"""A model-free stand-in for studies: deterministic answers, plans and utterances.

What it does: ``study_backend()`` is a ``ScriptedBackend`` whose responder
plays every role of a study without a model, so the runner, the report and
the web app's Analysis tab can be exercised in seconds:

* the correct answer of a question is looked up by its text in ``answers``
  (default: B);
* initial answers cycle through the correct option twice, then two wrong ones
  and the correct one again (``B, B, A, C, B`` when B is right), so with the
  paper's threshold every question is usable; a question whose text contains
  ``[unanimous]`` always gets the correct answer (and is rejected);
* plans: each agent's behaviour depends on the turn, the agent and the actions
  allowed, so all three conditions see speeches, silences and interruptions;
  agents keep their initial answer for two turns, then drift between answers
  (correct three times in five) so that improvements and worsenings occur;
* utterances are three short sentences.

What it does not do: mean anything. Its numbers exercise the pipeline; they
say nothing about debate.
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from collections.abc import Mapping

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import ScriptedBackend

UNANIMOUS_MARK = "[unanimous]"
_CORRECT = re.compile(r"^([A-Z])\) ", re.MULTILINE)


class StudyScript:
    """The responder: call it with a request, get the model text back."""

    def __init__(self, answers: Mapping[str, str] | None = None, default: str = "B") -> None:
        self.answers = dict(answers or {})
        self.default = default
        self._initial_calls = 0
        self._lock = threading.Lock()

    def __call__(self, request: GenerationRequest) -> str:
        if request.kind == "initial_answer":
            return self._initial(request)
        if request.kind == "plan":
            return self._plan(request)
        return f"I am {request.agent} and I have a view. It rests on turn {request.turn}. Please weigh it."

    def correct(self, request: GenerationRequest) -> str:
        prompt = request.messages[-1].content
        return next((label for text, label in self.answers.items() if text in prompt), self.default)

    def _labels(self, request: GenerationRequest) -> list[str]:
        return _CORRECT.findall(request.messages[-1].content) or ["A", "B", "C", "D"]

    def _initial(self, request: GenerationRequest) -> str:
        with self._lock:
            position = self._initial_calls % 5
            self._initial_calls += 1
        labels, correct = self._labels(request), self.correct(request)
        wrong = [label for label in labels if label != correct]
        if UNANIMOUS_MARK in request.messages[-1].content:
            answer = correct
        else:
            answer = [correct, correct, wrong[0], wrong[1 % len(wrong)], correct][position]
        return json.dumps({"reason": f"Sample {position} points to {answer}.", "answer": answer})

    def _plan(self, request: GenerationRequest) -> str:
        schema = request.json_schema or {}
        allowed = list(schema.get("properties", {}).get("action", {}).get("enum", ["listen"]))
        labels = list(schema.get("properties", {}).get("answer", {}).get("enum", ["A", "B", "C", "D"]))
        salt = zlib.crc32(f"{request.agent}/{request.turn}/{request.sampling.seed}".encode())
        correct = self.correct(request)
        wrong = [label for label in labels if label != correct] or labels
        own = re.search(rf"^{re.escape(request.agent)}: answer ([A-Z])\.", request.messages[-1].content, re.MULTILINE)
        drifted = correct if salt % 5 < 3 else wrong[salt % len(wrong)]
        answer = own.group(1) if own and request.turn < 2 else drifted  # initial answers are held at first
        if "interrupt" in allowed and salt % 4 == 0:
            action = "interrupt"
        elif "speak" in allowed and salt % 3 == 0:
            action = "speak"
        else:
            action = "listen"
        urgency = 0 if action == "listen" else 1 + salt % 9
        plan = {"thought": "weighing it", "urgency": urgency, "action": action, "purpose": "test", "answer": answer}
        return json.dumps(plan)


def study_backend(answers: Mapping[str, str] | None = None) -> ScriptedBackend:
    """A backend for studies; ``answers`` maps question texts to their correct labels."""
    return ScriptedBackend(StudyScript(answers), model_id="scripted-study")
