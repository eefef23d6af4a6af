"""HandRaiser's prompts: the template files in ``prompts/`` filled from a ``HandView``.

What it does: ``render(template, view)`` reads ``prompts/<template>.txt`` once
(cached) and fills it with ``string.Template`` (``${field}``), so JSON braces
need no escaping and what agents and people said is inserted verbatim. The
moderator's decision prompt is append-only (the record, the question, then
the chunks heard so far this round, last), so that a backend's prefix cache
makes each check after a statement's first cost about one chunk of prefill
plus the chat template's closing tokens, and one token of decoding. A
side's statement prompt quotes the clarifying question the moderator asked
at the end of the last round, if any (``ASKED``), and tells it to answer it.

What it does not do: choose who is asked or what a view holds (``loop``),
or parse replies (``forms``).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from string import Template

from debate_core.backends.base import Message
from protocols.handraiser.views import HandView

CONCISE = " Be concise: make your case in two or three short sentences."
ASKED = ' The moderator asked you both: "${question}" Answer that question first, then make your case.'


@cache
def package_template(package: str, name: str) -> Template:
    """``prompts/<name>.txt`` of ``package`` (this one's, or a task's such as Text Pictionary's), read once."""
    folder = resources.files(package) / "prompts"
    return Template((folder / f"{name}.txt").read_text(encoding="utf-8").strip())


def template(name: str) -> Template:
    return package_template("protocols.handraiser", name)


def fields(view: HandView) -> dict[str, str]:
    """Every ``${field}`` a template may use, from the view."""
    return {
        "agent": view.agent,
        "title": view.title,
        "question": view.question.render(),
        "persona": f" {view.persona.strip()}" if view.persona.strip() else "",
        "brief": f"\nYour notes (private):\n{view.brief.strip()}\n" if view.brief.strip() else "",
        "position": view.position,
        "other": view.other_title,
        "other_position": view.other_position,
        "pro_position": view.pro_position,
        "con_position": view.con_position,
        "transcript": "\n".join(view.transcript) or "(nothing yet)",
        "speaker": view.speaker,
        "partial": view.partial.strip(),
        "concise": CONCISE if view.concise else "",
        "asked": Template(ASKED).substitute(question=view.asked.strip()) if view.asked.strip() else "",
        "round": str(view.round),
        "max_rounds": str(view.max_rounds),
    }


def render(name: str, view: HandView) -> tuple[Message, ...]:
    """The system message and the filled template ``name`` for ``view``."""
    values = fields(view)
    system = "system_moderator" if view.role == "moderator" else "system"
    return (
        Message("system", template(system).substitute(values)),
        Message("user", template(name).substitute(values)),
    )
