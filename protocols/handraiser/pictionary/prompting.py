"""Text Pictionary's prompts: the template files in ``prompts/`` filled from a ``PictionaryView``.

What it does: ``render(template, view)`` reads ``prompts/<template>.txt``
once (cached, HandRaiser's ``package_template``) and fills it with ``string.Template`` (``${field}``); the
system message is the role's (``system_describer`` or ``system_guesser``).
The guesser's decision prompt is append-only (the record, then what it has
heard of the current description, last), so that a backend's prefix cache
makes each check after the first cost about one chunk of prefill and one
decoded token. Only the describer's prompts name the secret entity.

What it does not do: choose who is asked or what a view holds (``loop``,
``state``), or parse replies (``forms``).
"""

from __future__ import annotations

from string import Template

from debate_core.backends.base import Message
from protocols.handraiser.pictionary.views import PictionaryView
from protocols.handraiser.prompting import package_template

CONCISE = " Be concise: one or two short sentences."
CUT = " You cut the describer off."


def template(name: str) -> Template:
    return package_template("protocols.handraiser.pictionary", name)


def fields(view: PictionaryView) -> dict[str, str]:
    """Every ``${field}`` a template may use, from the view."""
    return {
        "agent": view.agent,
        "title": view.title,
        "persona": f" {view.persona.strip()}" if view.persona.strip() else "",
        "brief": f"\nYour notes (private):\n{view.brief.strip()}\n" if view.brief.strip() else "",
        "entity": view.entity,
        "transcript": "\n".join(view.transcript) or "(nothing yet)",
        "partial": view.partial.strip(),
        "cut": CUT if view.cut else "",
        "concise": CONCISE if view.concise else "",
        "round": str(view.round),
        "max_rounds": str(view.max_rounds),
    }


def render(name: str, view: PictionaryView) -> tuple[Message, ...]:
    """The role's system message and the filled template ``name`` for ``view``."""
    values = fields(view)
    return (
        Message("system", template(f"system_{view.role}").substitute(values)),
        Message("user", template(name).substitute(values)),
    )
