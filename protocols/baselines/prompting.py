"""The baselines' prompts: the template files in ``prompts/`` filled from a ``SolverView``.

What it does: ``render(template, view)`` reads ``prompts/<template>.txt`` once (cached) and fills
it with ``string.Template`` (``${field}``), so text from models and people is inserted verbatim,
never interpreted. The system message names the solver, with its persona. The answer format
says what may follow the ``Final Answer:`` line: one of the option labels, or a short answer.
The prompts are this project's, written from each baseline's paper (the ledger in ``docs.md``
names the method each follows).

What it does not do: choose who is asked or what a view holds (the loops), or parse replies
(``forms``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from debate_core.backends.base import Message
from protocols.baselines.views import SolverView

METHOD_NAMES = {
    "cot": "chain of thought",
    "step_back": "step-back prompting",
    "pot": "program of thought",
    "self_contrast": "self-contrast",
}


@cache
def template(name: str) -> Template:
    folder = resources.files("protocols.baselines") / "prompts"
    return Template((folder / f"{name}.txt").read_text(encoding="utf-8").strip())


def answer_format(view: SolverView) -> str:
    labels = view.question.labels
    if labels:
        return " or ".join(f'"{label}"' for label in labels)
    return '"<a short answer, a few words>"'


def solutions(view: SolverView) -> str:
    """The perspectives' solutions, numbered, as the contrast and the reconciliation quote them."""
    return "\n\n".join(f"Solution {i}:\n{text}" for i, text in enumerate(view.solutions, 1)) or "(none)"


def fields(view: SolverView) -> dict[str, str]:
    """Every ``${field}`` a template may use, from the view."""
    return {
        "agent": view.agent,
        "question": view.question.render(),
        "context": f"\nContext:\n{view.context.strip()}\n" if view.context.strip() else "",
        "brief": f"\n{view.brief.strip()}" if view.brief.strip() else "",
        "persona": f" {view.persona.strip()}" if view.persona.strip() else "",
        "sentences": str(view.sentences),
        "principles": view.principles or "(nothing)",
        "perspective": view.perspective,
        "count": str(view.count),
        "solutions": solutions(view),
        "checklist": view.checklist or "(no differences found)",
        "answer_format": answer_format(view),
        "own": view.own or "(nothing)",
        "others": "\n\n".join(view.others) or "(none)",
        "record": "\n\n".join(view.record) or "(nothing yet)",
        "rounds": str(view.rounds),
        "round": str(view.round),
        "side_a": view.sides[0] or "nothing yet",
        "side_n": view.sides[1] or "nothing yet",
        "method_name": METHOD_NAMES.get(view.method, view.method),
    }


def render(name: str, view: SolverView) -> tuple[Message, ...]:
    """The system message and the filled template ``name`` for ``view``."""
    values = fields(view)
    return (
        Message("system", template("system").substitute(values)),
        Message("user", template(name).substitute(values)),
    )
