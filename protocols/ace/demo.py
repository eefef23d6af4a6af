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
  its answer; ``compose_execute`` does the same and answers at once. The
  action says what Execute needs ("My answer: ... My reasons: (1) ...",
  and the comment), since the paper's Execute is given the action alone:
  adapting takes the other debater's answer and items, any other act keeps
  the debater's own;
* ``execute``: carries out the action as composed; an action that does not
  say what to answer (``no_compose``'s acts drawn at random, a model's own
  words) is carried out by its acts and the replies the prompt quotes (with
  ``execute_input=rich``; the paper's Execute quotes none, so the debater
  keeps its own first answer);
* ``answer`` and ``revise`` (parallel): on Du et al.'s prompts (no JSON asked)
  the replies are prose ending in an ``Answer:`` line, the debater's own last
  reply read from its conversation; a debater takes the answer of the
  longest reply it sees when that reply is longer than its own;
* ``pick``: the observer picks the answer of the longest reply.

So full ACE agrees in round 2 and stops in round 3; ``no_analyze`` runs its
``rounds`` and needs the observer's pick; ``no_compose`` with the paper's
Execute never converges and ends at the safety net. The script reads only
what a model would get (the request kind and the prompt's text; on Du et
al.'s prompts, which send no system message, the seat the request is for). Where the replies it
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
_REMARK = "Your second item skips the check against the statement."
_PLANNED = re.compile(r"My answer: (.+?)\. My reasons: (.*?)(?: My comment: (.*))?$")
_DU_SOLUTION = re.compile(r"One agent solution: ```(.*?)```", re.S)


def _quoted(text: str) -> Reply:
    """A reply as a prompt quotes it unindented (Du et al.'s solutions): numbered items and the answer line."""
    found = _ANSWER.findall(text)
    answer = found[-1].strip() if found else None
    items = [re.sub(r"^\s*\d+\. ", "", line) for line in text.splitlines() if line.strip() and not _ANSWER.match(line)]
    return items, None if answer in (None, _NO_ANSWER) else answer


@dataclass
class AceDemo(ScriptByKind):
    """The scripted scenario (see the module docstring)."""

    config: DebateConfig
    demo_name = "ace"

    def _me(self, request: GenerationRequest) -> str:
        found = re.search(r"You are (.+?)[,.]", request.messages[0].content)
        if found is None or request.messages[0].role != "system":
            return request.agent  # Du et al.'s prompts send no system message: the seat the request is for
        return found.group(1)

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
        if "JSON" not in self._prompt(request):  # Du et al.'s prompt: prose ending in the answer line
            return "\n".join([*items, f"Answer: {answer}"])
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

    def _chosen(self, prompt: str, own: Reply, adapt: bool) -> Reply:
        """Adapting takes the other debater's reply as the prompt quotes it; any other act keeps its own."""
        replies = self._replies(prompt)
        return replies[1] if adapt and len(replies) > 1 and replies[1][1] is not None else own

    @staticmethod
    def _carried_out(chosen: Reply, comment: bool) -> dict[str, object]:
        return {"answer": chosen[1], "explanation": chosen[0], "comments": _REMARK if comment else ""}

    def _compose(self, request: GenerationRequest) -> str:
        """The acts, and an action that carries what Execute needs: the answer, the reasons, the comment."""
        prompt = self._prompt(request)
        self_act, peer_act = self._acts(prompt)
        items, answer = self._chosen(prompt, self._own(request, self._replies(prompt)), self_act == "adapt")
        reasons = " ".join(f"({i}) {item}" for i, item in enumerate(items, 1))
        action = f"I will {self_act} my answer and {peer_act} on theirs. My answer: {answer or _NO_ANSWER}."
        action += f" My reasons: {reasons}" + (f" My comment: {_REMARK}" if peer_act == "comment" else "")
        return json.dumps({"self_act": self_act, "peer_act": peer_act, "action": action})

    def _execute(self, request: GenerationRequest) -> str:
        """The action carried out: as composed when it says what to answer; else by its acts and the replies
        the prompt quotes (the paper's Execute quotes none: the debater's own first answer)."""
        prompt = self._prompt(request)
        found = re.findall(r"(?:Here is the action:|^Action: )(.+)$", prompt, re.M)
        action = found[-1] if found else ""
        planned = _PLANNED.search(action)
        if planned is not None:
            items = [i for i in re.split(r"\s*\(\d+\)\s*", planned.group(2)) if i.strip()]
            answer = None if planned.group(1) == _NO_ANSWER else planned.group(1)
            return json.dumps({"answer": answer, "explanation": items, "comments": planned.group(3) or ""})
        acts = re.search(r"You have been given an action to execute: (.+)", prompt)
        named = (acts.group(1) if acts else action.partition(":")[0]).casefold()
        own = self._own(request, self._replies(prompt))
        return json.dumps(self._carried_out(self._chosen(prompt, own, "adapt" in named), "comment" in named))

    def _compose_execute(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        self_act, peer_act = self._acts(prompt)
        own = self._own(request, self._replies(prompt))
        reply = self._carried_out(self._chosen(prompt, own, self_act == "adapt"), peer_act == "comment")
        return json.dumps({"self_act": self_act, "peer_act": peer_act, **reply})

    def _revise(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        if _DU_SOLUTION.search(prompt):  # Du et al.'s conversation: its own last reply is the message before
            said = request.messages[-2].content if len(request.messages) > 1 else ""
            replies = [_quoted(said), *(_quoted(block) for block in _DU_SOLUTION.findall(prompt))]
        else:
            replies = self._replies(prompt)
        own = self._own(request, replies)
        best = self._longest(replies) or own
        chosen = best if len(best[0]) > len(own[0]) else own
        if "JSON" not in prompt:
            return "\n".join([*chosen[0], f"Answer: {chosen[1] or _NO_ANSWER}"])
        return json.dumps({"answer": chosen[1], "explanation": chosen[0]})

    def _pick(self, request: GenerationRequest) -> str:
        replies = self._replies(self._prompt(request))
        best = self._longest(replies)
        return json.dumps({"answer": best[1] if best is not None else None})
