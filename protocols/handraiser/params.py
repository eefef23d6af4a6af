"""HandRaiser's parameters, with the paper's defaults.

What it does: ``HandRaiserParams`` holds every setting of the Pro-Con-Moderator
debate that changes what happens, each overridable from a configuration's
``params`` (``--param KEY=VALUE``):

* ``chunk_tokens`` (16): a statement is disclosed in chunks of this many
  tokens of the speaker's tokenizer; after each chunk but the last the
  moderator decides whether to interrupt;
* ``max_rounds`` (10): the debate ends at the moderator's vote or after this
  many rounds (Pro then Con each round);
* ``tau`` (0.5): the ``threshold`` policy interrupts iff P("Yes") >= tau;
* ``listener``: the fine-tuned listener of the ``learned`` policy, a local
  path (what ``python -m experiments train-listener`` saved) or a hub id;
* ``pro_answer`` / ``con_answer``: the answers the two sides argue. Left
  empty, the correct answer and one wrong option (seeded by the debate seed)
  are assigned to the sides at random (``correct_side``), as the paper does;
  a study fills them from its stored positions (the most confusing wrong
  answer, and each side's explanation in the agent's brief);
* ``questions`` (true): at the end of a round in which it waits, the
  moderator asks the debaters a clarifying question, which both sides'
  statements of the next round answer (§4.1: "the moderator asks clarifying
  questions in each turn"); false gives the debate without questions, the
  one this package ran before #27 (see the ledger);
* ``statement_tokens`` (256), ``vote_tokens`` (24) and ``question_tokens``
  (64, added to ``vote_tokens`` when the moderator may ask): generation caps.

The policy is the variant (``generic``, ``concise``, ``random``, ``prompted``,
``threshold``, ``learned``, ``human``), so that a study compares policies as
systems.

What it does not do: run anything (``protocol``, ``loop``) or word prompts
(``prompts/``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from debate_core.protocols.base import ProtocolParams


class HandRaiserParams(ProtocolParams):
    """Every knob of the Pro-Con-Moderator debate (defaults: the paper's)."""

    chunk_tokens: int = Field(16, ge=1, le=1_024, description="tokens per disclosed chunk")
    max_rounds: int = Field(10, ge=1, le=100, description="rounds at most (Pro then Con each round)")
    tau: float = Field(0.5, ge=0.0, le=1.0, description="threshold policy: interrupt iff P(Yes) >= tau")
    listener: str | None = Field(None, max_length=500, description="learned policy: the fine-tuned listener")
    correct_side: Literal["random", "pro", "con"] = Field("random", description="who argues the correct answer")
    pro_answer: str | None = Field(None, max_length=200, description="the answer Pro argues (default: assigned)")
    con_answer: str | None = Field(None, max_length=200, description="the answer Con argues (default: assigned)")
    statement_tokens: int = Field(256, ge=8, le=8_192, description="token cap of a statement")
    vote_tokens: int = Field(24, ge=4, le=512, description="token cap of the moderator's vote")
    random_allow_none: bool = Field(False, description="random policy: 'no interruption' is one more choice")
    questions: bool = Field(True, description="the moderator asks a clarifying question when it waits (the paper)")
    question_tokens: int = Field(64, ge=8, le=1_024, description="token cap of the moderator's question")

    @model_validator(mode="after")
    def _sides(self) -> HandRaiserParams:
        if (self.pro_answer is None) != (self.con_answer is None):
            raise ValueError("give both pro_answer and con_answer, or neither")
        if (
            self.pro_answer is not None
            and self.pro_answer.strip().casefold() == (self.con_answer or "").strip().casefold()
        ):
            raise ValueError("Pro and Con must argue different answers")
        return self
