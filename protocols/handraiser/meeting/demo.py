"""Meeting Scheduling's scripted game: the whole flow with no model at all, to a schedule that holds.

What it does: ``SchedulingDemo(config).reply`` answers each request kind
from a short script, so ``python -m debate_core run --protocol scheduling
--backend scripted`` plays a game in a second:

* ``traveler_turn``: the traveler writes to the first planner it has not
  heard from yet (the planners are the prompt's "You can talk to" lines;
  heard from: the record has a line of theirs saying where their person
  is), asking where and when; once it has heard both, it submits the
  case's **reference schedule** (``SCHEDULE`` and the MEET lines). The
  script finds the case as the protocol does (``cases.case_for``): a model
  would work the schedule out from what the planners said, the script
  takes the answer it is known to have;
* ``planner_turn``: the planner writes to the traveler ("To: <name>") its
  person's facts, taken from the briefing in its prompt (location,
  availability, meeting length, preferred time), then two sentences of
  filler (none under ``concise``);
* ``listen``: Yes (interrupt) once what has been heard holds the preferred
  time, the last fact (choice probabilities 0.85/0.15 for the ``threshold``
  policy); so the prompted traveler cuts a planner off before its filler.
  A planner listening (``symmetric``) never interrupts.

What it does not do: pretend to be a model; it never produces an unusable reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import Output, ScriptByKind, ScriptedReply
from debate_core.config import DebateConfig
from protocols.handraiser.meeting.cases import case_for
from protocols.handraiser.meeting.params import SchedulingParams
from protocols.handraiser.scheduling import render_schedule

FILLER = (
    "Let me know if anything about this is unclear, and I will gladly explain it again.",
    "We are flexible about the details as long as these times are respected.",
)
_CONTACT = re.compile(r"^- (.+?) \((Planner [AB]), the planner of (.+)\)$", re.MULTILINE)
_TRAVELER = re.compile(r"^- (.+?) \(Traveler\)$", re.MULTILINE)
_FACT = re.compile(r"^- ((?:Location|Available|Meeting length|Preferred time): .+)$", re.MULTILINE)
_FACTS_DONE = re.compile(r"Preferred time: [^.]*\.")


@dataclass
class SchedulingDemo(ScriptByKind):
    """The scripted game (see the module docstring)."""

    config: DebateConfig
    demo_name = "scheduling"

    def _traveler_turn(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        for name, _title, person in _CONTACT.findall(prompt):
            heard = re.search(rf"^{re.escape(name)} \(Planner [AB]\) to .*?{re.escape(person)} is at ", prompt,
                              re.MULTILINE)  # fmt: skip
            if heard is None:
                return f"To: {name}\nWhere is {person}, when are they free, and how long do we need?"
        reference = case_for(self.config, SchedulingParams.model_validate(dict(self.config.params))).reference
        return "SCHEDULE\n" + (render_schedule(reference) if reference is not None else "NO MEETINGS")

    def _planner_turn(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        traveler = _TRAVELER.search(prompt)
        facts = " ".join(_FACT.findall(prompt))
        said = facts if "Be concise" in prompt else " ".join((facts, *FILLER))
        return f"To: {traveler.group(1) if traveler else 'the traveler'}\n{said}"

    def _listen(self, request: GenerationRequest) -> Output:
        prompt = self._prompt(request)
        heard = prompt.rsplit("so far:\n", 1)[-1]
        yes = "You are the traveler" in prompt and _FACTS_DONE.search(heard) is not None
        probs = {"Yes": 0.85, "No": 0.15} if yes else {"Yes": 0.15, "No": 0.85}
        return ScriptedReply("Yes" if yes else "No", choice_probs=probs)
