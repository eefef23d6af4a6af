"""Small HTML pieces every renderer shares: an agent's coloured name, its role, an unusable reply.

What it does: ``name_html`` (the name in the agent's colour), ``role_html``
(the role after the name, in protocols with roles) and ``invalid_html`` (a
seat's unusable reply and why). Every text goes through ``html.escape``.

What it does not do: draw a whole line or panel (``render``, ``render_rounds``).
"""

from __future__ import annotations

from html import escape

from ui.view_model import DebateView


def name_html(view: DebateView, agent: str | None) -> str:
    return f'<span class="agent" style="color:{view.colour(agent)}">{escape(agent or "")}</span>'


def role_html(view: DebateView, agent: str) -> str:
    """The speaker's role in a protocol with roles (HandRaiser's pro, con, moderator), after the name."""
    role = view.roles.get(agent)
    return f'<span class="role">{escape(role)}</span>' if role else ""


def invalid_html(valid: bool, error: str | None, what: str = "reply") -> str:
    """A seat's unusable reply and why (as an invalid plan is shown); empty for a usable one."""
    if valid and not error:
        return ""
    said = f"invalid {what}: {error or 'no reason given'}" if not valid else str(error)
    return f'<div class="invalid">{escape(said)}</div>'
