"""Meeting Scheduling's parameters, with the paper's defaults.

What it does: ``SchedulingParams`` holds every setting of the task that
changes what happens, each overridable from a configuration's ``params``
(``--param KEY=VALUE``):

* ``chunk_tokens`` (16): a planner's message is disclosed in chunks of this
  many tokens of its tokenizer (App. C.1: "a chunk size of 8 for text
  pictionary and 16 for the other two tasks"); after each chunk but the last
  the traveler decides whether to interrupt;
* ``max_rounds`` (10): the discussion ends without a schedule after this
  many rounds (§4.2), a round being one back-and-forth: two messages (§2.1);
* ``symmetric`` (false): §4.5's setting, every agent listens to every other
  and may cut it off, cascading (each message is chunked, the two others decide);
* ``case``: a committed case by id (``meeting-0002``) when the question
  carries none (see ``cases``);
* ``planners_see_travel`` (false): the planners are given the travel matrix too;
* ``tau`` (0.5), ``listener``, ``random_allow_none`` (false): the listener
  policies' settings, as in HandRaiser's debate;
* ``message_tokens`` (256): the generation cap of a message or a schedule.

The policy is the variant (``prompted``, ``generic``, ``concise``,
``random``, ``threshold``, ``learned``, ``human``), as in HandRaiser's debate.

What it does not do: run anything (``protocol``, ``loop``) or word prompts (``prompts/``).
"""

from __future__ import annotations

from pydantic import Field

from debate_core.protocols.base import ProtocolParams


class SchedulingParams(ProtocolParams):
    """Every knob of Meeting Scheduling (defaults: the paper's)."""

    chunk_tokens: int = Field(16, ge=1, le=1_024, description="tokens per disclosed chunk of a message")
    max_rounds: int = Field(10, ge=1, le=100, description="rounds at most (a round: two messages)")
    symmetric: bool = Field(False, description="every agent may interrupt every other, cascading (§4.5)")
    case: str | None = Field(None, max_length=80, description="a committed case id, when the question has none")
    planners_see_travel: bool = Field(False, description="the planners are given the travel matrix too")
    tau: float = Field(0.5, ge=0.0, le=1.0, description="threshold policy: interrupt iff P(Yes) >= tau")
    listener: str | None = Field(None, max_length=500, description="learned policy: the fine-tuned listener")
    random_allow_none: bool = Field(False, description="random policy: 'no interruption' is one more choice")
    message_tokens: int = Field(256, ge=8, le=8_192, description="token cap of a message or a schedule")
