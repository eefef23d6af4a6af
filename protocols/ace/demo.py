"""ACE's scripted scenario: the whole flow, its ablations and the parallel baseline with no model.

What it does: ``AceDemo(config).reply`` answers each request kind from a short
script, so ``python -m debate_core run --protocol ace --backend scripted``
shows the flow in a second. The first debater answers correctly with three
items; every other debater answers a wrong option with two items, the first
of which makes the same point as the first debater's first item. Then:

* ``analyze``: the observer reads the answer lines; the answers agree iff
  they are equal (and name an answer); item 1 matches item 1, and item 2 differs from item 2 while
  they disagree; it stops the debate once they agree;
* ``compose``: a debater told by the analysis that the answers disagree
  adapts if its reply is the shorter one (fewer items), and comments
  otherwise; without an analysis (``no_analyze``) it revises alone and keeps
  its answer; ``compose_execute`` does the same and answers at once;
* ``execute``: adapting takes the other debater's answer and items; any other
  act keeps the debater's own;
* ``revise`` (parallel): a debater takes the answer of the longest reply it
  sees when that reply is longer than its own;
* ``pick``: the observer picks the answer of the longest reply.

So full ACE agrees in round 2 and stops in round 3; ``no_analyze`` runs to
the cap and needs the observer's pick. The script reads only what a model
would get (the request kind and the prompt's text). Where the replies it
reads name no answer (a model's first answer did not parse, a person let it
pass), a debater goes back to its own first answer and the observer has
nothing to pick from (its pick is then refused and falls back).

What it does not do: pretend to be a model; given replies it can read, it
never produces an unusable reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import ScriptByKind
from debate_core.config import DebateConfig

SHARED = "The question turns on what it states, not on what it leaves out."
_ANSWER = re.compile(r"^\s*Answer: (.+)$", re.M)
_REPLY = re.compile(r"((?:^  \d+\. .+\n)*)(?:^  Comment: .+\n)?^  Answer: (.+)$", re.M)  # items may be none
_NO_ANSWER = "(none)"  # how a prompt shows a reply that names no answer
Reply = tuple[list[str], str | None]


@dataclass
class AceDemo(ScriptByKind):
    """The scripted scenario (see the module docstring)."""

    config: DebateConfig
    demo_name = "ace"

    def _me(self, request: GenerationRequest) -> str:
        found = re.search(r"You are (.+?), ", request.messages[0].content)
        return found.group(1) if found else ""

    def _first_debater(self) -> str:
        names = [a.name for a in self.config.agents if a.role in (None, "debater")]
        return names[0] if names else ""

    def _wrong(self) -> str:
        question = self.config.question
        correct = question.answer or ""
        others = [label for label in question.labels if label != correct]
        return others[0] if others else "unknown"

    def _first_answer(self, request: GenerationRequest) -> Reply:
        """What this debater answers in round 1: (items, answer)."""
        if self._me(request) == self._first_debater():
            items = [SHARED, "Each option is checked against that statement.", "Only one option survives the check."]
            return items, self.config.question.answer or "unknown"
        return [SHARED, "The first option that looks plausible is the one to choose."], self._wrong()

    def _answer(self, request: GenerationRequest) -> str:
        items, answer = self._first_answer(request)
        return json.dumps({"answer": answer, "explanation": items})

    def _replies(self, prompt: str) -> list[Reply]:
        """Every reply quoted in the prompt: (items, answer or None), the debater's own first where it is quoted."""
        return [
            (
                [re.sub(r"^\s*\d+\. ", "", line) for line in body.splitlines()],
                None if answer.strip() == _NO_ANSWER else answer.strip(),
            )
            for body, answer in _REPLY.findall(prompt + "\n")
        ]

    def _own(self, request: GenerationRequest, replies: list[Reply]) -> Reply:
        """The debater's own reply as quoted (the first) if it names an answer, else its first answer again."""
        return replies[0] if replies and replies[0][1] is not None else self._first_answer(request)

    @staticmethod
    def _longest(replies: list[Reply]) -> Reply | None:
        """The reply with the most items among those that name an answer (the first among equals)."""
        return max((r for r in replies if r[1] is not None), key=lambda reply: len(reply[0]), default=None)

    def _analyze(self, request: GenerationRequest) -> str:
        replies = self._replies(self._prompt(request))
        answers = {answer for _, answer in replies}
        agree = len(answers) == 1 and None not in answers  # replies that name no answer agree on nothing
        dissimilar = [] if agree else [[2, 2]]
        reason = "They agree and explain it the same way." if agree else "They disagree on the second step."
        return json.dumps(
            {
                "answers_agree": agree,
                "explanations_similar": agree,
                "similar": [[1, 1]],
                "dissimilar": dissimilar,
                "stop": agree,
                "reason": reason,
            }
        )

    def _acts(self, prompt: str) -> tuple[str, str]:
        replies = self._replies(prompt)
        if "The observer's analysis" not in prompt or "answers disagree" not in prompt or len(replies) < 2:
            return ("revise", "withhold") if "observer's analysis" not in prompt else ("retain", "withhold")
        own, peer = replies[0], replies[1]
        return ("adapt", "withhold") if len(own[0]) < len(peer[0]) else ("retain", "comment")

    def _compose(self, request: GenerationRequest) -> str:
        self_act, peer_act = self._acts(self._prompt(request))
        return json.dumps({"self_act": self_act, "peer_act": peer_act, "action": f"I will {self_act} my answer."})

    def _carried_out(self, request: GenerationRequest, adapt: bool, comment: bool) -> dict[str, object]:
        replies = self._replies(self._prompt(request))
        own = self._own(request, replies)
        chosen = replies[1] if adapt and len(replies) > 1 and replies[1][1] is not None else own
        remark = "Your second item skips the check against the statement." if comment else ""
        return {"answer": chosen[1], "explanation": chosen[0], "comments": remark}

    def _execute(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        acts = re.search(r"You have been given an action to execute: (.+)", prompt)
        named = acts.group(1) if acts else ""
        return json.dumps(self._carried_out(request, "adapt" in named, "comment" in named))

    def _compose_execute(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        self_act, peer_act = self._acts(prompt)
        reply = self._carried_out(request, self_act == "adapt", peer_act == "comment")
        return json.dumps({"self_act": self_act, "peer_act": peer_act, **reply})

    def _revise(self, request: GenerationRequest) -> str:
        replies = self._replies(self._prompt(request))
        own = self._own(request, replies)
        best = self._longest(replies) or own
        chosen = best if len(best[0]) > len(own[0]) else own
        return json.dumps({"answer": chosen[1], "explanation": chosen[0]})

    def _pick(self, request: GenerationRequest) -> str:
        replies = self._replies(self._prompt(request))
        best = self._longest(replies)
        return json.dumps({"answer": best[1] if best is not None else None})
