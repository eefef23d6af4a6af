"""The baselines' parameters: the numbers each baseline's method depends on, with their papers' defaults.

What it does: ``BaselinesParams`` holds every setting of the variants that changes
what happens, each overridable from a configuration's ``params`` (``--param KEY=VALUE``):

* ``samples``: Self-Consistency's k, the chain-of-thought samples whose majority answers (3, as
  SID's Table 1 runs it: "the number of self-consistency samples is set to 3");
* ``perspectives``: Self-Contrast's number of solving perspectives (3; Zhang et al. let the
  model curate several and keep a few distinct ones, the project fixes the count);
* ``selection``: Self-Contrast's selection of distinct solutions before the contrast (``answer``:
  one representative per final answer, Zhang et al.'s filtering of similar solutions; ``none``:
  every solution is contrasted);
* ``rounds``: parallel debate's and DMAD's rounds, the first answers included (2, as Du et al.
  run 3 agents over 2 rounds, and SID's Table 1 runs MAD and DMAD; ACE's Table 1 runs its
  baselines over 4), and RPD's rounds of turns;
* ``strategy``: RPD's communication strategy, ChatEval's three (``one_by_one``, the default,
  as ACE's Table 1 and ChatEval's headline runs; ``simultaneous``; ``simultaneous_summarizer``);
* ``max_rounds``: TAR's rounds at most (3, Liang et al.'s setting) before the judge gives its
  own verdict; the judge may end the debate after any round;
* ``methods``: DMAD's ways of reasoning, given to the debaters in seat order (cycling when there
  are more debaters than methods): chain of thought, step-back prompting and program of thought,
  Liu et al.'s set for language models (program of thought traced by the debater, never run);
  self-contrast may take any seat;
* ``discussion_rounds``: RTC's discussion rounds at most after the first answers (3, ReConcile's
  R; a consensus ends them earlier);
* ``convincing``: RTC's convincing samples (``none``, or a JSON-lines file of explanations that
  corrected an agent, ``examples.read_convincing``), shown in every discussion prompt;
* ``exemplars``: the worked examples of CoT, Self-Consistency and Step-Back (``none``: zero-shot,
  as SID §5.1 and ACE run their baselines; ``builtin``: this project's own, three per question
  shape; or a JSON-lines file, ``examples.read_exemplars``);
* ``reasoning_sentences``: the most sentences a reasoning step is asked for (the papers set no
  limit; a limit keeps a small model within its token cap);
* ``reasoning_tokens`` and ``answer_tokens``: the token caps of a reasoning and of a direct
  answer.

A file named in ``exemplars`` or ``convincing`` is read when a debate is set up (the protocol
refuses a missing or malformed one, saying which line), not here: a recorded debate's parameters
stay readable on a machine without the file.

What it does not do: run anything (``protocol``) or word prompts (``prompts/``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from debate_core.protocols.base import ProtocolParams

Method = Literal["cot", "step_back", "pot", "self_contrast"]


class BaselinesParams(ProtocolParams):
    """Every knob of the baselines (defaults: their papers', or SID's setup where it runs them)."""

    rounds: int = Field(
        2, ge=1, le=20, description="parallel, dmad, rpd: rounds (parallel, dmad: round 1 the first answers)"
    )
    strategy: Literal["one_by_one", "simultaneous", "simultaneous_summarizer"] = Field(
        "one_by_one", description="rpd: ChatEval's communication strategy"
    )
    max_rounds: int = Field(3, ge=1, le=20, description="tar: rounds at most before the judge's own verdict")
    methods: tuple[Method, ...] = Field(
        ("cot", "step_back", "pot"),
        min_length=1,
        description="dmad: each debater's way of reasoning, in turn",
    )
    discussion_rounds: int = Field(3, ge=0, le=20, description="rtc: discussion rounds at most after the answers")
    convincing: str = Field(
        "none", max_length=1_000, description="rtc: none, or a JSON-lines file of convincing samples"
    )
    samples: int = Field(3, ge=1, le=40, description="self_consistency: chain-of-thought samples (k)")
    perspectives: int = Field(3, ge=2, le=8, description="self_contrast: solving perspectives")
    selection: Literal["answer", "none"] = Field(
        "answer", description="self_contrast: keep one solution per answer before the contrast, or all"
    )
    exemplars: str = Field(
        "none", max_length=1_000, description="cot, self_consistency, step_back: none, builtin or a JSON-lines file"
    )
    reasoning_sentences: int = Field(8, ge=1, le=60, description="the most sentences a reasoning step is asked for")
    reasoning_tokens: int = Field(512, ge=16, le=8_192, description="token cap of a reasoning step")
    answer_tokens: int = Field(48, ge=4, le=1_024, description="token cap of a direct answer")

    @field_validator("exemplars", "convincing")
    @classmethod
    def _blank_is_none(cls, value: str) -> str:
        return value.strip() or "none"
