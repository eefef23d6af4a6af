"""The HandRaiser positions pool: per question, the most confusing wrong answer and both sides' explanations.

What it does: ``position_pool(store, backend, items, ...)`` returns one
``Positions`` per multiple-choice question with a known answer: read from the
store's pool table under ``pool_key`` (so every run, policy and tree sample of
a study argues the same positions), or made with the model for the questions
not yet pooled and stored at once. Making them is two batched steps: the most
tempting wrong option for every question, then an explanation for each
question's correct and wrong answer (the protocol's ``positions`` forms, with
their fallbacks noted on the stored row). The debates' parameters and briefs come from ``Positions`` and
``sides_for`` in the protocol package.

The paper had a larger model write the positions (§4.1: Llama-3.1-405B)
than the ones that debate: ``--positions-model SPEC`` (``tree-sample`` and
``compare``; ``model_for``'s syntax, ``KIND:MODEL`` or a model of the
study's backend kind) names it, ``positions_backend`` builds it through the
study's ``SeatBackends`` (loaded once), and its model id keys the pool, so
positions written by different models never mix. Without it the model
under study writes them.

What it does not do: run debates (the study runners do).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from debate_core.backends.base import Backend
from debate_core.backends.model_for import SeatBackends, parse_spec
from debate_core.config import AgentSpec, DebateConfig
from debate_core.kernel.seats import ModelSeat
from experiments.compare import Item
from protocols.handraiser.positions import Positions, PositionView, confusing_form, explanation_form
from storage import Store
from storage.experiments import PoolAnswer


def add_positions_model_option(parser: Any) -> None:
    parser.add_argument(
        "--positions-model",
        metavar="SPEC",
        help="handraiser: the model that writes the positions pool (model_for's syntax: MODEL or KIND:MODEL; "
        "the paper's was Llama-3.1-405B; default: the model under study)",
    )


def positions_label(args: argparse.Namespace) -> str:
    """``KIND:MODEL`` of ``--positions-model`` as a study records it ("" without one)."""
    text = getattr(args, "positions_model", None)
    return parse_spec("positions", text).resolved(args.backend).label if text else ""


def positions_backend(args: argparse.Namespace, seats: SeatBackends, default: Backend, config: DebateConfig) -> Backend:
    """The backend that writes the positions: ``--positions-model``'s, else the study's own."""
    text = getattr(args, "positions_model", None)
    if not text:
        return default
    model = parse_spec("positions", text).resolved(args.backend)
    assert model.kind is not None
    return seats.backend(model.kind, model.model, model.base_url, config)


def pool_key(model_id: str, seed: int, temperature: float) -> str:
    return f"handraiser-positions/{model_id}/seed{seed}/t{temperature:g}"


def position_pool(
    store: Store,
    backend: Backend,
    items: Sequence[Item],
    *,
    seed: int,
    temperature: float = 0.0,
    max_new_tokens: int = 160,
) -> dict[str, Positions]:
    """Stored positions for ``items`` (made with the model where missing)."""
    usable = [i for i in items if i.question.answer is not None and len(i.question.labels) >= 2]
    key = pool_key(backend.model_id, seed, temperature)
    stored = store.experiments.pool(key, [i.key for i in usable])
    missing = [i for i in usable if len(stored.get(i.key, [])) != 3]
    if missing:
        for item, rows in zip(missing, _generate(backend, missing, seed, temperature, max_new_tokens), strict=True):
            store.experiments.add_pool(key, item.key, rows)
            stored[item.key] = rows
    return {i.key: _positions(i, stored[i.key]) for i in usable}


def _positions(item: Item, rows: Sequence[PoolAnswer]) -> Positions:
    confusing, correct, wrong = rows
    answer = item.question.answer
    assert answer is not None
    return Positions(answer, confusing.answer or "", correct.reason, wrong.reason)


def _ask(backend: Backend, jobs: list[tuple[Item, PositionView, Any, int]], cap: int, t: float) -> list[PoolAnswer]:
    asked = []
    for item, view, form, seed in jobs:
        config = DebateConfig(
            question=item.question,
            agents=(AgentSpec(name="Writer"), AgentSpec(name="Other")),
            temperature=t,
            max_new_tokens=cap,
        )
        seat = ModelSeat("Writer", config, seed=seed)
        asked.append((seat, view, form, seat.ask(form, view, turn=0)))
    completions = backend.generate([r for *_, requests in asked for r in requests])
    rows = []
    for (seat, view, form, _), completion in zip(asked, completions, strict=True):
        result = seat.receive(form, view, [completion])
        text = result.value
        rows.append(
            PoolAnswer(
                answer=text if form.kind == "confusing" else view.answer,
                reason="" if form.kind == "confusing" else text,
                valid=result.valid,
                error=result.error,
                raw=result.raw,
                completion_tokens=result.generation.completion_tokens,
            )
        )
    return rows


def _generate(backend: Backend, items: Sequence[Item], seed: int, t: float, cap: int) -> list[list[PoolAnswer]]:
    confusing = confusing_form()
    explain = explanation_form(cap)
    picks = _ask(
        backend,
        [(i, PositionView(i.question, i.question.answer or ""), confusing, seed + n) for n, i in enumerate(items)],
        cap,
        t,
    )
    jobs = []
    for n, (item, pick) in enumerate(zip(items, picks, strict=True)):
        jobs.append((item, PositionView(item.question, item.question.answer or ""), explain, seed + 7_919 * n + 1))
        jobs.append((item, PositionView(item.question, pick.answer or ""), explain, seed + 7_919 * n + 2))
    explained = _ask(backend, jobs, cap, t)
    return [[pick, explained[2 * n], explained[2 * n + 1]] for n, pick in enumerate(picks)]
