"""Making the conditioned-initial-state pool with the model (Section IV-B).

What it does: ``generate_samples`` asks the model ``samples`` times per
question for a chain-of-thought initial answer (a reason, then an answer),
with the engine's own initial-answer prompt, JSON schema and parser, so the
stored (answer, reason) pairs are exactly what a debating agent would have
produced. Each sample has its own sampling seed; all samples of a group of
questions go to the backend as one batch. An output that cannot be parsed is
kept with ``answer=None`` and its error, and counts as neither correct nor
incorrect.

What it does not do: store the samples or decide which questions are usable
(the runner and ``pool`` do).
"""

from __future__ import annotations

from collections.abc import Sequence

from debate_core.backends.base import Backend
from debate_core.config import AgentSpec, DebateConfig
from debate_core.kernel.seats import ModelSeat
from experiments.mmlu import MmluQuestion
from protocols.kimura.forms import kimura_forms
from protocols.kimura.prompting import PromptBuilder
from protocols.kimura.state import initial_view
from protocols.kimura.study.pool import AGENTS, Sampled
from storage.experiments import PoolAnswer


def to_sampled(answers: Sequence[PoolAnswer]) -> list[Sampled]:
    return [Sampled(answer=a.answer if a.valid else None, reason=a.reason) for a in answers]


def generate_samples(
    backend: Backend,
    questions: Sequence[MmluQuestion],
    *,
    samples: int,
    temperature: float,
    max_new_tokens: int,
    seed: int,
) -> list[list[PoolAnswer]]:
    """``samples`` initial answers for each question, in one backend batch."""
    jobs = []
    form = kimura_forms(PromptBuilder()).initial
    for question in questions:
        config = DebateConfig(
            question=question.question(),
            agents=tuple(AgentSpec(name=name) for name in AGENTS),
            temperature=temperature,
            max_new_tokens=max_new_tokens,
        )
        view = initial_view(config, AGENTS[0])
        for sample in range(samples):
            seat = ModelSeat(AGENTS[0], config, seed=(seed * 1_000_003 + question.index * 101 + sample) % (2**31))
            jobs.append((seat, view, seat.ask(form, view, turn=0)))
    flat = [request for _, _, requests in jobs for request in requests]
    completions = backend.generate(flat) if flat else []
    results: list[PoolAnswer] = []
    position = 0
    for seat, view, requests in jobs:
        done = completions[position : position + len(requests)]
        position += len(requests)
        result = seat.receive(form, view, done)
        answer, reason = result.value
        results.append(
            PoolAnswer(
                answer=answer,
                reason=reason,
                valid=result.valid,
                error=result.error,
                raw=result.raw,
                completion_tokens=result.generation.completion_tokens,
            )
        )
    return [results[i * samples : (i + 1) * samples] for i in range(len(questions))]
