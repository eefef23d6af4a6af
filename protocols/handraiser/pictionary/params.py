"""Text Pictionary's parameters, with the paper's defaults.

What it does: ``PictionaryParams`` holds every setting of the game that
changes what happens, each overridable from a configuration's ``params``
(``--param KEY=VALUE``):

* ``chunk_tokens`` (8): a description is disclosed in chunks of this many
  tokens of the describer's tokenizer (App. C.1: "a chunk size of 8 for text
  pictionary"); after each chunk but the last the guesser decides whether
  to interrupt;
* ``max_rounds`` (10): the game ends unsolved after this many rounds (§4.2);
* ``tau`` (0.5): the ``threshold`` policy interrupts iff P("Yes") >= tau;
* ``listener``: the fine-tuned listener of the ``learned`` policy;
* ``random_allow_none`` (false): the random policy may leave a description whole;
* ``aliases``: more names of the secret, accepted as a guess and forbidden
  to the describer (the pool's own aliases always apply);
* ``description_tokens`` (128) and ``guess_tokens`` (32): generation caps.

The policy is the variant (``prompted``, ``generic``, ``concise``,
``random``, ``threshold``, ``learned``, ``human``), as in HandRaiser's debate.

What it does not do: run anything (``protocol``, ``loop``) or word prompts (``prompts/``).
"""

from __future__ import annotations

from pydantic import Field

from debate_core.protocols.base import ProtocolParams


class PictionaryParams(ProtocolParams):
    """Every knob of Text Pictionary (defaults: the paper's)."""

    chunk_tokens: int = Field(8, ge=1, le=1_024, description="tokens per disclosed chunk of a description")
    max_rounds: int = Field(10, ge=1, le=100, description="rounds at most (a description, then a guess)")
    tau: float = Field(0.5, ge=0.0, le=1.0, description="threshold policy: interrupt iff P(Yes) >= tau")
    listener: str | None = Field(None, max_length=500, description="learned policy: the fine-tuned listener")
    random_allow_none: bool = Field(False, description="random policy: 'no interruption' is one more choice")
    aliases: tuple[str, ...] = Field((), max_length=20, description="more names of the secret entity")
    description_tokens: int = Field(128, ge=8, le=4_096, description="token cap of a description")
    guess_tokens: int = Field(32, ge=4, le=512, description="token cap of a guess or a question")
