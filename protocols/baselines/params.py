"""The baselines' parameters: the numbers each baseline's method depends on, with their papers' defaults.

What it does: ``BaselinesParams`` holds every setting of the variants that changes
what happens, each overridable from a configuration's ``params`` (``--param KEY=VALUE``):

* ``samples``: Self-Consistency's k, the chain-of-thought samples whose majority answers (3, as
  SID's Table 1 runs it: "the number of self-consistency samples is set to 3");
* ``perspectives``: Self-Contrast's number of solving perspectives (3; Zhang et al. let the
  model curate several and keep a few distinct ones, the project fixes the count);
* ``rounds``: parallel debate's and DMAD's rounds, the first answers included (2, as Du et al.
  run 3 agents over 2 rounds, and SID's Table 1 runs MAD and DMAD; ACE's Table 1 runs its
  baselines over 4), and RPD's rounds of turns;
* ``max_rounds``: TAR's rounds at most (3, Liang et al.'s setting) before the judge gives its
  own verdict; the judge may end the debate after any round;
* ``methods``: DMAD's ways of reasoning, given to the debaters in seat order (cycling when there
  are more debaters than methods): chain of thought, step-back prompting and self-contrast, the
  reasoning methods SID's Table 1 compares, one per debater;
* ``discussion_rounds``: RTC's discussion rounds at most after the first answers (3, ReConcile's
  R; a consensus ends them earlier);
* ``reasoning_sentences``: the most sentences a reasoning step is asked for (the papers set no
  limit; a limit keeps a small model within its token cap);
* ``reasoning_tokens`` and ``answer_tokens``: the token caps of a reasoning and of a direct
  answer.

What it does not do: run anything (``protocol``) or word prompts (``prompts/``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from debate_core.protocols.base import ProtocolParams


class BaselinesParams(ProtocolParams):
    """Every knob of the single-agent baselines (defaults: their papers', or SID's setup where it runs them)."""

    rounds: int = Field(
        2, ge=1, le=20, description="parallel, dmad, rpd: rounds (parallel, dmad: round 1 the first answers)"
    )
    max_rounds: int = Field(3, ge=1, le=20, description="tar: rounds at most before the judge's own verdict")
    methods: tuple[Literal["cot", "step_back", "self_contrast"], ...] = Field(
        ("cot", "step_back", "self_contrast"),
        min_length=1,
        description="dmad: each debater's way of reasoning, in turn",
    )
    discussion_rounds: int = Field(3, ge=0, le=20, description="rtc: discussion rounds at most after the answers")
    samples: int = Field(3, ge=1, le=40, description="self_consistency: chain-of-thought samples (k)")
    perspectives: int = Field(3, ge=2, le=8, description="self_contrast: solving perspectives")
    reasoning_sentences: int = Field(8, ge=1, le=60, description="the most sentences a reasoning step is asked for")
    reasoning_tokens: int = Field(512, ge=16, le=8_192, description="token cap of a reasoning step")
    answer_tokens: int = Field(48, ge=4, le=1_024, description="token cap of a direct answer")
