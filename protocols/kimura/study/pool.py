"""Conditioned initial states (Section IV-B): keep mixed questions, assign answers to agents.

What it does: for each question the model answers five times (answer +
reason, chain of thought); ``usable`` keeps a question only if both correct
and incorrect answers appear at least ``threshold`` times (the paper: 2 of 5); ``realisable`` checks
that there are enough of each for the settings asked for (a threshold below 2
is only enough for one setting).
``assign`` picks three stored (answer, reason) pairs for the three agents so
that the debate starts in one of the two settings, with the correct agents as
in the paper: Jenny alone is correct in *two incorrect, one correct*; Chris and
Jenny are correct in *one incorrect, two correct* (Alex is then the incorrect
one and, in fixed order, speaks first). The pairs are chosen in the order they
were generated, so every condition receives identical initial states.

What it does not do: generate the answers (the runner does, with the model).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from debate_core.config import SuppliedInitialAnswer

AGENTS = ("Alex", "Chris", "Jenny")
SAMPLES_PER_QUESTION = 5
DEFAULT_THRESHOLD = 2


class Setting(StrEnum):
    TWO_INCORRECT = "two_incorrect_one_correct"
    ONE_INCORRECT = "one_incorrect_two_correct"


CORRECT_AGENTS = {Setting.TWO_INCORRECT: ("Jenny",), Setting.ONE_INCORRECT: ("Chris", "Jenny")}


@dataclass(frozen=True)
class Sampled:
    """One generated initial answer: the answer (None if invalid) and its reason."""

    answer: str | None
    reason: str


def usable(samples: Sequence[Sampled], correct: str, threshold: int = DEFAULT_THRESHOLD) -> bool:
    right = sum(s.answer == correct for s in samples)
    wrong = sum(s.answer is not None and s.answer != correct for s in samples)
    return right >= threshold and wrong >= threshold


def realisable(samples: Sequence[Sampled], correct: str, settings: Sequence[Setting], agents: int = 3) -> bool:
    """Whether the samples hold enough correct and incorrect answers for every setting asked for."""
    right = sum(s.answer == correct for s in samples)
    wrong = sum(s.answer is not None and s.answer != correct for s in samples)
    return all(
        right >= len(CORRECT_AGENTS[setting]) and wrong >= agents - len(CORRECT_AGENTS[setting]) for setting in settings
    )


def assign(
    samples: Sequence[Sampled], correct: str, setting: Setting, agents: Sequence[str] = AGENTS
) -> dict[str, SuppliedInitialAnswer]:
    """The initial answers that realise ``setting``; raises ValueError if the samples cannot."""
    right = [s for s in samples if s.answer == correct]
    wrong = [s for s in samples if s.answer is not None and s.answer != correct]
    correct_agents = CORRECT_AGENTS[setting]
    need_right, need_wrong = len(correct_agents), len(agents) - len(correct_agents)
    if len(right) < need_right or len(wrong) < need_wrong:
        raise ValueError(
            f"{setting.value} needs {need_right} correct and {need_wrong} incorrect answers; "
            f"the samples have {len(right)} and {len(wrong)}"
        )
    right_iter, wrong_iter = iter(right), iter(wrong)
    chosen = {}
    for agent in agents:
        pick = next(right_iter) if agent in correct_agents else next(wrong_iter)
        chosen[agent] = SuppliedInitialAnswer(answer=pick.answer or "", reason=pick.reason)
    return chosen
