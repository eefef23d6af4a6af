"""The baselines' scripted scenario: every variant's flow with no model at all.

What it does: ``BaselinesDemo(config).reply`` answers each request kind of the family from a
short script, so ``python -m debate_core run --protocol baselines --variant self_consistency
--backend scripted`` shows the whole flow in a second: IO answers the right option directly; CoT
reasons in three sentences to it; of Self-Consistency's samples the second strays to a wrong
option and the majority keeps the right one; Step-Back first states the principle behind the
question, then reasons from it; Self-Contrast names its perspectives, the second perspective's
solution strays, the contrast turns the disagreement into a checklist item and the
reconciliation settles on the right option. In parallel debate the second debater first answers
a wrong option and comes round after reading the others, so the majority is unanimous (DMAD's
debaters, each by its own way of reasoning, the same; in RTC the stray answer comes with a low
confidence, the discussion brings everyone round and the consensus ends it; in RPD the second
speaker strays and everyone after, in role, argues for the right option; talking simultaneously,
the second debater of round 1 strays and, with a summarizer, the summary names both answers). In TAR
the negative side argues a wrong option in round 1 (the judge lets the debate go on) and concedes
in round 2, when the judge ends it for the affirmative side.

The script reads only what a model would get (the request kind and the prompt) and how many
samples or perspectives it has answered.

What it does not do: pretend to be a model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import ScriptByKind
from debate_core.config import DebateConfig
from protocols.baselines.forms import DEFAULT_PERSPECTIVES


@dataclass
class BaselinesDemo(ScriptByKind):
    """The scenario's memory: how many samples and perspective solutions it has written."""

    config: DebateConfig
    demo_name = "baselines"
    samples: int = 0
    solutions: int = 0
    rebuttals: int = 0
    turns: int = 0
    calls: int = 0

    def correct(self) -> str:
        question = self.config.question
        return question.answer or (question.labels[0] if question.labels else "unknown")

    def wrong(self) -> str:
        labels = self.config.question.labels
        return next((label for label in labels if label != self.correct()), "not sure")

    def reasoning(self, answer: str) -> str:
        return (
            "The question asks for one fact, so I recall what is known about it. "
            f"Weighing each option against that, {answer} fits best and the others do not. "
            f"So the answer is {answer}.\nFinal Answer: {answer}"
        )

    def _answer(self, request: GenerationRequest) -> str:
        return f"Final Answer: {self.correct()}"

    def _reasoning(self, request: GenerationRequest) -> str:
        return self.reasoning(self.correct())

    def _sample(self, request: GenerationRequest) -> str:
        self.samples += 1
        return self.reasoning(self.wrong() if self.samples == 2 else self.correct())

    def _step_back(self, request: GenerationRequest) -> str:
        return (
            "Step-back question: What general principle or background fact decides questions of this kind?\n"
            "Principles: Such a question is settled by the established measurement, not by how familiar an "
            "option sounds. The option that matches the measurement is right."
        )

    def _step_back_reasoning(self, request: GenerationRequest) -> str:
        answer = self.correct()
        return (
            "By the principle, I set aside how familiar each option sounds and compare it with the measurement. "
            f"Only {answer} matches it. So the answer is {answer}.\nFinal Answer: {answer}"
        )

    def _perspectives(self, request: GenerationRequest) -> str:
        return "\n".join(f"{i}. {p}" for i, p in enumerate(DEFAULT_PERSPECTIVES, 1))

    def _perspective(self, request: GenerationRequest) -> str:
        self.solutions += 1
        return self.reasoning(self.wrong() if self.solutions == 2 else self.correct())

    def _contrast(self, request: GenerationRequest) -> str:
        return (
            f"- Solution 2 chose {self.wrong()} while the others chose {self.correct()}: "
            "check which fact each relied on.\n"
            "- Solution 2 judged by familiarity, the others by the facts: check that the facts were recalled correctly."
        )

    def _first_answer(self, request: GenerationRequest) -> str:
        names = [agent.name for agent in self.config.agents]
        doubter = names[1] if len(names) > 1 else ""
        return self.reasoning(self.wrong() if request.agent == doubter else self.correct())

    def _method_answer(self, request: GenerationRequest) -> str:
        return self._first_answer(request)

    def _method_revise(self, request: GenerationRequest) -> str:
        return self._revise(request)

    def _rtc_first(self, request: GenerationRequest) -> str:
        names = [agent.name for agent in self.config.agents]
        doubting = len(names) > 1 and request.agent == names[1]
        return self.reasoning(self.wrong() if doubting else self.correct()) + (
            "\nConfidence: 0.6" if doubting else "\nConfidence: 0.9"
        )

    def _rtc_revise(self, request: GenerationRequest) -> str:
        return self._revise(request) + "\nConfidence: 0.9"

    def _rpd_turn(self, request: GenerationRequest) -> str:
        self.turns += 1
        if self.turns == 2:
            return self._first_answer(request)
        return self._revise(request)

    def _rpd_summary(self, request: GenerationRequest) -> str:
        return (
            f"One agent argued for {self.wrong()} because it sounded familiar; the others answered "
            f"{self.correct()} from the facts of the question. They disagree on which reason counts."
        )

    def _revise(self, request: GenerationRequest) -> str:
        answer = self.correct()
        return (
            f"Reading the others' answers, the case for {answer} is the better argued. "
            f"I keep to it, or come round to it.\nFinal Answer: {answer}"
        )

    def _affirmative(self, request: GenerationRequest) -> str:
        answer = self.correct()
        return (
            f"The answer is {answer}: it is the option the facts of the question support. "
            f"The other options each contradict one of those facts.\nFinal Answer: {answer}"
        )

    def _negative(self, request: GenerationRequest) -> str:
        self.rebuttals += 1
        if self.rebuttals > 1:
            answer = self.correct()
            return f"I tried to hold {self.wrong()}, but the affirmative side's facts stand.\nFinal Answer: {answer}"
        answer = self.wrong()
        return (
            f"I disagree: {answer} is the more familiar option and fits the question's wording.\nFinal Answer: {answer}"
        )

    def _judge_check(self, request: GenerationRequest) -> str:
        self.calls += 1
        if self.calls == 1:
            return json.dumps({"preference": "no", "side": "affirmative", "answer": self.correct(), "reason": ""})
        reason = "Both sides now agree, and the affirmative side's facts are sound."
        return json.dumps({"preference": "yes", "side": "affirmative", "answer": self.correct(), "reason": reason})

    def _judge_final(self, request: GenerationRequest) -> str:
        answer = self.correct()
        return f"The affirmative side's reasons are the better founded.\nFinal Answer: {answer}"

    def _reconcile(self, request: GenerationRequest) -> str:
        answer = self.correct()
        return (
            f"Checking the first item, solution 2 relied on how familiar {self.wrong()} sounds, not on the facts. "
            f"The facts the other solutions recalled hold, so {answer} stands.\nFinal Answer: {answer}"
        )
