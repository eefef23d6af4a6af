"""Text Pictionary's entity pool and a game's secret.

What it does: ``pool()`` reads ``entities.json`` (this package's own list of
Pictionary-style words, with its source and licence in its header; the
paper's "entities from online pictionary games", unfiltered: see
``study/pictionary_data.py`` for the filter) into ``Entity`` records (the
entity, its category, its aliases), cached. ``find(name)`` looks one up by
any of its names. ``secret_of(question, extra)`` is a game's ``Secret``: the
entity is the question's answer (a free-form answer as given; for a
multiple-choice question, the text of its correct option), ``answer`` what
the game ends with when it is guessed (the question's own answer, so that the
kernel scores it), and the aliases are the pool's for that entity plus
``extra`` (the ``aliases`` parameter).

What it does not do: check guesses or reveals (``matching``), or choose which
entities a study plays (``study/pictionary_data.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from debate_core.config import Question
from debate_core.errors import ConfigError
from protocols.handraiser.pictionary.matching import normalise

POOL_FILE = "entities.json"


@dataclass(frozen=True, slots=True)
class Entity:
    """One entry of the pool."""

    name: str
    category: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Secret:
    """What the describer describes (``entity``), what the game ends with when it is guessed (``answer``), and
    the other names a guess may use and the describer may not say (``aliases``)."""

    entity: str
    answer: str
    aliases: tuple[str, ...] = ()
    category: str = ""


@cache
def pool() -> tuple[Entity, ...]:
    """Every entity of ``entities.json``, in the file's order."""
    text = (resources.files("protocols.handraiser.pictionary") / POOL_FILE).read_text(encoding="utf-8")
    rows = json.loads(text)["entities"]
    return tuple(Entity(row["entity"], row.get("category", ""), tuple(row.get("aliases", ()))) for row in rows)


@cache
def _by_name() -> dict[str, Entity]:
    found: dict[str, Entity] = {}
    for entity in pool():
        for name in (entity.name, *entity.aliases):
            found.setdefault(normalise(name), entity)
    return found


def find(name: str) -> Entity | None:
    """The pool's entity that ``name`` names (its entity or an alias, normalised), if any."""
    return _by_name().get(normalise(name))


def secret_of(question: Question, extra: tuple[str, ...] = ()) -> Secret:
    """A game's secret (see the module docstring); ``ConfigError`` when the question has no answer."""
    if question.answer is None:
        raise ConfigError(
            "Text Pictionary describes the question's answer, and this question has none: give the secret entity "
            "as the answer (--question 'Text Pictionary' --answer 'alarm clock'), or play the pictionary data set"
        )
    entity = question.answer
    if question.is_multiple_choice:
        entity = question.options[question.labels.index(question.answer)].rstrip(".")
    known = find(entity)
    aliases = tuple(dict.fromkeys((*(known.aliases if known else ()), *extra)))
    return Secret(entity.strip(), question.answer, aliases, known.category if known else "")
