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
``sent(request)`` is the note after a submission, in the request's own
description ("Sent: the observer's analysis of the debaters' replies."),
never its kind's program name; ``heading(request)`` the heading of a request
that has no prompt of its own.

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
        return own or f"### {heading(request)}"
    round_ = getattr(request.view, "round", None)
    title = wording.heading + (f", round {round_}" if isinstance(round_, int) and wording.rounded else "")
    return f"### {title}\n{wording.sentence}" + (f"\n\n{own}" if own else "")


def choices(request: HumanRequest, spec: FieldSpec) -> list[tuple[str, str]]:
    """The (label, value) pairs of a choice field: worded for a registered wording, else the values themselves."""
    wording = _wording(request)
    pairs = []
    for value in spec.choices:
        label = wording.labels.get(value, value) if wording else value
        said = getattr(request.view, f"{value}_position", None) if wording else None
        pairs.append((f"{label}: {said}" if isinstance(said, str) and said else label, value))
    return pairs


def heading(request: HumanRequest) -> str:
    """What a request without a prompt of its own asks for, as a heading: its description, else "Your turn"."""
    what = request.description.strip()
    return what[:1].upper() + what[1:] if what else "Your turn"


def sent(request: HumanRequest) -> str:
    """The note after the person's submission went through, saying what was sent in the request's own words."""
    what = request.description.strip().removesuffix(".")
    if not what:
        return "Sent."
    if what.endswith("?"):  # a yes/no decision: "cut the speaker off now?"
        return f"Sent your answer to \u201c{what}\u201d"
    return f"Sent: {what}."
