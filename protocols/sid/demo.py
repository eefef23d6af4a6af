r"""SID's scripted scenario: the gate, the compression and the revisions with no model.

What it does: ``SidDemo(config).reply`` answers each request kind from a
short script, so ``python -m debate_core run --protocol sid --backend
scripted`` shows the flow in a second. The first agent answers correctly but
hesitates (one token of its answer has an NLL of 7, above the alpha gate's
0.5 ln|V| of the scripted vocabulary, 5.55), so the debate goes on; the
second agent answers a wrong option, the third the correct one, each with
calm token statistics (NLL 0.2, entropy 0.4). Revising, an agent takes the
answer the prompt names most often (its own first among equals), so the
majority comes round to the correct answer. The attention probe is the
scripted backend's own (a fixed function of each token's text). With
``confident`` in the first agent's persona it answers with calm statistics,
and the gate ends the debate at once. Answers are written in the format
the prompts ask for ("The answer is (B).", or ``\boxed{...}`` where the
prompt asks for MATH's) and read back whole, so a free-form LaTeX answer
such as ``(3, \infty)`` is revised to as it was said.

``SidDemo(config, restatements=N)`` gives long answers: each first answer
restates its check N times ("I look at it once more, hence each point
remains true or each reason remains true or ..."), the redundancy the paper's
compression is for. The scripted attention scores a token by a hash of its
text, under which the words of "hence each point remains true" score low and
"I look at it once more" high, so at rho 0.4 the paper's boundaries drop the
repeated middle clauses (about half of the others' text at N = 20) where
the code's (sentences only) keep every sentence: a demonstration of the
token accounting on long answers, not a claim about any model.

What it does not do: pretend to be a model; it never produces an unusable
reply.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import Output, ScriptByKind, ScriptedReply, scripted_tokens
from debate_core.config import DebateConfig
from protocols.sid.formats import last_boxed

_NAMED = re.compile(r"answer is (?P<value>.+)$", re.I | re.M)
_LETTER = re.compile(r"\(([A-Za-z])\)")


def named(text: str) -> list[str]:
    """The answers ``text``'s answer lines name, in order: a letter, a box's content or the free-form answer."""
    found = []
    for match in _NAMED.finditer(text):
        value = match.group("value").strip().rstrip(".").strip()
        boxed = last_boxed(value)
        letter = _LETTER.fullmatch(value)
        found.append(boxed if boxed is not None else letter.group(1).upper() if letter else value)
    return [answer for answer in found if answer]


RESTATEMENT = (
    "I look at it once more, hence each point remains true or each reason remains true or each question remains true."
)


@dataclass
class SidDemo(ScriptByKind):
    config: DebateConfig
    restatements: int = 0  # long answers: the first answer restates its check this many times
    demo_name = "sid"

    def _me(self, request: GenerationRequest) -> str:
        return request.agent

    def _labelled(self, answer: str, request: GenerationRequest) -> str:
        if self.config.question.labels:
            return f"({answer})"
        boxed = any("\\boxed" in message.content for message in request.messages)  # MATH's format asked for
        return f"\\boxed{{{answer}}}" if boxed else answer

    def _answer(self, request: GenerationRequest) -> Output:
        names = self.config.agent_names
        question = self.config.question
        correct = question.answer or "unknown"
        wrong = next((label for label in question.labels if label != correct), "something else")
        mine = wrong if len(names) > 1 and request.agent == names[1] else correct
        restated = "".join(f" {RESTATEMENT}" for _ in range(self.restatements))
        text = (
            f"I look at what the question states and check each option against it.{restated} "
            f"Only one option survives that check. The answer is {self._labelled(mine, request)}."
        )
        tokens = len(scripted_tokens(text))
        hesitant = request.agent == names[0] and "confident" not in self.config.agent(request.agent).persona
        nll = tuple(7.0 if hesitant and i == tokens // 2 else 0.2 for i in range(tokens))
        return ScriptedReply(text, token_nll=nll, token_entropy=tuple(0.4 for _ in range(tokens)))

    def _revise(self, request: GenerationRequest) -> Output:
        prompt = self._prompt(request)
        for instruction in ("\nUse the other agents'", "\nKeep or revise"):
            prompt = prompt.split(instruction, 1)[0]  # the instructions name no answer
        own = named(prompt.split("Your previous answer:", 1)[-1].split("\n\n", 1)[0])
        counts = Counter(named(prompt))
        best = max(counts.values(), default=0)
        leaders = [a for a, n in counts.items() if n == best]
        choice = own[-1] if own and own[-1] in leaders else (leaders[0] if leaders else "unknown")
        text = f"Having read the others, I weigh where we differ. The answer is {self._labelled(choice, request)}."
        tokens = len(scripted_tokens(text))
        return ScriptedReply(text, token_nll=(0.2,) * tokens, token_entropy=(0.4,) * tokens)

    def _revise_kept(self, request: GenerationRequest) -> Output:
        return self._revise(request)

    def _revise_summary(self, request: GenerationRequest) -> Output:
        return self._revise(request)

    def _summarize(self, request: GenerationRequest) -> Output:
        """One short sentence per agent the prompt shows, with the answer it named."""
        lines = [line for line in self._prompt(request).splitlines() if ": " in line and "answer is" in line]
        said = [
            f"{line.split(': ', 1)[0]} checked the options; the answer is {(named(line) or ['unknown'])[-1]}."
            for line in lines
        ]
        return " ".join(said) or "The others named no answer."

    def _focus(self, request: GenerationRequest) -> Output:
        return ""  # an attention probe: the scripted backend scores the tokens itself
