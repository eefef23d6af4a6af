"""The listener's prompt at a node of a sampled tree, captured from the task itself (Pictionary, Scheduling).

What it does: a training example is the listener's ``listen`` prompt at a
chunk of a root's statement, in the prompted template (§3.2: "the path from
the root to the node is the chat history, and the partial message in this
node is the message chunks received in this round"). The debate rebuilds it
from the stored events (``handraiser.replayed``); for the other tasks
``capture_prompts`` asks the task itself: per node it runs the root's game
again under the ``prompted`` variant, with every listener decision before
the node forced to the root's (``Debate(forced=...)``: sampling is seeded per
agent, turn and request kind, so the game replays the root exactly up to the
node), and the listener's backend wrapped (``Listening``) so that its
``listen`` requests at the node's statement are recorded and answered "No"
(the statement is heard out, one prompt per chunk); the run stops once the
last wanted chunk is asked about and is not stored. The prompt is thus the
one the task sends a prompted or learned listener there, by construction.
The runs go through ``run_pool`` (concurrent, their model calls merged).

What it does not do: label anything or sample the tree (``tree``), or word
prompts (the tasks' ``prompts/``).
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from debate_core.backends.base import Backend, Completion, GenerationRequest, Message, TokenSpan
from debate_core.backends.router import BackendRouter
from debate_core.config import DebateConfig
from debate_core.debate import Debate
from debate_core.events import DebateEnded, Event, ListenerDecision
from experiments.compare import Item
from experiments.workers import ExperimentError, run_pool

LISTEN = "listen"


class Sampler(Protocol):
    """What a capture needs of the tree sampler: its backend and concurrency, a case's configuration under a
    variant, and the backend that serves a game's seats."""

    backend: Backend
    concurrency: int

    def config_for(self, item: Item, variant: str) -> DebateConfig: ...

    def served(self, config: DebateConfig, backend: Backend) -> Backend | BackendRouter: ...


@dataclass(frozen=True)
class Node:
    """A speaking node: the statement ``utterance_id`` of the root of ``item``, and its chunks to label."""

    item: Item
    utterance_id: int
    listener: str
    units: tuple[int, ...]
    root: Sequence[Event] = field(compare=False)


class Listening(Backend):
    """The listener's backend, but its ``listen`` requests are recorded and answered "No" (heard out)."""

    def __init__(self, inner: Backend, listener: str) -> None:
        self.inner, self.listener = inner, listener
        self.capabilities = inner.capabilities
        self.prompts: list[tuple[Message, ...]] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def generate(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        mine = [r.kind == LISTEN and r.agent == self.listener for r in requests]
        passed = iter(self.inner.generate([r for r, m in zip(requests, mine, strict=True) if not m]) if not all(mine)
                      else [])  # fmt: skip
        out = []
        for request, listened in zip(requests, mine, strict=True):
            if listened:
                self.prompts.append(request.messages)
                out.append(Completion("No", prompt_tokens=0, completion_tokens=1))
            else:
                out.append(next(passed))
        return out

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    @property
    def vocab_size(self) -> int | None:
        return self.inner.vocab_size

    def tokenize(self, text: str) -> list[TokenSpan]:
        return self.inner.tokenize(text)

    def detokenize(self, ids: Sequence[int]) -> str:
        return self.inner.detokenize(ids)

    def release(self, debate_id: str) -> None:
        self.inner.release(debate_id)


def capture(sampler: Sampler, node: Node, backend: Backend) -> dict[int, tuple[Message, ...]]:
    """The listener's ``listen`` prompt after each wanted chunk of the node's statement (see the module docstring)."""
    config = sampler.config_for(node.item, "prompted")
    served = sampler.served(config, backend)
    router = served if isinstance(served, BackendRouter) else BackendRouter(served)
    listening = Listening(router.backend_for(node.listener, config.agent(node.listener).role), node.listener)
    by_agent = {**router.by_agent, node.listener: listening}
    routed = BackendRouter(router.default, by_agent=by_agent, by_role=router.by_role)
    forced = {
        (d.listener, d.utterance_id, d.unit_index): d.interrupt
        for d in node.root
        if isinstance(d, ListenerDecision) and d.utterance_id != node.utterance_id
    }
    debate_id = f"prompt-{uuid.uuid4().hex}"  # not stored
    heard: list[int] = []
    try:
        for event in Debate(config, routed, debate_id=debate_id, forced=forced).events():
            if (
                isinstance(event, ListenerDecision)
                and (event.utterance_id, event.listener) == (node.utterance_id, node.listener)
                and event.policy != "forced"
            ):
                heard.append(event.unit_index)
                if event.unit_index >= max(node.units):
                    break
            if isinstance(event, DebateEnded):
                break
    finally:
        routed.release(debate_id)
    found = dict(zip(heard, listening.prompts, strict=False))
    if len(heard) != len(listening.prompts) or any(u not in found for u in node.units):
        raise ExperimentError(
            f"{node.item.key}: the replay of the root did not reach chunk {max(node.units) + 1} of statement "
            f"{node.utterance_id} (a backend whose sampling does not replay: the prompts cannot be captured)"
        )
    return {u: found[u] for u in node.units}


def capture_prompts(
    sampler: Sampler, nodes: Sequence[Node]
) -> Mapping[tuple[str, int], dict[int, tuple[Message, ...]]]:
    """Every node's prompts, ``(question key, utterance id) -> {chunk: messages}``, captured concurrently."""
    found: dict[tuple[str, int], dict[int, tuple[Message, ...]]] = {}
    lock = threading.Lock()

    def one(node: Node, backend: Backend) -> str:
        prompts = capture(sampler, node, backend)
        with lock:
            found[(node.item.key, node.utterance_id)] = prompts
        return "finished"

    run_pool(
        list(nodes),
        one,
        sampler.backend,
        concurrency=sampler.concurrency,
        stop=threading.Event(),
        on_stop=lambda: None,
        done=lambda _: None,
    )
    return found
