"""Running a study: pool, then questions x settings x conditions, resumable, several at once.

What it does: ``StudyRunner(spec, store, backend).run()``

1. registers the experiment in the store (a rerun with the same id must give
   the same specification, or it stops with the fields that differ);
2. walks a seeded sample of MMLU questions and, for each, loads its stored
   pool answers or generates them with the model (``pool_generation``), until
   ``spec.questions`` usable questions are found (``pool.usable``) or the
   candidate limit is reached; the acceptance rate is recorded on the
   experiment;
3. builds one debate per (question, setting, condition), every condition of a
   question starting from the same assigned initial answers (``pool.assign``),
   with a deterministic debate id: a debate already ``finished`` in the store
   is skipped, any other earlier attempt is deleted and run again;
4. runs them ``concurrency`` at a time in threads sharing one
   ``CoalescingBackend``, so their model calls go out as one batch per step,
   and records every event in the store under the experiment id. Each debate
   is a cell this worker claims under a lease (``workers``, ``storage.cells``),
   so any number of runners, in processes on any machines sharing the
   database, run one study together; the first stored pool of a question is
   the one every runner uses.

A model error ends only its debate (recorded as ``failed``; a rerun retries
it). ``stop()`` (Ctrl-C in the CLI) ends the running debates at their next
turn boundary; they are recorded as ``aborted`` and rerun next time.

What it does not do: draw progress itself (it calls a ``Progress`` sink) or
compute any result (``analysis`` does).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from debate_core.backends.base import Backend
from debate_core.config import Condition
from debate_core.debate import Debate
from debate_core.kernel.sentences import missing
from debate_core.log import logger
from experiments.mmlu import MmluQuestion, in_subjects, load_mmlu, sample
from experiments.progress import Progress, SilentProgress
from experiments.workers import ExperimentError, StudyDebates, register_study
from protocols.kimura.study.pool import Sampled, Setting, assign, realisable, usable
from protocols.kimura.study.pool_generation import generate_samples, to_sampled
from protocols.kimura.study.spec import StudySpec, question_key
from storage import Store
from storage.cells import Lease
from storage.experiments import PoolAnswer, RunRecord


@dataclass(frozen=True)
class Job:
    question: MmluQuestion
    key: str
    setting: Setting
    condition: Condition
    debate_id: str
    samples: tuple[Sampled, ...]


@dataclass
class PoolStats:
    examined: int = 0
    usable: int = 0
    generated: int = 0
    invalid_outputs: int = 0
    outputs: int = 0
    usable_keys: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.usable / self.examined if self.examined else 0.0


@dataclass
class RunSummary:
    experiment_id: str
    pool: PoolStats
    debates: int = 0
    skipped: int = 0
    finished: int = 0
    failed: int = 0
    aborted: int = 0
    wall_s: float = 0.0
    batch_sizes: list[int] = field(default_factory=list)

    @property
    def debates_per_hour(self) -> float:
        ran = self.finished + self.failed
        return 3600.0 * ran / self.wall_s if self.wall_s > 0 and ran else 0.0


def candidate_questions(spec: StudySpec, questions: Sequence[MmluQuestion] | None = None) -> list[MmluQuestion]:
    """The seeded sample of questions a study tries, in order (``questions``: instead of MMLU)."""
    pool = in_subjects(questions if questions is not None else load_mmlu(spec.data_path), spec.subjects or None)
    return sample(pool, min(spec.candidate_limit, len(pool)), seed=spec.seed)


class StudyRunner:
    """Runs (or resumes) one study against one store and one backend."""

    def __init__(
        self,
        spec: StudySpec,
        store: Store,
        backend: Backend,
        *,
        concurrency: int = 1,
        progress: Progress | None = None,
        questions: Sequence[MmluQuestion] | None = None,
        window_s: float = 0.05,
        lease: Lease | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.spec = spec
        self.store = store
        self.backend = backend
        self.concurrency = concurrency
        self.progress = progress or SilentProgress()
        self._questions = questions
        self._candidates: list[MmluQuestion] | None = None
        self._pool_answers: dict[str, list[PoolAnswer]] = {}
        self._window_s = window_s
        self.debates = StudyDebates(store, spec.experiment_id, lease=lease)
        self._lock = threading.Lock()

    def stop(self) -> None:
        """End every running debate at its next turn boundary; start no new one."""
        self.debates.stop()

    # -- the whole study -------------------------------------------------------
    def run(self, *, pool_only: bool = False) -> RunSummary:
        """Run what is left of the study (``pool_only``: stop once the pool is made)."""
        problem = missing(self.spec.segmenter)  # before any model work, not at the first debate
        if problem is not None:
            raise ExperimentError(f"segmenter {self.spec.segmenter!r}: {problem}")
        self._register()
        pool = self._build_pool()
        summary = RunSummary(self.spec.experiment_id, pool)
        if self.debates.stopped.is_set() or pool_only:
            return summary
        jobs = self._jobs(pool)
        summary.debates = len(jobs)
        summary.skipped = self.debates.prepare([job.debate_id for job in jobs])
        self.progress.phase("debates", len(jobs), summary.skipped)
        started = time.perf_counter()
        self._run_jobs(jobs, summary)
        summary.wall_s = time.perf_counter() - started
        this_run = {
            "debates": summary.debates,
            "skipped": summary.skipped,
            "finished": summary.finished,
            "failed": summary.failed,
            "aborted": summary.aborted,
            "wall_s": round(summary.wall_s, 1),
            "concurrency": self.concurrency,
            "debates_per_hour": round(summary.debates_per_hour, 2),
        }
        ran = summary.finished + summary.failed + summary.aborted  # a rerun with nothing left to do is not a run
        append = {"runs": this_run} if ran else None
        self.store.experiments.update_notes(self.spec.experiment_id, last_run=this_run, append=append)
        return summary

    def _register(self) -> None:
        register_study(
            self.store,
            self.spec.experiment_id,
            self.backend.model_id,
            self.spec.model_dump(mode="json"),
            lambda stored: StudySpec.model_validate(stored).differences(self.spec),
            pool_key=self.spec.pool_key(self.backend.model_id),
        )

    # -- the pool --------------------------------------------------------------
    def candidates(self) -> list[MmluQuestion]:
        if self._candidates is None:
            self._candidates = candidate_questions(self.spec, self._questions)
        return self._candidates

    def _build_pool(self) -> PoolStats:
        spec, tables = self.spec, self.store.experiments
        pool_key = spec.pool_key(self.backend.model_id)
        candidates = self.candidates()
        stored = self._pool_answers = tables.pool(pool_key)
        stats = PoolStats()
        record = tables.get(spec.experiment_id)
        previous_s = float(record.notes.get("pool", {}).get("wall_s", 0.0)) if record else 0.0  # generation time
        started = time.perf_counter()
        self.progress.phase("pool", spec.questions)
        step = max(1, self.concurrency)
        position = 0
        while position < len(candidates) and stats.usable < spec.questions and not self.debates.stopped.is_set():
            group = candidates[position : position + step]
            position += len(group)
            missing = [q for q in group if question_key(q) not in stored]
            if missing:
                made = generate_samples(
                    self.backend,
                    missing,
                    samples=spec.pool_samples,
                    temperature=spec.sampling_temperature,
                    max_new_tokens=spec.pool_max_new_tokens,
                    seed=spec.seed,
                )
                for question, answers in zip(missing, made, strict=True):
                    # another runner of the study may have stored this question's pool meanwhile: that one counts
                    stored[question_key(question)] = tables.add_pool_once(pool_key, question_key(question), answers)
                    stats.generated += 1
            for question in group:
                if stats.usable >= spec.questions:
                    break
                answers = stored[question_key(question)][: spec.pool_samples]
                stats.examined += 1
                stats.outputs += len(answers)
                stats.invalid_outputs += sum(not a.valid for a in answers)
                sampled = to_sampled(answers)
                if usable(sampled, question.answer, spec.pool_threshold) and realisable(
                    sampled, question.answer, spec.settings
                ):
                    stats.usable += 1
                    stats.usable_keys.append(question_key(question))
                    self.progress.advance("pool", f"{stats.usable} usable of {stats.examined}")
        tables.update_notes(
            spec.experiment_id,
            pool={
                "examined": stats.examined,
                "usable": stats.usable,
                "rate": round(stats.rate, 4),
                "outputs": stats.outputs,
                "invalid_outputs": stats.invalid_outputs,
                "threshold": spec.pool_threshold,
                "samples": spec.pool_samples,
                "temperature": spec.sampling_temperature,
                "candidate_limit": spec.candidate_limit,
                "usable_keys": stats.usable_keys,
                "wall_s": round(previous_s + (time.perf_counter() - started if stats.generated else 0.0), 1),
            },
        )
        logger.info("pool: %d usable of %d examined (%.0f%%)", stats.usable, stats.examined, 100 * stats.rate)
        if stats.usable == 0 and not self.debates.stopped.is_set():
            raise ExperimentError(
                f"none of {stats.examined} sampled questions had at least {spec.pool_threshold} correct and "
                f"{spec.pool_threshold} incorrect answers (and enough of each for the settings) among "
                f"{spec.pool_samples} samples; a weak model may need a higher --pool-temperature, more "
                "--max-candidates, or, with a single setting, --pool-threshold 1"
            )
        return stats

    # -- the debates -----------------------------------------------------------
    def _jobs(self, pool: PoolStats) -> list[Job]:
        by_key = {question_key(q): q for q in self.candidates()}
        stored = self._pool_answers
        jobs = []
        for key in pool.usable_keys:
            samples = tuple(to_sampled(stored[key][: self.spec.pool_samples]))
            for setting in self.spec.settings:
                for condition in self.spec.conditions:
                    jobs.append(
                        Job(by_key[key], key, setting, condition, self.spec.debate_id(key, setting, condition), samples)
                    )
        return jobs

    def _run_jobs(self, jobs: list[Job], summary: RunSummary) -> None:
        def done(outcome: str) -> None:
            with self._lock:
                setattr(summary, outcome, getattr(summary, outcome) + 1)

        sizes = self.debates.run(
            jobs,
            lambda job: job.debate_id,
            self._run_one,
            self.backend,
            concurrency=self.concurrency,
            done=done,
            advance=lambda: self.progress.advance("debates", f"{summary.failed} failed" if summary.failed else ""),
            window_s=self._window_s,
        )
        if sizes:
            summary.batch_sizes = sizes

    def _run_one(self, job: Job, backend: Backend) -> str:
        spec = self.spec
        initial = assign(job.samples, job.question.answer, job.setting)
        config = spec.debate_config(job.question, job.condition, initial)
        run = RunRecord(
            spec.experiment_id, job.key, job.setting.value, job.condition.value, job.debate_id, job.question.subject
        )
        return self.debates.record(Debate(config, backend, debate_id=job.debate_id), run)
