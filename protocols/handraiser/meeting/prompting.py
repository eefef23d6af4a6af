"""Meeting Scheduling's prompts: the template files in ``prompts/`` filled from a ``MeetingView``.

What it does: ``render(template, view)`` reads ``prompts/<template>.txt``
once (HandRaiser's ``package_template``) and fills it with
``string.Template`` (``${field}``); the system message is the role's
(``system_traveler``, or ``system_planner`` for either planner). A seat's
briefing is in every prompt it gets (its private information, never
another's). The decision prompt (``listen``) is append-only (the record,
then what the listener has heard of the current message, last), so that a
backend's prefix cache makes each check after the first cost about one chunk
of prefill and one decoded token.

What it does not do: choose who is asked or what a view holds (``loop``,
``state``), or parse replies (``forms``).
"""

from __future__ import annotations

from string import Template

from debate_core.backends.base import Message
from protocols.handraiser.meeting.views import MeetingView
from protocols.handraiser.prompting import package_template

CONCISE = " Be concise: two or three short sentences."


def template(name: str) -> Template:
    return package_template("protocols.handraiser.meeting", name)


def fields(view: MeetingView) -> dict[str, str]:
    """Every ``${field}`` a template may use, from the view."""
    return {
        "agent": view.agent,
        "title": view.title,
        "persona": f" {view.persona.strip()}" if view.persona.strip() else "",
        "brief": f"\nYour notes (private):\n{view.brief.strip()}\n" if view.brief.strip() else "",
        "briefing": view.briefing.strip(),
        "contacts": "\n".join(f"- {line}" for line in view.contacts),
        "transcript": "\n".join(view.transcript) or "(nothing yet)",
        "speaker": view.speaker,
        "partial": view.partial.strip(),
        "note": f"\n{view.note.strip()}\n" if view.note.strip() else "",
        "cut": f" You cut {view.cut} off." if view.cut else "",
        "concise": CONCISE if view.concise else "",
        "round": str(view.round),
        "max_rounds": str(view.max_rounds),
    }


def render(name: str, view: MeetingView) -> tuple[Message, ...]:
    """The role's system message and the filled template ``name`` for ``view``."""
    values = fields(view)
    system = "system_traveler" if view.role == "traveler" else "system_planner"
    return (
        Message("system", template(system).substitute(values)),
        Message("user", template(name).substitute(values)),
    )
