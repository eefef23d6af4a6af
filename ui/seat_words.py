"""How the seat form words a request whose bare values would not say what choosing them does.

What it does: ``WORDS`` gives, for a few request kinds, a heading, a sentence
on what the choice does, and a label for each value of its choice field.
``prompt(request)`` is the form's prompt (that heading and sentence before
the request's own description); ``choices(request, spec)`` the radio's
(label, value) pairs, each label followed by what the request's view says of
that value when it has a ``<value>_position`` (HandRaiser's sides). So the
moderator's ``vote`` reads "Vote for Pro: D) Argon", "Vote for Con: B)
Nitrogen", "Wait another round" instead of ``pro``, ``con``, ``wait``. Every
other request kind keeps its own prompt and values.

What it does not do: change what is submitted (the values stay ``pro``,
``con``, ``wait``), validate, or lay out widgets (``seat_form``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from debate_core.kernel.forms import FieldSpec
from debate_core.kernel.human import HumanRequest


@dataclass(frozen=True)
class Wording:
    heading: str
    sentence: str
    labels: dict[str, str] = field(default_factory=dict)


_SIDES = {"pro": "Vote for Pro", "con": "Vote for Con"}
WORDS = {
    "vote": Wording(
        "Your vote",
        "Vote for a side and the debate ends with its answer, or wait to hear another round.",
        {**_SIDES, "wait": "Wait another round"},
    ),
    "verdict": Wording(
        "Your verdict",
        "You cut Con off, so you decide now: the debate ends with the answer of the side you vote for.",
        _SIDES,
    ),
}


def _wording(request: HumanRequest) -> Wording | None:
    """The request's wording, if its kind has one and its choices are those worded (another protocol's kind of
    the same name keeps its own)."""
    wording = WORDS.get(request.kind)
    if wording is None:
        return None
    fields = [spec for spec in request.fields if spec.choices]
    worded = bool(fields) and all(set(spec.choices) <= set(wording.labels) for spec in fields)
    return wording if worded else None


def prompt(request: HumanRequest) -> str:
    """The form's prompt (Markdown): a worded kind's heading and sentence first, then the request's own."""
    wording = _wording(request)
    own = request.prompt
    if wording is None:
        return own or f"### Your {request.kind.replace('_', ' ')}"
    round_ = getattr(request.view, "round", None)
    heading = wording.heading + (f", round {round_}" if isinstance(round_, int) and request.kind == "vote" else "")
    return f"### {heading}\n{wording.sentence}" + (f"\n\n{own}" if own else "")


def choices(request: HumanRequest, spec: FieldSpec) -> list[tuple[str, str]]:
    """The (label, value) pairs of a choice field: worded for the kinds in ``WORDS``, else the values themselves."""
    wording = _wording(request)
    pairs = []
    for value in spec.choices:
        label = wording.labels.get(value, value) if wording else value
        said = getattr(request.view, f"{value}_position", None) if wording else None
        pairs.append((f"{label}: {said}" if isinstance(said, str) and said else label, value))
    return pairs
