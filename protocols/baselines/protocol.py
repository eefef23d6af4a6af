"""The baselines the papers compare against (issue #26): single-agent prompting methods and multi-agent debates.

What it does: ``BaselinesProtocol`` is the protocol ``baselines``, one plugin whose variants are the
baselines of ACE's and SID's tables, each written from its own paper (the ledger in ``docs.md``):

* ``io``: answer directly (Input-Output prompting);
* ``cot``: reason step by step, one answer (Wei et al.; Kojima et al.'s zero-shot wording);
* ``self_consistency``: ``samples`` chains of thought, their majority (Wang et al.; 3 as SID runs it);
* ``step_back``: a step-back question and its principles, then reasoning from them (Zheng et al.);
* ``self_contrast``: several solving perspectives, the distinct solutions (one per answer,
  ``selection``) contrasted into a checklist, a reconciled answer (Zhang et al.);
* ``parallel``: multi-agent debate (Du et al.): two or more debaters (three in a study), ``rounds``
  rounds, each reading the others' last answers, the majority;
* ``tar``: debate with a judge (Liang et al.): an affirmative and a negative side, and a judge who
  after each round may end the debate with one side's answer, else gives its verdict at the end;
* ``dmad``: diverse multi-agent debate (Liu et al.): parallel debate whose debaters each reason by
  their own method (chain of thought, step-back, program of thought: their set for language models);
* ``rtc``: ReConcile (Chen et al.): agents (each may be its own model, ``--model-for NAME=MODEL``)
  answer with a confidence, discuss over the grouped answers (and, given, ``convincing`` samples)
  until a consensus or ``discussion_rounds``, and a confidence-weighted vote decides;
* ``rpd``: role-played debate (ChatEval, Chan et al.): debaters in distinct roles speak one by one,
  each reading the whole discussion, for ``rounds`` rounds (``strategy``: or all at once each
  round, ``chateval``, with or without a summarizer); the majority decides.

CoT, Self-Consistency and Step-Back are zero-shot unless ``exemplars`` names worked examples
(``examples``). The single-agent ones have one role, ``solver``; parallel debate, DMAD, RTC and RPD
have ``debater`` (two or more), RPD with a summarizer a ``summarizer`` too (at most one); TAR
``affirmative``, ``negative`` and ``judge``. A person may take any seat (they write each step the
model would). ``run`` builds the ``Desk`` (the run state, ``state``) and hands it to the variant's
loop in ``loop`` (RPD's simultaneous strategies: ``chateval``); a file named in ``exemplars`` or
``convincing`` is read when the protocol is made, a bad one refused (``ConfigError``).
``variant_study_temperature`` is each variant's paper's temperature for a study. What is not built
yet of each baseline, its ledger rows say (#26). None of the variants uses the public-token budget.

What it does not do: word prompts (``prompts/``), parse replies (``forms``) or make kernel moves
itself (``loop`` and ``state`` call the ``Table``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from debate_core.backends.scripted import Responder
from debate_core.config import DebateConfig
from debate_core.errors import ConfigError
from debate_core.events.codec import Event
from debate_core.events.records import EndReason
from debate_core.kernel.consistency import StreamRules
from debate_core.kernel.endings import FinalDecision, majority, single, verdict
from debate_core.kernel.forms import Form
from debate_core.protocols.base import Protocol, ProtocolParams, RoleSpec
from protocols.baselines import chateval, loop
from protocols.baselines.examples import with_examples
from protocols.baselines.forms import baseline_forms, note_form
from protocols.baselines.judge import judge_form
from protocols.baselines.params import BaselinesParams
from protocols.baselines.reconcile import confident_form, weighted_vote
from protocols.baselines.state import Desk

if TYPE_CHECKING:
    from debate_core.kernel.table import Table

SOLVER = RoleSpec("solver", "solves the question alone, by the baseline's method; its answer is the debate's", 1, 1)
DEBATER = RoleSpec(
    "debater", "answers, then updates its answer after reading the others'; the majority decides", 2, None
)
AFFIRMATIVE = RoleSpec("affirmative", "states an answer and defends it against the negative side", 1, 1)
NEGATIVE = RoleSpec("negative", "disagrees with the affirmative side's answer and argues its own", 1, 1)
JUDGE = RoleSpec("judge", "after each round, says whether one side is clearly right; its verdict is the answer", 1, 1)
MULTI: dict[str, tuple[RoleSpec, ...]] = {
    "parallel": (DEBATER,),
    "dmad": (DEBATER,),
    "rtc": (DEBATER,),
    "rpd": (DEBATER,),
    "tar": (AFFIRMATIVE, NEGATIVE, JUDGE),
}


def every_form(params: BaselinesParams) -> dict[str, Form[Any, Any]]:
    """Every request kind of the family, TAR's judge's call, RTC's answers with confidence and RPD's summary
    included; those that quote exemplars or convincing samples quoting them (``examples``)."""
    cap = params.reasoning_tokens
    forms = {
        **baseline_forms(params),
        "judge_check": judge_form(cap),
        "rtc_first": confident_form("rtc_first", "an answer, its explanation and a confidence", "rtc_first", cap),
        "rtc_revise": confident_form("rtc_revise", "a revised answer after the round table", "rtc_revise", cap),
        "rpd_summary": note_form(
            "rpd_summary", "a summary of the round for the next", "rpd_summary", "Your summary of the round", cap
        ),
    }
    return with_examples(forms, params.exemplars, params.convincing)


# Each variant's sampling temperature in a study, from the paper whose table runs it (None: the backend's default).
# Self-Consistency samples diverse reasoning paths: Wang et al. §3.1 sample GPT-3 (and PaLM) at T = 0.7 (UL2 and
# LaMDA at 0.5). TAR, RTC and RPD are ACE's Table 1 rows, and ACE (§Implementation Details) runs every method at
# 0.0 (ChatEval's own configuration samples at 0 too). The rest follow SID's Table 1, which states no temperature
# and whose code samples at each model's generation config: the backend's default.
VARIANT_TEMPERATURES: dict[str, float | None] = {"self_consistency": 0.7, "tar": 0.0, "rtc": 0.0, "rpd": 0.0}


class BaselinesProtocol(Protocol):
    """The papers' baselines, one variant each; all ten of issue #26 (see the module docstring)."""

    name = "baselines"
    title = "Baselines: IO, CoT, Self-Consistency, Step-Back, Self-Contrast, MAD, TAR, DMAD, RTC, RPD"
    source = "the baselines of ACE's and SID's Table 1, each from its own paper"
    variants = ("cot", "io", "self_consistency", "step_back", "self_contrast", "parallel", "tar", "dmad", "rtc", "rpd")
    Params = BaselinesParams
    roles: ClassVar[tuple[RoleSpec, ...]] = (SOLVER, DEBATER, AFFIRMATIVE, NEGATIVE, JUDGE, chateval.SUMMARIZER)
    min_agents = 1
    # SID's Table 1, which runs most of these baselines, states no temperature; its code samples with each
    # model's generation config (the backend's default), as SID's own study does. The variants whose papers
    # say otherwise have their own (``VARIANT_TEMPERATURES``, ``variant_study_temperature``).
    study_temperature = None

    def __init__(self, variant: str, params: ProtocolParams) -> None:
        super().__init__(variant, params)
        try:
            every_form(self.settings)  # reads the files ``exemplars`` and ``convincing`` name
        except ValueError as error:
            raise ConfigError(f"{self.name} parameter: {error}") from None

    @property
    def settings(self) -> BaselinesParams:
        assert isinstance(self.params, BaselinesParams)
        return self.params

    @classmethod
    def variant_study_temperature(cls, variant: str) -> float | None:
        """Self-Consistency at Wang et al.'s 0.7, ACE's rows (TAR, RTC, RPD) at ACE's 0.0, the rest at the
        backend's default as SID's code runs them (``VARIANT_TEMPERATURES``)."""
        return VARIANT_TEMPERATURES.get(variant, cls.study_temperature)

    def role_specs(self) -> tuple[RoleSpec, ...]:
        if self.variant == "rpd":
            return (DEBATER, *chateval.roles(self.settings.strategy))
        return MULTI.get(self.variant, (SOLVER,))

    def forms(self) -> Mapping[str, Form[Any, Any]]:
        return every_form(self.settings)

    def unit_name(self, table: Table) -> str:
        return table.sentences.name

    @classmethod
    def demo_responder(cls, config: DebateConfig) -> Responder:
        from protocols.baselines.demo import BaselinesDemo

        return BaselinesDemo(config).reply

    @classmethod
    def stream_rules(cls, variant: str, params: ProtocolParams, config: DebateConfig) -> StreamRules:
        from protocols.baselines.consistency import stream_rules

        assert isinstance(params, BaselinesParams)
        return stream_rules(variant, params)

    def run(self, table: Table) -> Iterator[Event]:
        role = "" if self.variant == "tar" else "debater" if self.variant in MULTI else "solver"
        desk = Desk(table, self.settings, self.variant, every_form(self.settings), role)
        simultaneous = self.variant == "rpd" and self.settings.strategy != "one_by_one"
        yield from (chateval.rpd if simultaneous else loop.DRIVE[self.variant])(desk)

    def conclude(self, table: Table, reason: EndReason) -> FinalDecision:
        if self.variant == "tar":
            (judge,) = table.with_role("judge")
            return verdict(judge, table.answers.get(judge), table.answer_list())
        if self.variant == "rtc":
            return weighted_vote(table.answer_list(), {}, table.rng)[0]
        if self.variant in ("self_consistency", "parallel", "dmad", "rpd"):
            return majority(table.answer_list(), table.rng)
        (solver,) = table.with_role("solver")
        return single(solver, table.answers.get(solver), table.answer_list())
