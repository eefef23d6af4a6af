"""Parliament's parameters: the paper's defaults, and the authors' code one value away.

What it does: ``ParliamentParams`` holds every setting of the four variants
(``british``, ``congress``, ``socratic``, ``cot``) that changes what happens,
each overridable from a configuration's ``params`` (``--param KEY=VALUE``).
The defaults follow the paper's text (Hu, Yu and Zhou, §3 and §4.2); where
the paper is silent, the authors' code. Where the code departs from the
text, the code's behaviour is one named value away (see the fidelity ledger
in ``docs.md``):

* ``resume``: ``regenerate`` (paper §3.2: after a point of information the
  prover must revise or defend the disputed sub-claim before resuming, and no
  premise propagates until checked: the speech's generation stops at the
  point and goes on from what was said, with the point and the reply in
  view; needs a backend that can continue a partial reply) or ``continue``
  (code: the stream goes on unchanged, the exchange out of its view);
* ``socratic_mode``: ``streaming`` (paper §3.3: the question reaches the
  student mid-answer without halting it, and the student's generation goes
  on with the question in view) or ``turns`` (code: answer, one question,
  revision);
* ``critic_sees``: ``chunk`` (paper §4.2 and code: the critic reads the
  buffer just disclosed) or ``prefix`` (the whole speech so far).

This project's own improvement is one value away too: ``reply_format``,
``lines`` (App. A and the code: plain text ending with its answer line,
``Proposed Answer: ...``, ``INTERRUPT: ...`` or ``NO``) or ``json`` (each
reply a JSON object whose schema a grammar can enforce, so a small model
names a valid option and closes within its token cap). Either reply is read
in either format; a speech generated as it streams is always plain text.

``stream_tokens`` is how many tokens each step of a streamed speech
generates (the speech is generated as it is disclosed, and a point stops its
generation; a step's tokens past the point are generated and discarded, at
most this many). What is said does not depend on it; 1 stops exactly at the
boundary, at one model call per token.

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
    """Every knob of the prover-critic debates (defaults: the paper's; the code's one value away)."""

    max_chars: int = Field(120, ge=1, le=10_000, description="a chunk closes past this many characters")
    min_chars: int = Field(40, ge=0, le=10_000, description="... or past this many at a sentence end")
    enders: str = Field(".?!", min_length=1, max_length=10, description="what ends a sentence for the chunk rule")
    critic_sees: Literal["chunk", "prefix"] = Field("chunk", description="what the critic reads at a check")
    reply_format: Literal["lines", "json"] = Field(
        "lines", description="replies asked as plain text with answer lines (paper) or as JSON (ours)"
    )
    resume: Literal["regenerate", "continue"] = Field(
        "regenerate", description="the speech after a point: regenerate (paper) or continue (code)"
    )
    poi_cap: int | None = Field(None, ge=0, le=1_000, description="points of information per speech (none: no cap)")
    poi_reply_sentences: int = Field(3, ge=1, le=20, description="sentences at most in a reply to a point")
    speech_sentences: tuple[int, int] = Field((4, 7), description="opening and closing speeches: sentences from-to")
    critique_sentences: int = Field(5, ge=1, le=40, description="congress critiques: sentences at most")
    congress_rounds: int = Field(2, ge=1, le=20, description="congress: an opening pair, then rebuttal pairs")
    socratic_rounds: int = Field(1, ge=1, le=20, description="socratic: question-and-revision rounds")
    socratic_mode: Literal["streaming", "turns"] = Field(
        "streaming", description="socratic: streaming (paper) or turns (code)"
    )
    stream_tokens: int = Field(16, ge=1, le=1_024, description="tokens per generation step of a streamed speech")
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
