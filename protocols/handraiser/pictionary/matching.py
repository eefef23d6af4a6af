"""Text Pictionary's two checks: does a guess name the secret, and did the describer say it.

What it does: ``normalise(text)`` reduces a name to what the checks compare
(case folded, accents kept, apostrophes dropped, other punctuation and
hyphens as spaces, a leading article or lead-in such as "it's" or "my guess
is" dropped, spaces collapsed). ``forms(name, singular=...)`` gives a name's accepted spellings:
itself, its plural forms (the last word's ``-s``, ``-es``, ``-ies``,
``-ves`` and the irregular ones: mice, geese, octopi ...) and, for the guess
check only, its singular forms (a guess "scissor" for "scissors").
``guessed(guess, secret, aliases)`` says whether a guess names the secret or
an alias in any of those forms, spaces aside ("alarm-clock", "alarmclock");
never by containment ("an alarm clock radio" is another thing).
``revealed(text, secret, aliases)`` gives the first form of the secret or an
alias that ``text`` says as a whole word (case-insensitive; "alarming" does
not say "alarm", "Alarm-Clocks" says "alarm clock"), or ``None``.

What it does not do: catch every way of revealing the entity (spelling it
out, translating it, a rhyme): the paper's rule is "in any way"; this check
is its word-form part, as docs.md says. It does not decide what happens
after a match (``loop``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

IRREGULAR = {
    "mouse": "mice",
    "goose": "geese",
    "tooth": "teeth",
    "foot": "feet",
    "man": "men",
    "woman": "women",
    "child": "children",
    "person": "people",
    "octopus": "octopi",
    "cactus": "cacti",
    "fish": "fish",
    "sheep": "sheep",
    "deer": "deer",
}
SINGULAR = {plural: singular for singular, plural in IRREGULAR.items()}
LEAD_INS = (
    "my guess is",
    "my final guess is",
    "i guess",
    "i think it is",
    "i think its",
    "i think",
    "is it",
    "it is",
    "its",
    "maybe",
    "perhaps",
    "probably",
)
ARTICLES = ("a", "an", "the", "some")
_NON_WORD = re.compile(r"[^\w\s]|_")


def normalise(text: str) -> str:
    """A name as the checks compare it (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    text = " ".join(_NON_WORD.sub(" ", text.replace("'", "")).split())
    changed = True
    while changed:
        changed = False
        for lead in (*LEAD_INS, *ARTICLES):
            if text == lead:
                continue
            if text.startswith(lead + " "):
                text, changed = text[len(lead) + 1 :], True
    return text


def plurals(word: str) -> set[str]:
    """The plural forms of one word (generous: a form English does not use does no harm)."""
    found = {word + "s", word + "es"}
    if word in IRREGULAR:
        found.add(IRREGULAR[word])
    if len(word) > 1 and word.endswith("y") and word[-2] not in "aeiou":
        found.add(word[:-1] + "ies")
    if word.endswith("f"):
        found.add(word[:-1] + "ves")
    if word.endswith("fe"):
        found.add(word[:-2] + "ves")
    return found


def singulars(word: str) -> set[str]:
    """The singular forms a plural word may have (``scissors`` -> ``scissor``; ``mice`` -> ``mouse``)."""
    found = set()
    if word in SINGULAR:
        found.add(SINGULAR[word])
    if word.endswith("ies") and len(word) > 4:
        found.add(word[:-3] + "y")
    if word.endswith("ves") and len(word) > 4:
        found.update({word[:-3] + "f", word[:-3] + "fe"})
    if word.endswith("es") and len(word) > 3:
        found.add(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 2:
        found.add(word[:-1])
    return found


def forms(name: str, *, singular: bool = False) -> set[str]:
    """A name's accepted spellings, normalised: itself and its last word's plural (and singular) forms."""
    base = normalise(name)
    if not base:
        return set()
    *head, last = base.split()
    endings = {last} | plurals(last) | (singulars(last) if singular else set())
    return {" ".join([*head, ending]) for ending in endings}


def guessed(guess: str, secret: str, aliases: Iterable[str] = ()) -> bool:
    """Whether ``guess`` names ``secret`` or one of ``aliases`` (see the module docstring)."""
    said = normalise(guess)
    if not said:
        return False
    accepted: set[str] = set()
    for name in (secret, *aliases):
        accepted |= forms(name, singular=True)
    compact = {form.replace(" ", "") for form in accepted}
    return said in accepted or said.replace(" ", "") in compact


def _pattern(form: str) -> re.Pattern[str]:
    words = [re.escape(word) for word in form.split()]
    return re.compile(r"(?<!\w)" + r"[\s\-]*".join(words) + r"(?!\w)", re.IGNORECASE)


def revealed(text: str, secret: str, aliases: Iterable[str] = ()) -> str | None:
    """The first form of ``secret`` or an alias that ``text`` says as a whole word, else ``None``."""
    plain = unicodedata.normalize("NFKC", text).replace("’", "'")
    for name in (secret, *aliases):
        for form in sorted(forms(name), key=len, reverse=True):
            found = _pattern(form).search(plain)
            if found is not None:
                return found.group(0)
    return None


def complete_words(text: str) -> str:
    """``text`` up to its last whole word: a chunk may end inside a word ("alarm" of "alarming")."""
    if not text or not text[-1].isalnum():
        return text
    cut = max(text.rfind(" "), text.rfind("-"), text.rfind("\n"))
    return text[: cut + 1] if cut >= 0 else ""
