"""A comparison study: several protocols' variants on the same questions, resumable.

What it does: ``CompareSpec`` names the systems to compare (``protocol/variant``,
e.g. ``parliament/cot``, ``parliament/british``, ``kimura/interruptible``), the
questions (a seeded sample of MMLU, of StrategyQA, posed as Yes/No options,
of each BIG-Bench Hard task named, ``bbh`` per task, of GSM8K, free-form with
a number as the answer, of GPQA Diamond, four options, and of HotpotQA's
distractor setting, free-form with its ten paragraphs as the question's
context or, with ``hotpotqa_context="question"``, in its text), each protocol's
parameters, and the generation settings every system shares (seed,
token caps, the public-token budget of the protocols that use one). Each
system samples at its protocol's ``study_temperature`` (its paper's; None:
the backend's default; a variant's own where ``variant_study_temperature``
gives one), kept per protocol (and such variant) in the specification, unless
``temperature`` sets one for every system (``temperature_for``). With
``repeats`` N the study runs N times on the same questions, each repeat with
its own seed (``seed_for``; repeat 0 is the study of one run, its cells keyed
as before, the others under ``repeats.run_key``). Each system's protocol
parameters, resolved with every default filled in (``params_for``,
``spec_changes``), are recorded in ``system_params`` when the study is
registered; None in a specification stored before they were recorded.
``CompareRunner(spec, store, backend).run()`` registers the study (a rerun
with a different specification stops with what changed: each system's
parameter that changed too, ``spec_changes``), builds one debate
per (question, system, repeat) with a deterministic id and the same seed for
every system of a question in a repeat, skips debates already finished, runs
the rest ``concurrency`` at a time with their model calls merged into shared batches
(``workers``), and records every event under the experiment id; each debate
is a cell claimed under a lease, so several workers may run one study. Agents are
named for the roles each variant needs (``Prover`` and ``Critic``); a protocol
without roles seats the engine's three default debaters (Alex, Chris and Jenny:
Kimura's, starting from their own generated answers). A protocol's study
preparation (``extensions.StudyPreparation``: HandRaiser's positions pool) may
give each question's debates of its systems their own parameters and briefs
(``QuestionSetup``). Without ``systems`` a study compares the control a plugin
declares with its protocol's other variants (``default_systems``: Parliament's four).
``model_for`` (``--model-for WHO=SPEC``) gives an agent or a role of every
system that has it a model of its own (``compare_models``); the runner's
``seats`` (``backends.model_for.SeatBackends``) build those backends, each
model once for the whole study, and the models a variant seats itself.

What it does not do: compute results (``compare_report``) or load data
(``items``: each shared data set's questions as ``Item``s, re-exported here).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from debate_core.backends.base import Backend
from debate_core.backends.model_for import SeatBackends
from debate_core.backends.router import BackendRouter
from debate_core.config import DEFAULT_AGENT_NAMES, AgentSpec, DebateConfig, PromptLayout
from debate_core.debate import Debate
from debate_core.errors import ConfigError
from debate_core.protocols.base import RoleSpec
from debate_core.protocols.registry import protocol_class, resolve, with_settings
from experiments import spec_changes
from experiments.bbh import DEFAULT_TASKS as DEFAULT_BBH_TASKS
from experiments.bbh import check_tasks
from experiments.extensions import QuestionSetup, report_sections
from experiments.items import Item as Item
from experiments.items import bbh_items as bbh_items  # the loaders' old home: re-exported
from experiments.items import gpqa_items as gpqa_items
from experiments.items import gsm8k_items as gsm8k_items
from experiments.items import hotpotqa_items as hotpotqa_items
from experiments.items import mmlu_items as mmlu_items
from experiments.items import strategyqa_items as strategyqa_items
from experiments.progress import Progress, SilentProgress
from experiments.repeats import run_key
from experiments.workers import ExperimentError, StudyDebates, register_study
from storage import Store
from storage.cells import Lease
from storage.experiments import RunRecord

KIND = "compare"
logger = logging.getLogger("experiments")
SHARED_COUNTS = ("mmlu", "strategyqa", "bbh", "gsm8k", "gpqa", "hotpotqa")  # the shared data sets' fields
SET_UP = {"params", "system_params"}  # compared as each system's resolved parameters, not as written


class CompareSpec(BaseModel):
    """Everything that changes a comparison's results (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = KIND
    experiment_id: str = Field(min_length=1, max_length=100)
    model: str = ""
    systems: tuple[str, ...] = Field(default_factory=lambda: default_systems())
    mmlu: int = Field(default=5, ge=0, le=20_000)
    strategyqa: int = Field(default=5, ge=0, le=5_000)
    bbh: int = Field(default=0, ge=0, le=50_000)  # questions per BBH task
    bbh_tasks: tuple[str, ...] = DEFAULT_BBH_TASKS
    gsm8k: int = Field(default=0, ge=0, le=20_000)
    gpqa: int = Field(default=0, ge=0, le=20_000)
    hotpotqa: int = Field(default=0, ge=0, le=20_000)
    hotpotqa_context: Literal["context", "question"] = "context"  # where HotpotQA's paragraphs go
    seed: int = Field(default=0, ge=0, lt=2**31)
    repeats: int = Field(default=1, ge=1, le=1_000)  # runs of the whole study, each with its own seed
    temperature: float | None = Field(default=None, ge=0.0, le=5.0)  # None: each protocol's study temperature
    # each protocol's declared study temperature (None: the backend's default), kept when ``temperature`` is None
    protocol_temperatures: dict[str, float | None] = Field(default_factory=dict)
    max_new_tokens: int = Field(default=512, ge=16, le=100_000)
    token_budget: int = Field(default=500, ge=1)
    utterance_max_new_tokens: int | None = Field(default=None, ge=1)
    prompt_layout: PromptLayout = PromptLayout.PAPER
    segmenter: str = "default"  # the sentence segmenter (config.SEGMENTERS), shared by every system's debates
    params: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # each system's resolved parameters, defaults filled (spec_changes.recorded); None: not recorded (an older study)
    system_params: dict[str, dict[str, Any]] | None = None
    datasets: dict[str, int] = Field(default_factory=dict)  # a plugin's data sets: questions of each
    # per-role models (``--model-for WHO=SPEC``): agent or role -> KIND:MODEL (``model_for.normalised``)
    model_for: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _study_temperatures(cls, data: Any) -> Any:
        """Without a shared ``temperature``, keep each protocol's declared one (a rerun after it changed
        in the code is then refused, with what changed)."""
        if isinstance(data, dict) and data.get("temperature") is None and "protocol_temperatures" not in data:
            systems = data.get("systems") or default_systems()
            return {**data, "protocol_temperatures": study_temperatures(systems)}
        return data

    @field_validator("experiment_id")
    @classmethod
    def _plain_id(cls, value: str) -> str:
        if not value[0].isalnum() or any(not (ch.isalnum() or ch in "-_.") for ch in value):
            raise ValueError(f"experiment id {value!r}: letters, digits and -_. only, starting with a letter or digit")
        return value

    @field_validator("systems")
    @classmethod
    def _systems(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError(
                "name at least one system, such as " + (",".join(default_systems()[:1]) or "protocol/variant")
            )
        for system in value:
            protocol, variant, overrides = system_parts(system)
            try:
                cls_ = protocol_class(protocol)
            except ConfigError as error:
                raise ValueError(str(error)) from None
            if variant and variant not in cls_.variants:
                raise ValueError(f"{protocol} has no variant {variant!r} (variants: {', '.join(cls_.variants)})")
            unknown = sorted(set(overrides) - set(cls_.Params.model_fields))
            if unknown:
                raise ValueError(f"{system}: {protocol} has no parameter {unknown[0]!r}")
        return tuple(dict.fromkeys(value))

    @field_validator("bbh_tasks")
    @classmethod
    def _bbh_tasks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return check_tasks(value)  # a BbhError is a ValueError: the field's validation error names the task

    @model_validator(mode="after")
    def _bbh_needs_tasks(self) -> CompareSpec:
        if self.bbh and not self.bbh_tasks:
            raise ValueError("bbh questions asked for but no BBH task named (bbh_tasks)")
        return self

    def count(self, dataset: str) -> int:
        """Questions of a data set: a shared one's field (``mmlu``, ...), else a plugin's in ``datasets``."""
        return int(getattr(self, dataset)) if dataset in SHARED_COUNTS else self.datasets.get(dataset, 0)

    def differences(self, other: CompareSpec) -> list[str]:
        """What differs, but the parameters: each system's resolved ones are compared (``spec_changes.check``)."""
        mine, theirs = self.model_dump(mode="json", exclude=SET_UP), other.model_dump(mode="json", exclude=SET_UP)
        changed = [key for key in mine if mine[key] != theirs.get(key)]
        return [_change(key, mine[key], theirs.get(key)) for key in changed]

    def debate_id(self, question_key: str, system: str, repeat: int = 0) -> str:
        parts: list[Any] = [self.experiment_id, question_key, system] + ([repeat] if repeat else [])
        return "c" + hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:31]

    def seed_for(self, question_key: str, repeat: int = 0) -> int:
        """One seed per question and repeat, shared by every system (a paired comparison); repeat 0 keeps a
        study of one run's seed, repeat r derives its own from the study's seed and r."""
        digest = int(hashlib.sha256(question_key.encode()).hexdigest()[:8], 16)
        base = self.seed
        if repeat:
            base = int(hashlib.sha256(f"{self.seed}|repeat|{repeat}".encode()).hexdigest()[:8], 16)
        return (base * 100_003 + digest) % (2**31)

    def temperature_for(self, system: str) -> float | None:
        """The temperature ``system`` samples at: the shared one, else its protocol's declared one (None: the
        backend's default)."""
        if self.temperature is not None:
            return self.temperature
        protocol, variant, _ = system_parts(system)
        cls = protocol_class(protocol)
        for key in (f"{protocol}/{variant or cls.default_variant()}", protocol):  # a variant's own, else its protocol's
            if key in self.protocol_temperatures:
                return self.protocol_temperatures[key]
        return cls.variant_study_temperature(variant or cls.default_variant())

    def params_for(self, system: str) -> tuple[str, dict[str, Any]]:
        """``system``'s protocol and the parameters its debates are given (before a question's setup): the study's
        for its protocol, the system's own over them, and the shared settings its protocol takes where neither
        sets them (``with_settings``); the protocol's defaults fill the rest when a debate resolves them."""
        protocol, _, overrides = system_parts(system)
        params = {**self.params.get(protocol, {}), **overrides}
        shared = {"utterance_max_new_tokens": self.utterance_max_new_tokens, "prompt_layout": self.prompt_layout}
        return protocol, with_settings(protocol, params, **shared)

    def config(self, item: Item, system: str, setup: QuestionSetup | None = None, repeat: int = 0) -> DebateConfig:
        """A debate of ``system`` on ``item`` in ``repeat``; ``setup``: what the protocol's study preparation
        made for the question (its parameters over the system's, every agent's brief its role's)."""
        protocol, variant, _ = system_parts(system)
        params = self.params_for(system)[1]
        agents = agents_for(protocol, variant or None)
        if setup is not None:
            params.update(setup.params)
            agents = tuple(a.model_copy(update={"brief": setup.briefs.get(a.role or "", "")}) for a in agents)
        return DebateConfig(
            question=item.question,
            agents=agents,
            protocol=protocol,
            variant=variant or None,
            params=params,
            token_budget=self.token_budget,
            seed=self.seed_for(item.key, repeat),
            temperature=self.temperature_for(system),
            max_new_tokens=self.max_new_tokens,
            segmenter=self.segmenter,
        )


def system_parts(system: str) -> tuple[str, str, dict[str, Any]]:
    """``protocol/variant[:key=value,...]`` as (protocol, variant, parameter overrides), e.g.
    ``handraiser/threshold:tau=0.3`` (values read as JSON where they parse, else as text)."""
    name, _, tail = system.partition(":")
    protocol, _, variant = name.partition("/")
    overrides: dict[str, Any] = {}
    for pair in filter(None, (p.strip() for p in tail.split(","))):
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{system}: write parameter overrides as key=value, e.g. protocol/variant:tau=0.3")
        try:
            overrides[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            overrides[key.strip()] = raw.strip()
    return protocol.strip(), variant.strip(), overrides


def study_temperatures(systems: Sequence[str]) -> dict[str, float | None]:
    """Each named protocol's declared study temperature (``Protocol.study_temperature``), and under
    ``protocol/variant`` a variant's that differs from it (``Protocol.variant_study_temperature``); unknown ones
    are left to the systems' own validation."""
    found: dict[str, float | None] = {}
    for system in systems:
        try:
            protocol, variant, _ = system_parts(system) if isinstance(system, str) else ("", "", {})
            cls = protocol_class(protocol)
            found[protocol] = cls.study_temperature
            own = cls.variant_study_temperature(variant or cls.default_variant())
        except (ConfigError, ValueError):
            continue
        if own != cls.study_temperature:
            found[f"{protocol}/{variant or cls.default_variant()}"] = own
    return found


def _change(key: str, before: Any, after: Any) -> str:
    """One changed setting of a specification, old -> new (per-role models as ``--model-for`` writes them)."""
    if key == "model_for":
        old, new = (" ".join(f"{who}={spec}" for who, spec in (v or {}).items()) or "none" for v in (before, after))
        return f"--model-for: {old} -> {new}"
    return f"{key}: {before} -> {after}"


def default_systems() -> tuple[str, ...]:
    """The systems a study compares when it names none: the first control a plugin declares
    (``ReportSection.control``), then its protocol's other variants in their order; none without a control."""
    control = next((section.control for section in report_sections() if section.control), None)
    if control is None:
        return ()
    protocol = system_parts(control)[0]
    others = (f"{protocol}/{variant}" for variant in protocol_class(protocol).variants)
    return tuple(dict.fromkeys((control, *others)))


def agents_for(protocol: str, variant: str | None) -> tuple[AgentSpec, ...]:
    """Agents named for the variant's roles (Prover, Critic; Debater1, Debater2, Observer); three debaters
    for a protocol without roles, and three in a role without an upper bound (the parallel baseline)."""
    cls = protocol_class(protocol)
    instance = cls(variant or cls.default_variant(), cls.Params())
    specs = instance.role_specs()
    if not specs:
        return tuple(AgentSpec(name=name) for name in DEFAULT_AGENT_NAMES[: max(instance.min_agents, 3)])

    def seats(spec: RoleSpec) -> int:
        return spec.minimum if spec.maximum is not None else max(spec.minimum, 3)

    return tuple(
        AgentSpec(name=spec.name.capitalize() + (f"{i + 1}" if seats(spec) > 1 else ""), role=spec.name)
        for spec in specs
        for i in range(seats(spec))
    )


@dataclass
class CompareSummary:
    debates: int = 0
    skipped: int = 0
    finished: int = 0
    failed: int = 0
    aborted: int = 0
    batch_sizes: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what registering it found to say (``spec_changes.check``)


@dataclass(frozen=True)
class Job:
    item: Item
    system: str
    debate_id: str
    repeat: int = 0


class CompareRunner:
    """Runs (or resumes) a comparison study into a store."""

    def __init__(
        self,
        spec: CompareSpec,
        store: Store,
        backend: Backend,
        items: Sequence[Item],
        *,
        concurrency: int = 4,
        progress: Progress | None = None,
        per_debate: Callable[[DebateConfig], Backend] | None = None,
        prepared: Mapping[str, Mapping[str, QuestionSetup]] | None = None,
        seat_backend: Callable[[str, DebateConfig], Backend] | None = None,
        seats: SeatBackends | None = None,
        lease: Lease | None = None,
        warn: Callable[[str], object] | None = None,
    ) -> None:
        # each system's resolved parameters recorded (an invalid value stops here, before any model work)
        self.spec, self.store, self.backend, self.items = spec_changes.recorded(spec), store, backend, list(items)
        self.warn = warn or logger.warning  # a rerun's warnings (``spec_changes.check``), also in the summary
        self.per_debate = per_debate  # a backend of its own for each debate (the scripted demo's scripts)
        self.prepared = dict(prepared or {})  # per protocol, per question key: its study preparation's setup
        self.seat_backend = seat_backend  # the backend of a model a variant seats (a fine-tuned listener)
        self.seats = seats  # or every seat's own backend: a variant's seated models and ``model_for``'s
        if spec.model_for:
            from experiments.compare_models import check  # it builds on this module

            check(self.spec)  # a WHO no system has, or one that would unseat a variant's model: before any model work
            if seats is None or seats.record() != spec.model_for:
                raise ExperimentError("the study names per-role models (model_for) but no backends for them (seats)")
        self.concurrency = max(1, concurrency)
        self.progress = progress or SilentProgress()
        self.debates = StudyDebates(store, spec.experiment_id, lease=lease)
        self._lock = threading.Lock()

    def stop(self) -> None:
        """End every running debate at its next turn boundary; start no new one."""
        self.debates.stop()

    def run(self) -> CompareSummary:
        summary = CompareSummary(warnings=self._register())
        jobs = [
            Job(item, system, self.spec.debate_id(item.key, system, repeat), repeat)
            for repeat in range(self.spec.repeats)
            for item in self.items
            for system in self.spec.systems
        ]
        summary.debates = len(jobs)
        summary.skipped = self.debates.prepare([job.debate_id for job in jobs])
        self.progress.phase("debates", summary.debates, summary.skipped)

        def done(outcome: str) -> None:
            with self._lock:
                setattr(summary, outcome, getattr(summary, outcome) + 1)

        summary.batch_sizes = self.debates.run(
            jobs,
            lambda job: job.debate_id,
            self._run_one,
            self.backend,
            concurrency=self.concurrency,
            done=done,
            advance=lambda: self.progress.advance("debates", f"{summary.failed} failed" if summary.failed else ""),
        )
        return summary

    def _register(self) -> list[str]:
        """Register the study, or check a rerun against it (each system's parameters too); its warnings."""
        warnings: list[str] = []

        def changes(stored: dict[str, Any]) -> list[str]:
            if stored.get("kind") != KIND:
                raise ExperimentError(f"experiment {self.spec.experiment_id!r} is not a comparison study")
            check = spec_changes.check(
                stored, self.spec, lambda: spec_changes.debate_params(self.store, self.spec, self.prepared)
            )
            warnings.extend(check.warnings)
            return CompareSpec.model_validate(stored).differences(self.spec) + check.refusals

        spec = self.spec.model_dump(mode="json")
        register_study(self.store, self.spec.experiment_id, self.backend.model_id, spec, changes)
        for warning in warnings:
            self.warn(warning)
        return warnings

    def _run_one(self, job: Job, backend: Backend) -> str:
        setup = self.prepared.get(system_parts(job.system)[0], {}).get(job.item.key)
        config = self.spec.config(job.item, job.system, setup, job.repeat)
        if self.per_debate is not None:
            backend = self.per_debate(config)
        served: Backend | BackendRouter = backend
        seated = resolve(config)[1].seat_models()
        if self.seats is not None:
            served = self.seats.route(backend, config)
        elif seated:
            if self.seat_backend is None:
                raise ExperimentError(f"{job.system} seats its own model ({', '.join(seated.values())}); none given")
            served = BackendRouter(backend, by_role={role: self.seat_backend(m, config) for role, m in seated.items()})
        key = run_key(job.item.key, job.repeat)
        run = RunRecord(self.spec.experiment_id, key, job.item.dataset, job.system, job.debate_id, job.item.subject)
        return self.debates.record(Debate(config, served, debate_id=job.debate_id), run)
