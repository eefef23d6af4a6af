"""Parliament's parameters, with the defaults of the paper and of the authors' code.

What it does: ``ParliamentParams`` holds every setting of the four variants
(``british``, ``congress``, ``socratic``, ``cot``) that changes what happens,
each overridable from a configuration's ``params`` (``--param KEY=VALUE``).
Where the paper and the code disagree the default is the code's (it is what
produced the published numbers), and the paper's reading is one value away:

* ``critic_sees``: ``chunk`` (code: the critic is shown only the chunk just
  disclosed) or ``prefix`` (the whole speech so far);
* ``resume``: ``continue`` (code: the prepared speech goes on unchanged after a
  point of information) or ``regenerate`` (paper: the rest of the speech is
  written again, conditioned on the point and the reply; needs a backend
  that can continue a partial reply);
* ``socratic_mode``: ``turns`` (code: answer, one question, revision) or
  ``streaming`` (paper: the question reaches the student mid-speech and the
  undisclosed rest may be revised; the speech never halts).

Role titles default per variant (Government/Opposition,
Affirmative/Negative, Student/Socrates, Solver) and can be renamed.

What it does not do: run anything (``protocol``) or word prompts (the
template files in ``prompts/``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from debate_core.protocols.base import ProtocolParams

TITLES: dict[str, tuple[str, str]] = {
    "british": ("Government", "Opposition"),
    "congress": ("Affirmative", "Negative"),
    "socratic": ("Student", "Socrates"),
    "cot": ("Solver", ""),
}


class ParliamentParams(ProtocolParams):
    """Every knob of the prover-critic debates (defaults: the paper's code)."""

    max_chars: int = Field(120, ge=1, le=10_000, description="a chunk closes past this many characters")
    min_chars: int = Field(40, ge=0, le=10_000, description="... or past this many at a sentence end")
    enders: str = Field(".?!", min_length=1, max_length=10, description="what ends a sentence for the chunk rule")
    critic_sees: Literal["chunk", "prefix"] = Field("chunk", description="what the critic reads at a check")
    resume: Literal["continue", "regenerate"] = Field("continue", description="the speech after a point")
    poi_cap: int | None = Field(None, ge=0, le=1_000, description="points of information per speech (none: no cap)")
    poi_reply_sentences: int = Field(3, ge=1, le=20, description="sentences at most in a reply to a point")
    speech_sentences: tuple[int, int] = Field((4, 7), description="opening and closing speeches: sentences from-to")
    critique_sentences: int = Field(5, ge=1, le=40, description="congress critiques: sentences at most")
    congress_rounds: int = Field(2, ge=1, le=20, description="congress: an opening pair, then rebuttal pairs")
    socratic_rounds: int = Field(1, ge=1, le=20, description="socratic: question-and-revision rounds")
    socratic_mode: Literal["turns", "streaming"] = Field("turns", description="socratic: code or paper form")
    speech_tokens: int = Field(400, ge=16, le=8_192, description="token cap of a speech")
    reply_tokens: int = Field(160, ge=8, le=4_096, description="token cap of a reply, question or point")
    prover_title: str | None = Field(None, max_length=40, description="the prover's title (default per variant)")
    critic_title: str | None = Field(None, max_length=40, description="the critic's title (default per variant)")
    context_to_critic: bool = Field(False, description="show the question's context to the critic too")

    @model_validator(mode="after")
    def _ranges(self) -> ParliamentParams:
        if self.min_chars > self.max_chars:
            raise ValueError(f"min_chars ({self.min_chars}) is above max_chars ({self.max_chars})")
        low, high = self.speech_sentences
        if not 1 <= low <= high <= 40:
            raise ValueError(f"speech_sentences must be 1 <= from <= to <= 40, got {low}-{high}")
        return self

    def titles(self, variant: str) -> tuple[str, str]:
        prover, critic = TITLES[variant]
        return (self.prover_title or prover, self.critic_title or critic)

    def rounds(self, variant: str) -> int:
        return {"congress": self.congress_rounds, "socratic": self.socratic_rounds}.get(variant, 1)
