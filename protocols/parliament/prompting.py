"""Parliament's prompts: the template files in ``prompts/`` filled from a ``RoleView``.

What it does: ``render(template, view)`` reads ``prompts/<template>.txt`` once
(cached) and fills it with ``string.Template`` (``${field}``), so JSON braces
need no escaping and text from agents and people is inserted verbatim, never
interpreted. The system message names the agent and its title, with its
persona. The answer format says what may follow the answer line: one of the
option labels, or a short answer.

What it does not do: choose who is asked or what a view holds (``protocol``
and the variant loops do), or parse replies (``forms``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from debate_core.backends.base import Message
from protocols.parliament.answers import SAME
from protocols.parliament.views import RoleView


@cache
def template(name: str) -> Template:
    folder = resources.files("protocols.parliament") / "prompts"
    return Template((folder / f"{name}.txt").read_text(encoding="utf-8").strip())


def answer_format(view: RoleView, *, same: bool = False) -> str:
    labels = view.question.labels
    if labels:
        names = [*labels, SAME] if same else list(labels)
        return " or ".join(f'"{label}"' for label in names)
    return '"<a short answer, a few words>"' + (' or "SAME"' if same else "")


def fields(view: RoleView, **extra: str) -> dict[str, str]:
    """Every ``${field}`` a template may use, from the view (``extra`` adds or overrides)."""
    low, high = view.sentences
    values = {
        "agent": view.agent,
        "title": view.title,
        "other": view.other,
        "question": view.question.render(),
        "context": f"\nContext:\n{view.context.strip()}\n" if view.context.strip() else "",
        "brief": f"\n{view.brief.strip()}" if view.brief.strip() else "",
        "persona": f" {view.persona.strip()}" if view.persona.strip() else "",
        "sentences": f"{low} to {high}" if low != high else str(low),
        "sentences_max": str(high),
        "reply_sentences": str(high),
        "critique_sentences": str(high),
        "speech": view.speech,
        "chunk": view.chunk,
        "point": view.point,
        "reply": view.reply,
        "transcript": "\n".join(view.transcript) or "(nothing yet)",
        "answer_format": answer_format(view),
        "answer_format_same": answer_format(view, same=True),
        "shown": "The passage just spoken",
        "record": "",
        "task": "",
    }
    values.update(extra)
    return values


def render(name: str, view: RoleView, **extra: str) -> tuple[Message, ...]:
    """The system message and the filled template ``name`` for ``view``."""
    values = fields(view, **extra)
    return (
        Message("system", template("system").substitute(values)),
        Message("user", template(name).substitute(values)),
    )
