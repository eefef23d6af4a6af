"""Training data for a learned listener by tree sampling (HandRaiser, §3.2, App. C), on any of its tasks, resumable.

What it does: a ``TreeSpec`` names the task (``protocol``: ``handraiser``,
the debate, whose moderator listens; ``pictionary``, the guesser;
``scheduling``, the traveler: ``tasks``), its cases (a data set), the
sampler's settings and the task's parameters, resolved with every default
filled in (``params``; the moderator's ``questions`` flag among them), the
per-role models (``model_for``) and the model that wrote the positions; a
rerun whose specification differs in any of them is refused, naming each
change (``params.questions: True -> False``). For each case a **root** game
runs under the random policy (temperature 1.0 by default; the debate's sides
from the positions pool). The statements of two chunks or more that the
listener heard are the speaking **nodes** (at most ``max_nodes`` per case,
in order). At a node with K chunks the sampler picks up to ``branch_size``
chunk boundaries at random (seeded) and adds the no-interrupt branch; each
branch is a fork of the root: the same game run again with the listener's
decisions forced at that statement (``Debate(..., forced=...)``: no before
chunk k, yes at k; or no at every chunk), which reproduces the root exactly
up to the node, and ``rollouts`` different continuations under the random
policy (``fork_salt``: everything sampled after the fork is seeded afresh
per rollout). Every game is recorded in the store under the experiment with
a deterministic id, so a rerun skips what is done; with ``seats``
(``SeatBackends``) each game's seats are served by their own models.

``examples()`` labels each branch from its rollouts' mean cost (the paper's,
``handraiser.cost``, the same for the three tasks) and success against the
no-interrupt branch's: **Yes iff the cost falls and the success rate does
not** (a hard constraint, no trade-off), and gives the listener's ``listen``
prompt at that chunk with the label as a chat example: the moderator's
rebuilt from the events (``handraiser.replayed``), the guesser's and the
traveler's captured from the task replayed up to the node
(``tree_prompts``); ``write_jsonl`` exports them for ``train-listener``.

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

from pydantic import BaseModel, ConfigDict, Field, model_validator

from debate_core.backends.base import Backend, Message
from debate_core.backends.model_for import SeatBackends
from debate_core.backends.router import BackendRouter
from debate_core.config import DebateConfig
from debate_core.debate import Debate
from debate_core.events import DebateEnded, DebateStarted, Event, ListenerDecision, UtteranceGenerated
from experiments.compare import CompareSpec, Item
from experiments.progress import Progress, SilentProgress
from experiments.spec_changes import resolved_params
from experiments.workers import ExperimentError, StudyDebates, register_study, run_pool
from protocols.handraiser.cost import debate_cost
from protocols.handraiser.positions import Positions
from protocols.handraiser.replayed import listener_messages
from protocols.handraiser.study.preparation import question_setup
from protocols.handraiser.study.tasks import Task, listener_of, task
from protocols.handraiser.study.tree_prompts import Node, capture_prompts
from storage import Store
from storage.experiments import RunRecord

KIND = "handraiser-tree"
MODERATOR = "Moderator"  # the debate's listener (``tasks.listener_of`` finds each task's)


class TreeSpec(BaseModel):
    """Everything that changes the sampled tree (App. C's defaults); ``params``: the task's resolved parameters."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str = KIND
    experiment_id: str = Field(min_length=1, max_length=100)
    protocol: str = "handraiser"  # the task (``tasks.TASKS``): handraiser, pictionary or scheduling
    dataset: str = "mmlu"
    cases: int = Field(default=5, ge=1, le=20_000)
    model: str = ""
    model_for: dict[str, str] = Field(default_factory=dict)  # per-role models, ``--model-for WHO=SPEC``
    positions_model: str = ""  # the model that wrote the positions pool ("": the study's)
    seed: int = Field(default=0, ge=0, lt=2**31)
    temperature: float = Field(default=1.0, ge=0.0, le=5.0)
    max_new_tokens: int = Field(default=512, ge=16, le=100_000)
    branch_size: int = Field(default=3, ge=1, le=100)
    rollouts: int = Field(default=10, ge=1, le=1_000)
    max_nodes: int = Field(default=10, ge=1, le=1_000)
    positions: bool = True
    params: dict[str, Any] = Field(default_factory=dict)  # resolved: every default filled in

    @model_validator(mode="before")
    @classmethod
    def _resolve(cls, data: Any) -> Any:
        """The task's parameters with every default filled (the moderator's ``questions`` flag among them)."""
        if not isinstance(data, dict) or data.get("kind", KIND) != KIND:
            return data
        found = task(str(data.get("protocol", "handraiser")))
        data = {**data, "protocol": found.protocol}
        compare = CompareSpec(
            experiment_id="tree", systems=(f"{found.protocol}/random",), params={found.protocol: data.get("params", {})}
        )
        params = resolved_params(compare)[f"{found.protocol}/random"]
        if params.get("symmetric"):
            raise ExperimentError("tree sampling takes one listener (App. C.2): symmetric=true is not sampled")
        return {**data, "params": params}

    def differences(self, other: TreeSpec) -> list[str]:
        mine, theirs = self.model_dump(mode="json"), other.model_dump(mode="json")
        return changes(mine, theirs)

    @property
    def task(self) -> Task:
        return task(self.protocol)

    def system(self, variant: str = "random") -> str:
        return f"{self.protocol}/{variant}"

    def config(self, item: Item, positions: Positions | None, variant: str = "random") -> DebateConfig:
        compare = CompareSpec(
            experiment_id=self.experiment_id,
            systems=(self.system(variant),),
            params={self.protocol: self.params},
            seed=self.seed,
            temperature=self.temperature,
            max_new_tokens=self.max_new_tokens,
        )
        setup = question_setup(positions, self.seed, item.key) if positions is not None else None
        return compare.config(item, self.system(variant), setup)

    def debate_id(self, *parts: Any) -> str:
        text = json.dumps([self.experiment_id, *parts])
        return "t" + hashlib.sha256(text.encode()).hexdigest()[:31]


def changes(stored: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    """Each setting of a tree that differs, old -> new (a parameter by its own name, ``params.questions``)."""
    found = []
    for key in dict.fromkeys([*stored, *now]):
        before, after = stored.get(key), now.get(key)
        if key == "params" and isinstance(before, dict) and isinstance(after, dict):
            found += changes(*({f"params.{k}": v for k, v in side.items()} for side in (before, after)))
        elif before != after:
            found.append(f"{key}: {before} -> {after}")
    return found


@dataclass(frozen=True)
class Branch:
    """A fork at one statement: interrupt after chunk ``unit`` (0-based), or never (``unit`` None)."""

    item: Item
    utterance_id: int
    chunks: int
    unit: int | None
    listener: str = MODERATOR

    @property
    def name(self) -> str:
        return f"u{self.utterance_id}/" + ("none" if self.unit is None else f"k{self.unit + 1}")

    def forced(self) -> dict[tuple[str, int, int], bool]:
        last = self.chunks - 2 if self.unit is None else self.unit
        return {(self.listener, self.utterance_id, i): i == self.unit for i in range(last + 1)}


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
    """The branches at the root's speaking nodes: the statements of two chunks or more that the listener heard
    (it decided after one of their chunks), in order (see the module docstring)."""
    started = next(e for e in events if isinstance(e, DebateStarted))
    listener = listener_of(started.config, spec.task)
    heard = {e.utterance_id for e in events if isinstance(e, ListenerDecision) and e.listener == listener}
    statements = [e for e in events if isinstance(e, UtteranceGenerated) and e.utterance_id in heard]
    statements = [e for e in statements if len(e.units) > 1]
    branches = []
    for said in statements[: spec.max_nodes]:
        rng = random.Random(f"{spec.seed}/{item.key}/{said.utterance_id}/branches")
        points = sorted(rng.sample(range(len(said.units) - 1), min(spec.branch_size, len(said.units) - 1)))
        for unit in [*points, None]:
            branches.append(Branch(item, said.utterance_id, len(said.units), unit, listener))
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
        seats: SeatBackends | None = None,
    ) -> None:
        self.spec, self.store, self.backend, self.items = spec, store, backend, list(items)
        self.positions = dict(positions or {})
        self.concurrency = max(1, concurrency)
        self.progress = progress or SilentProgress()
        self.per_debate = per_debate
        self.seats = seats
        if spec.model_for and (seats is None or seats.record() != spec.model_for):
            raise ExperimentError("the tree names per-role models (model_for) but no backends for them (seats)")
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

        def differ(stored: dict[str, Any]) -> list[str]:
            if stored.get("kind") != KIND:
                raise ExperimentError(f"experiment {self.spec.experiment_id!r} is not a tree sample")
            return changes(stored, self.spec.model_dump(mode="json"))

        register_study(
            self.store, self.spec.experiment_id, self.backend.model_id, self.spec.model_dump(mode="json"), differ
        )

    def served(self, config: DebateConfig, backend: Backend) -> Backend | BackendRouter:
        """The debate's backend: each debate's own demo script (scripted), each seat's own model (``model_for``)."""
        if self.per_debate is not None:
            backend = self.per_debate(config)
        return self.seats.route(backend, config) if self.seats is not None else backend

    def config_for(self, item: Item, variant: str = "random") -> DebateConfig:
        """A game of the tree's task on ``item`` under ``variant`` (its sides from the positions pool)."""
        return self.spec.config(item, self.positions.get(item.key), variant)

    def _run_one(self, job: Job, backend: Backend) -> str:
        config = self.config_for(job.item)
        forced = job.branch.forced() if job.branch is not None else None
        served = self.served(config, backend)
        debate = Debate(config, served, debate_id=job.debate_id, forced=forced, fork_salt=job.rollout + 1)
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
        outcomes = {(b.item.key, b.name): self._outcomes(b) for bs in by_node.values() for b in bs}

        def ready(b: Branch) -> bool:
            return bool(outcomes[(b.item.key, b.name)])

        labelled = [
            bs for bs in by_node.values() if ready(_none(bs)) and any(b.unit is not None and ready(b) for b in bs)
        ]
        prompts = self._prompts(labelled)
        examples = []
        for branches in labelled:
            baseline = outcomes[(branches[0].item.key, _none(branches).name)]
            for branch in branches:
                results = outcomes[(branch.item.key, branch.name)]
                if branch.unit is None or not results:
                    continue
                label = label_for([c for c, _, _ in results], [s for _, s, _ in results], baseline)
                messages = prompts[(branch.item.key, branch.utterance_id)][branch.unit]
                examples.append(
                    Example(
                        (
                            *({"role": m.role, "content": m.content} for m in messages),
                            {"role": "assistant", "content": label},
                        ),
                        label,
                        {
                            "task": self.spec.protocol,
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

    def _prompts(self, labelled: Sequence[Sequence[Branch]]) -> dict[tuple[str, int], dict[int, tuple[Message, ...]]]:
        """The listener's prompt at each labelled chunk: rebuilt from the events (the debate), else captured."""
        found: dict[tuple[str, int], dict[int, tuple[Message, ...]]] = {}
        nodes_wanted = []
        for branches in labelled:
            first = branches[0]
            units = sorted(b.unit for b in branches if b.unit is not None and self._outcomes(b))
            root = self._events(self.spec.debate_id(first.item.key, "root"))
            assert root is not None  # its branches were found in it
            if self.spec.protocol == "handraiser":  # the moderator's prompt, rebuilt (``handraiser.replayed``)
                events = self._outcomes(_none(branches))[0][2]
                found[(first.item.key, first.utterance_id)] = {
                    u: listener_messages(events, first.utterance_id, u) for u in units
                }
            else:
                nodes_wanted.append(Node(first.item, first.utterance_id, first.listener, tuple(units), root))
        if nodes_wanted:
            found.update(capture_prompts(self, nodes_wanted))
        return found

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


def _none(branches: Sequence[Branch]) -> Branch:
    """A node's no-interrupt branch."""
    return next(b for b in branches if b.unit is None)


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
