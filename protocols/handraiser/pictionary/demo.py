"""Text Pictionary's scripted game: the whole flow with no model at all.

What it does: ``PictionaryDemo(config).reply`` answers each request kind
from a short script, so ``python -m debate_core run --protocol pictionary
--backend scripted`` plays a game in a second. The script plays by clues a
script can solve, dull for a person but deterministic:

* ``describe``: the secret's kind (its category in the pool, else "a
  thing"), the number of letters in its name, and its first letters, one
  more each round ("Its name begins with the letters B, A."), then two
  sentences of filler (none under ``concise``);
* ``listen``: the guesser keeps the pool's entities that fit every clue in
  its prompt (the record and what it has heard) and that it has not guessed
  yet, and says Yes (interrupt) as soon as exactly one is left (choice
  probabilities 0.85/0.15 for the ``threshold`` policy);
* ``guess``: the first entity left; when every letter of a name that is not
  in the pool has been given, that name; with no clue at all, a question.

So the scripted guesser solves a pool entity within a few rounds, usually
cutting the describer off before the filler, and a name outside the pool
once it has been spelled out (the demo question's "Nitrogen" in round 8);
it never reveals the secret. The script reads only what a model would get
(the request kind and the prompt's text).

What it does not do: pretend to be a model; it never produces an unusable reply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from debate_core.backends.base import GenerationRequest
from debate_core.backends.scripted import Output, ScriptByKind, ScriptedReply
from debate_core.config import DebateConfig
from protocols.handraiser.pictionary.entities import find, pool
from protocols.handraiser.pictionary.matching import normalise

KINDS = {
    "animal": "an animal",
    "object": "an everyday object",
    "food": "something to eat",
    "place": "a place",
    "vehicle": "a vehicle",
    "action": "an action, something people do",
    "nature": "something in nature",
    "clothing": "something to wear",
    "instrument": "a musical instrument",
    "person": "a kind of person",
}
THING = "a thing"
FILLER = (
    "Think of where you would come across it in everyday life.",
    "Picture it clearly before you answer, and take your time.",
)
_KIND = re.compile(r"It is (a thing|" + "|".join(re.escape(k) for k in KINDS.values()) + r")\.")
_LENGTH = re.compile(r"Its name has (\d+) letters")
_LETTERS = re.compile(r"Its name begins with the letters? ([A-Z](?:, [A-Z])*)")
_GUESSED = re.compile(r"^Guesser: Guess: (.+)$", re.MULTILINE)


def letters(name: str) -> str:
    return "".join(ch for ch in name.upper() if ch.isalpha())


@dataclass
class Clues:
    """What the clues in a prompt say: the kind, the length, the first letters; and the guesses made."""

    category: str | None = None
    length: int | None = None
    prefix: str = ""
    guessed: set[str] = field(default_factory=set)

    @classmethod
    def read(cls, prompt: str) -> Clues:
        clues = cls(guessed={normalise(g) for g in _GUESSED.findall(prompt)})
        for found in _KIND.finditer(prompt):
            phrase = found.group(1)
            clues.category = next((k for k, v in KINDS.items() if v == phrase), None)
        for found in _LENGTH.finditer(prompt):
            clues.length = int(found.group(1))
        for found in _LETTERS.finditer(prompt):
            prefix = found.group(1).replace(", ", "")
            clues.prefix = max(clues.prefix, prefix, key=len)
        return clues

    @property
    def any(self) -> bool:
        return self.category is not None or self.length is not None or bool(self.prefix)

    def candidates(self) -> list[str]:
        found = [
            entity.name
            for entity in pool()
            if (self.category is None or entity.category == self.category)
            and (self.length is None or len(letters(entity.name)) == self.length)
            and letters(entity.name).startswith(self.prefix)
            and normalise(entity.name) not in self.guessed
        ]
        if not found and self.length is not None and len(self.prefix) == self.length:
            spelled = self.prefix.lower()
            found = [spelled] if spelled not in self.guessed else []
        return found


@dataclass
class PictionaryDemo(ScriptByKind):
    """The scripted game (see the module docstring)."""

    config: DebateConfig
    demo_name = "pictionary"

    def _describe(self, request: GenerationRequest) -> str:
        prompt = self._prompt(request)
        secret = re.search(r"The secret entity is: (.+)", prompt)
        name = secret.group(1).strip() if secret else "it"
        round_ = re.search(r"Round (\d+) of", prompt)
        shown = letters(name)[: int(round_.group(1)) if round_ else 1]
        known = find(name)
        kind = KINDS.get(known.category, THING) if known else THING
        plural = "s" if len(shown) > 1 else ""
        clues = [
            f"It is {kind}.",
            f"Its name has {len(letters(name))} letters.",
            f"Its name begins with the letter{plural} {', '.join(shown)}.",
        ]
        return " ".join(clues if "Be concise" in prompt else [*clues, *FILLER])

    def _listen(self, request: GenerationRequest) -> Output:
        yes = len(Clues.read(self._prompt(request)).candidates()) == 1
        probs = {"Yes": 0.85, "No": 0.15} if yes else {"Yes": 0.15, "No": 0.85}
        return ScriptedReply("Yes" if yes else "No", choice_probs=probs)

    def _guess(self, request: GenerationRequest) -> str:
        clues = Clues.read(self._prompt(request))
        left = clues.candidates()
        if left:
            return f"Guess: {left[0]}"
        return "Question: Can you tell me more?" if clues.any else "Question: What kind of thing is it?"
