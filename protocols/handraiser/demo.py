"""HandRaiser's scripted scenario: the whole flow with no model at all.

What it does: ``HandRaiserDemo(config).reply`` answers each request kind from a
short script, so ``python -m debate_core run --protocol handraiser --backend
scripted`` shows the flow in a second. The side with the correct answer
states **the decisive fact** in its third sentence; the other side repeats
itself. The scripted moderator:

* ``listen``: cuts a speaker off as soon as it has heard the decisive fact,
  and, from round 2 on, cuts off a side it heard out before after its first
  chunk; otherwise lets it go on (with the choice probabilities the
  ``threshold`` policy reads: 0.85 for a yes, 0.15 for a no);
* ``vote``: votes for the side that stated the decisive fact once it is in
  the record; waits in round 1 otherwise, and from round 2 on votes for the
  side that spoke longest (which may be the wrong one);
* ``verdict``: the same, without waiting.

Asked to (``questions``, the default), a waiting moderator asks both sides
which one fact settles the question (``QUESTION``), and each side's next
statement opens by answering it ("You asked which fact settles it."): the
correct side with the decisive fact, first, the other side with its answer;
so a question makes the fact come early in the next round (it does help).

So a debate succeeds exactly when the moderator heard the decisive fact, and
it is cheaper the earlier the moderator stops listening: enough to give the
tree sampler's labels both outcomes. With ``concise`` in the prompt the sides
say two sentences (the correct side's second is the decisive fact).

The script reads only what a model would get (the request kind and the
prompt's text).

What it does not do: pretend to be a model; it never produces an unusable
reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import Output, ScriptByKind, ScriptedReply
from debate_core.config import DebateConfig

DECISIVE = "The decisive fact"
QUESTION = "Which one fact settles this question, and why does the other answer fail?"
ANSWERING = "You asked which fact settles it. "
_SIDE = re.compile(r"(Pro|Con) argues that the answer is ([^.\n]+?)\. (Pro|Con) argues that it is ([^.\n]+?)\.")
_FILLER = (
    "Consider the question carefully before choosing an option.",
    "My opponent's reading rests on an assumption that the question never states.",
    "Each of my reasons points the same way, and none of them needs an extra premise.",
    "A careful listener will see that the simplest account is also the best supported one.",
    "So the moderator should side with me.",
)


@dataclass
class HandRaiserDemo(ScriptByKind):
    """The scripted scenario (see the module docstring)."""

    config: DebateConfig
    demo_name = "handraiser"

    def correct(self) -> str | None:
        return self.config.question.answer

    def _statement(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        found = re.search(r"You argue that the answer is ([^.\n]+?)\. ", prompt)
        mine = found.group(1) if found else "my answer"
        correct = self.correct() is not None and mine.split(")", 1)[0].strip() == self.correct()
        concise = "Be concise" in prompt
        opening = f"I hold that the answer is {mine}."
        asked = "The moderator asked you both" in prompt
        fact = f"{DECISIVE} is that {mine} is what the evidence for this question shows, on every count."
        if correct and asked:  # the question draws the decisive fact out first
            body = [ANSWERING + fact, opening] + ([] if concise else list(_FILLER[1:]))
        elif correct:
            body = [opening, fact] if concise else [opening, _FILLER[0], fact, *_FILLER[1:]]
        else:  # asked or not, nothing that settles it
            opening = ANSWERING + opening if asked else opening
            body = [opening, _FILLER[1]] if concise else [opening, *_FILLER]
        return " ".join(body)

    def _sides(self, prompt: str) -> dict[str, str]:
        found = _SIDE.search(prompt)
        if not found:
            return {}
        return {found.group(1): found.group(2), found.group(3): found.group(4)}

    def _record(self, prompt: str) -> str:
        return prompt.split("The debate so far:", 1)[-1]

    def _listen(self, request: GenerationRequest) -> Output:
        prompt = self._prompt(request)
        speaker = re.search(r"\n(Pro|Con) is speaking now", prompt)
        heard = prompt.split("What you have heard so far:", 1)[-1]
        who = speaker.group(1) if speaker else ""
        record = self._record(prompt).split(f"{who} is speaking now", 1)[0]
        before = re.search(rf"^{who}: ", record, re.MULTILINE) is not None
        partial = heard
        chunks_heard = partial.count(".") + 1
        yes = DECISIVE in partial or (before and chunks_heard >= 1 and DECISIVE not in record)
        return ScriptedReply(
            "Yes" if yes else "No", choice_probs={"Yes": 0.85, "No": 0.15} if yes else {"Yes": 0.15, "No": 0.85}
        )

    def _vote(self, request: GenerationRequest) -> str:
        return self._ballot(request, wait=True)

    def _verdict(self, request: GenerationRequest) -> str:
        return self._ballot(request, wait=False)

    def _ballot(self, request: GenerationRequest, *, wait: bool) -> str:
        prompt = self._prompt(request)
        vote = self._choice(prompt, wait=wait)
        if '"question"' not in prompt:  # not asked for a question
            return json.dumps({"vote": vote})
        return json.dumps({"vote": vote, "question": QUESTION if vote == "wait" else ""})

    def _choice(self, prompt: str, *, wait: bool) -> str:
        record = self._record(prompt)
        lines = [line for line in record.splitlines() if line.startswith(("Pro: ", "Con: "))]
        for line in lines:
            if DECISIVE in line:
                return line[:3].lower()
        round_ = re.search(r"Round (\d+) of", prompt)
        if wait and (round_ is None or int(round_.group(1)) < 2):
            return "wait"
        length = {side: sum(len(line) for line in lines if line.startswith(f"{side}: ")) for side in ("Pro", "Con")}
        return max(length, key=lambda side: length[side]).lower()
