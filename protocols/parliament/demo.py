"""Parliament's scripted scenario: every variant's flow with no model at all.

What it does: ``ParliamentDemo(config).reply`` answers each request kind of the
protocol from a short script, so ``python -m debate_core run --protocol
parliament --variant british --backend scripted`` shows the whole flow in a
second: the prover's opening for a wrong answer streams out (generated a few
tokens a step, as a model's is), the critic raises **one point of
information** at the second chunk, the prover concedes it in its reply, and
its speech is **regenerated** from what it had said with the exchange in view
(the default, ``resume=regenerate``): the claims the point refuted, which
its opening was about to make, are never said (with ``resume=continue`` the
prepared speech goes on and says them). The critic's closing rebuttal names
the right answer, and the prover's final answer takes it. In congress the
critic disagrees and the prover concedes in the rebuttal round; in the
Socratic dialogue (streaming, the default) Socrates asks one question while
the student answers and the student's answer goes on from there to the
right option (with ``socratic_mode=turns``: one question, then a revision);
the CoT solver answers directly. With the atmosphere question the script
speaks about gases; with any other it argues about option labels in general
terms.

The script reads only what a model would get (the request kind, the prompt's
text and the partial reply it continues) and what it said earlier.

What it does not do: pretend to be a model. Its JSON is always valid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import ScriptByKind, ScriptedReply, continuing
from debate_core.config import DebateConfig

_ATMOSPHERE = "largest share of Earth's atmosphere"

_OPENING_GAS = (
    "The answer is oxygen, because every animal on Earth depends on breathing it.",
    "Forests and ocean plankton release enormous amounts of it every single day, all year round.",
    "A gas produced on that scale must make up most of the air around us.",
    "Nitrogen, by contrast, is inert and rarely mentioned in biology lessons.",
    "So oxygen is the largest share of the atmosphere.",
)
_REST_GAS = (
    "Measured by volume, nitrogen comes first at about 78 percent, and oxygen second at about 21 percent.",
    "So on the numbers the answer is nitrogen.",
)


@dataclass
class ParliamentDemo(ScriptByKind):
    """The scenario's memory: how many checks it has answered, whether it has raised its point."""

    config: DebateConfig
    demo_name = "parliament"
    checks: int = 0
    raised: int = 0
    asked: set[str] = field(default_factory=set)

    @property
    def gas(self) -> bool:
        return _ATMOSPHERE in self.config.question.text

    def correct(self) -> str:
        labels = self.config.question.labels
        if labels:
            return self.config.question.answer or labels[0]
        return self.config.question.answer or "unknown"

    def wrong(self) -> str:
        labels = self.config.question.labels
        if not labels:
            return "not sure"
        return next(label for label in labels if label != self.correct())

    def option(self, label: str) -> str:
        question = self.config.question
        if label in question.labels:
            return question.options[question.labels.index(label)]
        return label

    # -- the script ------------------------------------------------------------------------

    @staticmethod
    def _json(**values: str) -> str:
        return json.dumps(values)

    def _opening_speech(self) -> str:
        wrong = self.wrong()
        if self.gas:
            return " ".join(_OPENING_GAS)
        return (
            f"I hold that the answer is {wrong}, {self.option(wrong)}. "
            "It matches the most obvious reading of the question, and obvious readings are usually right. "
            "The other options each need an extra assumption that the question does not give us. "
            f"Nothing in the question rules {wrong} out, and that alone makes it the safest choice. "
            f"So my proposed answer is {wrong}."
        )

    def _opening(self, request: GenerationRequest) -> str:
        return self._json(speech=self._opening_speech(), answer=self.wrong())

    def _streamed_opening(self, request: GenerationRequest) -> ScriptedReply:
        return continuing(f"{self._opening_speech()}\nProposed Answer: {self.wrong()}", request)

    def _poi_check(self, request: GenerationRequest) -> str:
        self.checks += 1
        if self.checks == 2 and not self.raised:
            self.raised += 1
            if self.gas:
                return "INTERRUPT: Producing a gas every day says nothing about how much of the air it makes up."
            return "INTERRUPT: Being the obvious reading does not make an answer correct."
        return "NO"

    def _question_check(self, request: GenerationRequest) -> str:
        self.checks += 1
        if self.checks == 1 and not self.raised:
            self.raised += 1
            return "INTERRUPT: How would you check which option the facts actually support?"
        return "NO"

    def _poi_reply(self, request: GenerationRequest) -> str:
        if self.gas:
            return self._json(reply="Fair: production is not the same as share. I will come to the measured share.")
        return self._json(reply="Fair point: obvious is not the same as correct. Let me address the evidence.")

    def _resume(self, request: GenerationRequest) -> ScriptedReply:
        right = self.correct()
        if self.gas:
            return continuing(" ".join(_REST_GAS) + f"\nProposed Answer: {right}", request)
        rest = f"Weighing the evidence instead, option {right} fits the question better.\nProposed Answer: {right}"
        return continuing(rest, request)

    def _revise_rest(self, request: GenerationRequest) -> ScriptedReply:
        right = self.correct()
        return continuing(
            f"Checking the facts, {right} is the option they support.\nProvisional Answer: {right}", request
        )

    def _closing(self, request: GenerationRequest) -> str:
        right = self.correct()
        if self.gas:
            speech = (
                "The Government confused how important a gas is with how much of it there is. "
                "Dry air is about 78 percent nitrogen and only about 21 percent oxygen. "
                "Argon is under one percent and carbon dioxide far less. "
                "The measured share settles the question for nitrogen."
            )
        else:
            speech = (
                "The Government argued from what seems obvious, not from the question's facts. "
                f"Option {right} is the one the facts support. "
                "Each step of the opening assumed its conclusion. "
                f"The answer should be {right}."
            )
        return self._json(speech=speech, answer=right)

    def _final(self, request: GenerationRequest) -> str:
        return self._json(final_answer=self.correct())

    def _critique(self, request: GenerationRequest) -> str:
        right = self.correct()
        first = "critique" not in self.asked
        self.asked.add("critique")
        if first:
            speech = f"The opening rests on intuition, not evidence. The facts point to {right}."
            return self._json(speech=speech, verdict="DISAGREE", answer=right)
        return self._json(speech="The revised case now matches the evidence.", verdict="AGREE", answer="SAME")

    def _prover_rebuttal(self, request: GenerationRequest) -> str:
        right = self.correct()
        speech = f"The critique is right: I relied on intuition. On the evidence the answer is {right}."
        return self._json(speech=speech, answer=right)

    def _first_thought(self) -> str:
        wrong = self.wrong()
        return (
            f"My first thought is {wrong}, {self.option(wrong)}. "
            "It is the reading that comes to mind first when the question is read quickly. "
            "I have not checked it against the facts yet, so I hold it loosely for now."
        )

    def _student_answer(self, request: GenerationRequest) -> str:
        wrong = self.wrong()
        if "Socrates asked you" in request.messages[-1].content:
            right = self.correct()
            speech = f"Your question made me check the facts, and they support {right}, not {wrong}."
            return self._json(speech=speech, answer=right)
        return self._json(speech=self._first_thought(), answer=wrong)

    def _streamed_answer(self, request: GenerationRequest) -> ScriptedReply:
        return continuing(f"{self._first_thought()}\nProvisional Answer: {self.wrong()}", request)

    def _student_revision(self, request: GenerationRequest) -> str:
        return self._student_answer(request)

    def _socratic_question(self, request: GenerationRequest) -> str:
        return self._json(question="What fact would you need to be sure, and does it support your answer?")

    def _cot(self, request: GenerationRequest) -> str:
        right = self.correct()
        speech = f"Read the question carefully. Compare each option with the facts. Option {right} fits them."
        return self._json(speech=speech, answer=right)
