"""The parallel baseline on Du et al.'s original prompts, with ACE's format-constraining prompt.

What it does: ACE's Implementation Details say every baseline "evaluated
using their original prompts, with the only modification being the use of
our format-constraining prompts". ``du_forms(params)`` builds the parallel
baseline's ``answer`` and ``revise`` kinds that way (``par_prompts=du``, the
default):

* **the wording** is Du et al.'s (their code's question-answering prompts,
  ``prompts/par_answer.txt`` and ``par_revise.txt``): "Can you answer the
  following question as accurately as possible? ... Explain your answer", and
  in a revision "These are the solutions to the problem from other agents:"
  with each "One agent solution" fenced, then "Using the reasoning from other
  agents as additional advice, can you give an updated answer? Examine your
  solution and that other agents step by step." Their answer form, ``(X)``,
  is where ACE's format constraint goes: an ``Answer:`` line at the end (the
  letter of one option, or the exact short answer of a free-form task);
* **the conversation** is Du et al.'s: each debater's request holds its own
  talk so far (the first prompt, its reply, each revision prompt with the
  others' replies of the round before, its reply, ...), the new revision
  prompt last. There is no system message (Du et al. send none) unless the
  seat has a persona or a private brief, which one then carries;
* **the reply** is prose, read by its last ``Answer:`` line (``Final
  Answer:`` too); its other non-empty lines are the explanation, published
  one per line. A reply that is a JSON object with an answer is read as
  ACE's are. An answer naming no option keeps the debater's last one
  (noted); a reply with neither answer nor text falls back to the last
  reply. No JSON schema is sent (the reply is prose), ``constrained`` or not.

A person fills the same fields as in ACE's own prompts (an answer and
explanation lines).

What it does not do: run the rounds (the kernel's ``parallel_debate``, via
``loop.parallel``) or build ACE's own forms (``forms``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from debate_core.backends.base import Message
from debate_core.kernel.forms import Form, FormInvalid
from protocols.ace.prompting import fields, template
from protocols.ace.replies import ANSWER_LINE, answer_of, json_in, read_stance
from protocols.ace.views import AceView, Stance

CHOICE_FORM = '"Answer: X" (X: the letter of one option)'
FREE_FORM = '"Answer: <the exact answer only: a number, a word or a short phrase>"'


def _filled(name: str, view: AceView, **extra: str) -> str:
    values = fields(view)
    values["par_form"] = CHOICE_FORM if view.question.labels else FREE_FORM
    values.update(extra)
    return template(name).substitute(values)


def said(stance: Stance) -> str:
    """A reply as its debater wrote it (its lines, then the answer line), as Du et al. pass replies on."""
    return "\n".join([*stance.explanation, f"Answer: {stance.answer if stance.answer is not None else '(none)'}"])


def _solutions(stances: tuple[Stance, ...], me: str) -> str:
    """Du et al.'s ``construct_message``: each other agent's reply, fenced, after a blank line."""
    return "".join(f"\n\n One agent solution: ```{said(s)}```" for s in stances if s.agent != me)


def render(view: AceView) -> tuple[Message, ...]:
    """The debater's conversation so far and its next prompt (see the module docstring)."""
    messages: list[Message] = []
    if view.persona.strip() or view.brief.strip():
        messages.append(Message("system", _filled("par_system", view)))
    messages.append(Message("user", _filled("par_answer", view)))
    for past in view.history:
        own = next((s for s in past if s.agent == view.agent), None)
        if own is not None:
            messages.append(Message("assistant", said(own)))
        messages.append(Message("user", _filled("par_revise", view, solutions=_solutions(past, view.agent))))
    return tuple(messages)


def read_prose(raw: str, view: AceView) -> tuple[Stance, str | None]:
    """A reply to Du et al.'s prompts: its last ``Answer:`` line and its other lines; raises ``FormInvalid``."""
    if json_in(raw, "answer", "explanation") is not None:
        return read_stance(raw, view, view.item_chars, comments=False)
    said = ANSWER_LINE.findall(raw)
    body = tuple(" ".join(line.split()) for line in ANSWER_LINE.sub("", raw).splitlines() if line.strip())
    if not said and not body:
        raise FormInvalid("no answer and no reasoning in the output")
    notes: list[str] = []
    answer = answer_of(said[-1] if said else None, view, notes)
    return Stance(view.agent, answer, body), "; ".join(notes) or None


def _no_schema(view: AceView) -> dict[str, Any] | None:
    return None  # the reply is prose: there is no JSON to constrain


def du_form(base: Form[AceView, Stance]) -> Form[AceView, Stance]:
    """``base`` (ACE's ``answer`` or ``revise``) asked with Du et al.'s prompts and read as prose."""
    name = "par_answer" if base.kind == "answer" else "par_revise"
    return dataclasses.replace(base, render=render, parse=read_prose, schema=_no_schema, template=name)
