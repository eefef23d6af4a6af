"""Text Pictionary's request kinds: the describer's description, the guesser's check and its guess.

What it does: builds the ``Form`` kinds the game asks:

* ``describe`` (the describer, each round): plain prose, capped at
  ``description_tokens``; fallback for an empty or unusable reply: nothing
  said (the guesser moves on to its guess);
* ``listen`` (the guesser, after each chunk but the last): one token, ``Yes``
  or ``No`` (``kernel.policies.decision_form``, with the choice
  probabilities the ``threshold`` policy reads); fallback: no interruption.
  A person's Interrupt button answers it at the next chunk;
* ``guess`` (the guesser, after each description): a ``Move``, a guess or a
  question, read by ``parse_move`` from ``Guess: ...`` / ``Question: ...``,
  a JSON object ``{"guess": ...}`` / ``{"question": ...}``, a line ending
  in "?" (a question) or a short line of at most six words (a guess);
  fallback: no guess (nothing said; the game goes on). A person types one
  line: ending in "?" it is a question, else a guess.

What it does not do: decide when each is asked (``loop``), check a guess
(``matching``) or word prompts (``prompts/``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from debate_core.kernel.forms import FieldSpec, Form, FormInvalid
from debate_core.kernel.policies import Decision, decision_form
from debate_core.kernel.replies import load_object
from protocols.handraiser.forms import text_form
from protocols.handraiser.pictionary.params import PictionaryParams
from protocols.handraiser.pictionary.prompting import render
from protocols.handraiser.pictionary.views import PictionaryView

MAX_GUESS_CHARS = 300
SHORT_GUESS_WORDS = 6
GUESS_LABEL = "Your guess, or a question ending with ?"
GUESS_SENTENCE = "name the secret entity (a right guess ends the game), or ask the describer a question ending with ?"
_LABELLED = re.compile(r"^\W*(guess|answer|question)\s*[:\-]\s*(.+)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Move:
    """The guesser's move: a guess (``text`` names an entity) or a question; an empty ``text``: none."""

    kind: Literal["guess", "question"]
    text: str

    @property
    def words(self) -> str:
        """The move as said in public."""
        if not self.text:
            return ""
        return f"Guess: {self.text}" if self.kind == "guess" else self.text


def _clean(text: str) -> str:
    return " ".join(text.strip().strip('"').split()).strip()


def parse_move(raw: str) -> Move:
    """A guess or a question from a reply (see the module docstring); ``FormInvalid`` when it is neither."""
    text = raw.strip()
    if text.startswith("{"):
        data, _ = load_object(text)
        for key in ("guess", "answer", "question"):
            value = data.get(key)
            if isinstance(value, str) and _clean(value):
                return Move("question" if key == "question" else "guess", _clean(value)[:MAX_GUESS_CHARS])
        raise FormInvalid('expected {"guess": "..."} or {"question": "..."}')
    lines = [line for line in (_clean(line) for line in text.splitlines()) if line]
    if not lines:
        raise FormInvalid("an empty reply")
    for line in lines:
        found = _LABELLED.match(line)
        if found:
            said = _clean(found.group(2)).rstrip(".!")
            if not said:
                break
            asked = found.group(1).lower() == "question"
            return Move("question" if asked else "guess", said[:MAX_GUESS_CHARS])
    first = lines[0]
    if first.endswith("?"):
        return Move("question", first[:MAX_GUESS_CHARS])
    if len(first.split()) <= SHORT_GUESS_WORDS:
        return Move("guess", first.rstrip(".!")[:MAX_GUESS_CHARS])
    raise FormInvalid(f"expected 'Guess: ...' or 'Question: ...', got {first[:40]!r}")


def _from_person(values: Mapping[str, Any], view: PictionaryView) -> Move:
    text = _clean(str(values["text"]))
    return Move("question" if text.endswith("?") else "guess", text.rstrip(".!") if not text.endswith("?") else text)


def _guess(cap: int) -> Form[PictionaryView, Move]:
    return Form(
        kind="guess",
        description="the guesser's guess, or a question to the describer",
        render=lambda view: render("guess", view),
        parse=lambda raw, view: (parse_move(raw), None),
        fallback=lambda view: Move("guess", ""),
        fields=lambda view: (
            FieldSpec("text", "text", GUESS_LABEL, max_chars=MAX_GUESS_CHARS, words=True, noun="guess"),
        ),
        from_human=_from_person,
        human_raw=lambda move: move.words,
        describe=lambda view: f"Round {view.round} of {view.max_rounds}: {GUESS_SENTENCE}",
        token_cap=lambda config: min(config.max_new_tokens, cap),
        template="guess",
    )


@dataclass(frozen=True)
class PictionaryForms:
    describe: Form[PictionaryView, str]
    listen: Form[PictionaryView, Decision]
    guess: Form[PictionaryView, Move]

    def by_kind(self) -> dict[str, Form[Any, Any]]:
        return {form.kind: form for form in vars(self).values()}


def pictionary_forms(params: PictionaryParams) -> PictionaryForms:
    """Every request kind of the game, with the token caps of ``params``."""
    return PictionaryForms(
        describe=text_form(
            "describe",
            "the describer's description of the secret entity",
            lambda view: render("describe", view),
            noun="description",
            label="Your description (never say the entity)",
            cap=params.description_tokens,
            describe=lambda view: f"Describe {view.entity} without saying it",
        ),
        listen=decision_form(
            "listen",
            "interrupt the describer and guess now?",
            lambda view: render("listen", view),
            probabilities=True,
            template="listen",
            describe=lambda view: "Interrupt the describer now",
        ),
        guess=_guess(params.guess_tokens),
    )
