"""SID's scripted scenario: the gate, the compression and the revisions with no model.

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
and the gate ends the debate at once.

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

_NAMED = re.compile(r"answer is \(?([A-Za-z0-9]+)\)?", re.I)


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

    def _labelled(self, answer: str) -> str:
        return f"({answer})" if self.config.question.labels else answer

    def _answer(self, request: GenerationRequest) -> Output:
        names = self.config.agent_names
        question = self.config.question
        correct = question.answer or "unknown"
        wrong = next((label for label in question.labels if label != correct), "something else")
        mine = wrong if len(names) > 1 and request.agent == names[1] else correct
        restated = "".join(f" {RESTATEMENT}" for _ in range(self.restatements))
        text = (
            f"I look at what the question states and check each option against it.{restated} "
            f"Only one option survives that check. The answer is {self._labelled(mine)}."
        )
        tokens = len(scripted_tokens(text))
        hesitant = request.agent == names[0] and "confident" not in self.config.agent(request.agent).persona
        nll = tuple(7.0 if hesitant and i == tokens // 2 else 0.2 for i in range(tokens))
        return ScriptedReply(text, token_nll=nll, token_entropy=tuple(0.4 for _ in range(tokens)))

    def _revise(self, request: GenerationRequest) -> Output:
        prompt = self._prompt(request)
        for instruction in ("\nUse the other agents'", "\nKeep or revise"):
            prompt = prompt.split(instruction, 1)[0]  # the instructions name no answer
        own = _NAMED.findall(prompt.split("Your previous answer:", 1)[-1].split("\n\n", 1)[0])
        named = Counter(a.upper() if len(a) == 1 else a for a in _NAMED.findall(prompt))
        best = max(named.values(), default=0)
        leaders = [a for a, n in named.items() if n == best]
        choice = own[-1].upper() if own and own[-1].upper() in leaders else (leaders[0] if leaders else "unknown")
        text = f"Having read the others, I weigh where we differ. The answer is {self._labelled(choice)}."
        tokens = len(scripted_tokens(text))
        return ScriptedReply(text, token_nll=(0.2,) * tokens, token_entropy=(0.4,) * tokens)

    def _revise_kept(self, request: GenerationRequest) -> Output:
        return self._revise(request)

    def _focus(self, request: GenerationRequest) -> Output:
        return ""  # an attention probe: the scripted backend scores the tokens itself
