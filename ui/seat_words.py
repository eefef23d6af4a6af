"""How the seat form words a request whose bare values would not say what choosing them does.

What it does: a protocol's web plugin registers ``Wording``\\ s by request
kind (``WebRenderers.wordings``: a heading, a sentence on what the choice
does, and a label for each value of its choice field). ``prompt(request)``
is the form's prompt (that heading and sentence before the request's own
description, its ``<`` kept as text so that a format such as "MEET <person>
AT <location>" is shown whole; the round in the heading for a ``rounded``
wording);
``choices(request, spec)`` the radio's (label, value) pairs, each label
followed by what the request's view says of that value when it has a
``<value>_position``. So a moderator's ``vote`` reads "Vote for Pro: D)
Argon", not ``pro``. A wording applies only when the request's choices are
all among its labels (another protocol's kind of the same name keeps its
own); every other request kind keeps its own prompt and values.

What it does not do: change what is submitted (the values stay the
request's own), validate, lay out widgets (``seat_form``), or word any
protocol's requests itself (their ``web`` modules do).
"""

from __future__ import annotations

from debate_core.kernel.forms import FieldSpec
from debate_core.kernel.human import HumanRequest
from ui.web_plugins import Wording, wordings


def _wording(request: HumanRequest) -> Wording | None:
    """The registered wording of the request's kind whose labels cover its choices, if any."""
    fields = [spec for spec in request.fields if spec.choices]
    for wording in wordings().get(request.kind, ()):
        if fields and all(set(spec.choices) <= set(wording.labels) for spec in fields):
            return wording
    return None


def prompt(request: HumanRequest) -> str:
    """The form's prompt (Markdown): a worded kind's heading and sentence first, then the request's own."""
    wording = _wording(request)
    own = request.prompt.replace("<", "&lt;")  # "MEET <person> AT ...": shown as written, never taken for a tag
    if wording is None:
        return own or f"### Your {request.kind.replace('_', ' ')}"
    round_ = getattr(request.view, "round", None)
    heading = wording.heading + (f", round {round_}" if isinstance(round_, int) and wording.rounded else "")
    return f"### {heading}\n{wording.sentence}" + (f"\n\n{own}" if own else "")


def choices(request: HumanRequest, spec: FieldSpec) -> list[tuple[str, str]]:
    """The (label, value) pairs of a choice field: worded for a registered wording, else the values themselves."""
    wording = _wording(request)
    pairs = []
    for value in spec.choices:
        label = wording.labels.get(value, value) if wording else value
        said = getattr(request.view, f"{value}_position", None) if wording else None
        pairs.append((f"{label}: {said}" if isinstance(said, str) and said else label, value))
    return pairs
