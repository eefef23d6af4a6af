"""Training data for a learned listener by tree sampling (HandRaiser, App. C), resumable.

What it does: for each question a **root** debate runs under the random
policy (temperature 1.0 by default, the sides from the positions pool). Its
statements of two chunks or more are the speaking **nodes** (at most
``max_nodes`` per question, in order). At a node with K chunks the sampler
picks up to ``branch_size`` chunk boundaries at random (seeded) and adds the
no-interrupt branch; each branch is a fork of the root: the same debate run
again with the moderator's decisions forced at that statement (``Debate(...,
forced=...)``: no before chunk k, yes at k; or no at every chunk), which
reproduces the root exactly up to the node, and ``rollouts`` different
continuations under the random policy (``fork_salt``: everything sampled after
the fork is seeded afresh per rollout). Every debate is recorded in the store
under the experiment with a deterministic id, so a rerun skips what is done.

``examples()`` labels each branch from its rollouts' mean cost (the paper's,
``handraiser.cost``) and success against the no-interrupt branch's: **Yes iff
the cost falls and the success rate does not** (a hard constraint, no
trade-off), and gives the moderator's ``listen`` prompt at that chunk
(rebuilt from the events, ``handraiser.replayed``) with the label as a chat
example; ``write_jsonl`` exports them for ``train-listener``.

What it does not do: train anything (``train_listener``) or report debates
(``compare_report``).
"""

from __future__ import annotations

import hashlib
import json
import random
import statistics
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from debate_core.backends.base import Backend
from debate_core.config import DebateConfig
from debate_core.debate import Debate
from debate_core.events import DebateEnded, Event, UtteranceGenerated
from experiments.compare import CompareSpec, Item
from experiments.progress import Progress, SilentProgress
from experiments.workers import ExperimentError, StudyDebates, register_study, run_pool
from protocols.handraiser.cost import debate_cost
from protocols.handraiser.positions import Positions
from protocols.handraiser.replayed import listener_messages
from protocols.handraiser.study.preparation import question_setup
from storage import Store
from storage.experiments import RunRecord

KIND = "handraiser-tree"
MODERATOR = "Moderator"


class TreeSpec(BaseModel):
    """Everything that changes the sampled tree (App. C's defaults)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = KIND
    experiment_id: str = Field(min_length=1, max_length=100)
    model: str = ""
    mmlu: int = Field(default=5, ge=1, le=20_000)
    seed: int = Field(default=0, ge=0, lt=2**31)
    temperature: float = Field(default=1.0, ge=0.0, le=5.0)
    chunk_tokens: int = Field(default=16, ge=1, le=1_024)
    max_rounds: int = Field(default=10, ge=1, le=100)
    statement_tokens: int = Field(default=256, ge=8, le=8_192)
    max_new_tokens: int = Field(default=512, ge=16, le=100_000)
    branch_size: int = Field(default=3, ge=1, le=100)
    rollouts: int = Field(default=10, ge=1, le=1_000)
    max_nodes: int = Field(default=10, ge=1, le=1_000)
    positions: bool = True

    def differences(self, other: TreeSpec) -> list[str]:
        mine, theirs = self.model_dump(mode="json"), other.model_dump(mode="json")
        return [f"{key}: {mine[key]} -> {theirs[key]}" for key in mine if mine[key] != theirs.get(key)]

    def system(self) -> str:
        params = (
            f"chunk_tokens={self.chunk_tokens},max_rounds={self.max_rounds},statement_tokens={self.statement_tokens}"
        )
        return f"handraiser/random:{params}"

    def config(self, item: Item, positions: Positions | None) -> DebateConfig:
        compare = CompareSpec(
            experiment_id=self.experiment_id,
            systems=(self.system(),),
            seed=self.seed,
            temperature=self.temperature,
            max_new_tokens=self.max_new_tokens,
        )
        setup = question_setup(positions, self.seed, item.key) if positions is not None else None
        return compare.config(item, self.system(), setup)

    def debate_id(self, *parts: Any) -> str:
        text = json.dumps([self.experiment_id, *parts])
        return "t" + hashlib.sha256(text.encode()).hexdigest()[:31]


@dataclass(frozen=True)
class Branch:
    """A fork at one statement: interrupt after chunk ``unit`` (0-based), or never (``unit`` None)."""

    item: Item
    utterance_id: int
    chunks: int
    unit: int | None

    @property
    def name(self) -> str:
        return f"u{self.utterance_id}/" + ("none" if self.unit is None else f"k{self.unit + 1}")

    def forced(self) -> dict[tuple[str, int, int], bool]:
        last = self.chunks - 2 if self.unit is None else self.unit
        return {(MODERATOR, self.utterance_id, i): i == self.unit for i in range(last + 1)}


@dataclass(frozen=True)
class Job:
    item: Item
    debate_id: str
    system: str
    branch: Branch | None = None
    rollout: int = 0


@dataclass
class TreeSummary:
    roots: int = 0
    rollouts: int = 0
    skipped: int = 0
    finished: int = 0
    failed: int = 0
    aborted: int = 0


@dataclass(frozen=True)
class Example:
    messages: tuple[dict[str, str], ...]
    label: str
    meta: dict[str, Any] = field(default_factory=dict)

    def json(self) -> str:
        return json.dumps({"messages": list(self.messages), "label": self.label, "meta": self.meta})


def nodes(spec: TreeSpec, item: Item, events: Sequence[Event]) -> list[Branch]:
    """The branches at the root's speaking nodes (see the module docstring)."""
    statements = [e for e in events if isinstance(e, UtteranceGenerated) and e.kind == "statement" and len(e.units) > 1]
    branches = []
    for said in statements[: spec.max_nodes]:
        rng = random.Random(f"{spec.seed}/{item.key}/{said.utterance_id}/branches")
        points = sorted(rng.sample(range(len(said.units) - 1), min(spec.branch_size, len(said.units) - 1)))
        for unit in [*points, None]:
            branches.append(Branch(item, said.utterance_id, len(said.units), unit))
    return branches


class TreeSampler:
    """Samples (or resumes) the tree of every question into a store (see the module docstring)."""

    def __init__(
        self,
        spec: TreeSpec,
        store: Store,
        backend: Backend,
        items: Sequence[Item],
        *,
        positions: Mapping[str, Positions] | None = None,
        concurrency: int = 4,
        progress: Progress | None = None,
        per_debate: Callable[[DebateConfig], Backend] | None = None,
    ) -> None:
        self.spec, self.store, self.backend, self.items = spec, store, backend, list(items)
        self.positions = dict(positions or {})
        self.concurrency = max(1, concurrency)
        self.progress = progress or SilentProgress()
        self.per_debate = per_debate
        self.debates = StudyDebates(store, spec.experiment_id)
        self._lock = threading.Lock()

    def stop(self) -> None:
        self.debates.stop()

    def run(self) -> TreeSummary:
        self.register()
        summary = TreeSummary()
        roots = [Job(item, self.spec.debate_id(item.key, "root"), "root") for item in self.items]
        summary.roots = len(roots)
        self._stage("roots", roots, summary)
        if self.debates.stopped.is_set():
            return summary
        jobs = [
            Job(b.item, self.spec.debate_id(b.item.key, b.name, r), f"{b.name}/r{r}", b, r)
            for b in self.branches()
            for r in range(self.spec.rollouts)
        ]
        summary.rollouts = len(jobs)
        self._stage("rollouts", jobs, summary)
        return summary

    def branches(self) -> list[Branch]:
        found = []
        for item in self.items:
            events = self._events(self.spec.debate_id(item.key, "root"))
            if events is not None:
                found += nodes(self.spec, item, events)
        return found

    def _events(self, debate_id: str) -> list[Event] | None:
        try:
            if self.store.debate(debate_id).status != "finished":
                return None
        except KeyError:
            return None
        return self.store.events(debate_id)

    def _stage(self, name: str, jobs: list[Job], summary: TreeSummary) -> None:
        todo = [job for job in jobs if not self.debates.finished(job.debate_id)]
        summary.skipped += len(jobs) - len(todo)
        self.progress.phase(name, len(jobs), len(jobs) - len(todo))

        def done(outcome: str) -> None:
            with self._lock:
                setattr(summary, outcome, getattr(summary, outcome) + 1)
            self.progress.advance(name, f"{summary.failed} failed" if summary.failed else "")

        run_pool(
            todo,
            self._run_one,
            self.backend,
            concurrency=self.concurrency,
            stop=self.debates.stopped,
            on_stop=self.stop,
            done=done,
        )

    def register(self) -> None:
        """Create the experiment, or check that it was sampled with this specification."""

        def changes(stored: dict[str, Any]) -> list[str]:
            if stored.get("kind") != KIND:
                raise ExperimentError(f"experiment {self.spec.experiment_id!r} is not a tree sample")
            return TreeSpec.model_validate(stored).differences(self.spec)

        register_study(
            self.store, self.spec.experiment_id, self.backend.model_id, self.spec.model_dump(mode="json"), changes
        )

    def _run_one(self, job: Job, backend: Backend) -> str:
        config = self.spec.config(job.item, self.positions.get(job.item.key))
        if self.per_debate is not None:
            backend = self.per_debate(config)
        forced = job.branch.forced() if job.branch is not None else None
        debate = Debate(config, backend, debate_id=job.debate_id, forced=forced, fork_salt=job.rollout + 1)
        run = RunRecord(
            self.spec.experiment_id, job.item.key, job.item.dataset, job.system, job.debate_id, job.item.subject
        )
        return self.debates.record(debate, run)

    # -- labels ----------------------------------------------------------------------------------
    def examples(self) -> list[Example]:
        """One labelled example per interrupt branch whose rollouts and no-interrupt rollouts all finished."""
        by_node: dict[tuple[str, int], list[Branch]] = {}
        for branch in self.branches():
            by_node.setdefault((branch.item.key, branch.utterance_id), []).append(branch)
        examples = []
        for branches in by_node.values():
            outcomes = {b.unit: self._outcomes(b) for b in branches}
            baseline = outcomes.get(None)
            if not baseline:
                continue
            for branch in branches:
                if branch.unit is None or not outcomes[branch.unit]:
                    continue
                results = outcomes[branch.unit]
                label = label_for([c for c, _, _ in results], [s for _, s, _ in results], baseline)
                events = results[0][2]
                messages = listener_messages(events, branch.utterance_id, branch.unit)
                examples.append(
                    Example(
                        (
                            *({"role": m.role, "content": m.content} for m in messages),
                            {"role": "assistant", "content": label},
                        ),
                        label,
                        {
                            "question_key": branch.item.key,
                            "utterance_id": branch.utterance_id,
                            "chunk": branch.unit + 1,
                            "chunks": branch.chunks,
                            "cost": statistics.fmean(c for c, _, _ in results),
                            "success": statistics.fmean(s for _, s, _ in results),
                            "cost_no_interrupt": statistics.fmean(c for c, _, _ in baseline),
                            "success_no_interrupt": statistics.fmean(s for _, s, _ in baseline),
                            "rollouts": len(results),
                        },
                    )
                )
        return examples

    def _outcomes(self, branch: Branch) -> list[tuple[int, float, list[Event]]]:
        found = []
        for r in range(self.spec.rollouts):
            events = self._events(self.spec.debate_id(branch.item.key, branch.name, r))
            if events is None:
                return []
            end = events[-1]
            assert isinstance(end, DebateEnded)
            found.append((debate_cost(events).total, 1.0 if end.correct else 0.0, events))
        return found


def label_for(costs: Sequence[float], successes: Sequence[float], baseline: Sequence[tuple[Any, ...]]) -> str:
    """Yes iff interrupting lowers the mean cost and keeps the mean success (the paper's hard constraint)."""
    cost, success = statistics.fmean(costs), statistics.fmean(successes)
    base_cost = statistics.fmean(item[0] for item in baseline)
    base_success = statistics.fmean(item[1] for item in baseline)
    return "Yes" if cost < base_cost and success >= base_success else "No"


def write_jsonl(examples: Sequence[Example], path: Path) -> dict[str, Any]:
    """Write the examples as chat-format JSON lines; what was written (for the experiment's notes)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(example.json() + "\n" for example in examples)
    path.write_text(text, encoding="utf-8")
    yes = sum(1 for example in examples if example.label == "Yes")
    return {
        "path": str(path),
        "examples": len(examples),
        "yes": yes,
        "sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
