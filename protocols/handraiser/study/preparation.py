"""HandRaiser's step before a comparison's debates: the positions pool, as each question's sides and briefs.

What it does: ``PREPARATION`` (registered by the plugin's
``register_study_preparations`` hook) adds ``--no-positions`` to ``python -m
experiments compare`` and, when a comparison runs a HandRaiser system on a
model (not the scripted backend) without that option, makes or reads the
positions pool (``positions.position_pool``) and hands ``compare`` one
``QuestionSetup`` per question: Pro's and Con's answers as the debate's
parameters and their explanations as their briefs (``question_setup``, which
the tree sampler uses too). Without a pool the sides are drawn by seed.
``--positions-model SPEC`` has another model write the pool (the paper's
405B; ``positions.positions_backend``), whose id keys the pool.

What it does not do: make the positions (``positions``) or run debates (``compare``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from experiments.extensions import PreparationRequest, QuestionSetup, StudyPreparation
from protocols.handraiser.positions import Positions, sides_for
from protocols.handraiser.study.positions import add_positions_model_option, position_pool, positions_backend

PROTOCOL = "handraiser"
ANNOUNCE = "positions: the most confusing wrong answer and both explanations, per question (stored)"


def question_setup(positions: Positions, seed: int, question_key: str) -> QuestionSetup:
    """A question's debates argue its stored positions: the sides' answers (drawn once per question and
    seed) as parameters, and Pro's and Con's explanations as their briefs."""
    sides, briefs = sides_for(positions, seed, question_key)
    return QuestionSetup(params=sides, briefs=dict(zip(("pro", "con"), briefs, strict=True)))


def add_options(parser: Any) -> None:
    parser.add_argument(
        "--no-positions",
        action="store_true",
        help="handraiser: assign the sides by seed instead of the model-written positions pool",
    )
    add_positions_model_option(parser)


def prepare(request: PreparationRequest) -> Mapping[str, QuestionSetup] | None:
    """The positions pool's setups per question key; ``None`` on the scripted backend or with ``--no-positions``."""
    if request.args.backend == "scripted" or getattr(request.args, "no_positions", False):
        return None
    from experiments.compare_cli import seat_backends

    seed = request.spec.seed
    system = next(s for s in request.spec.systems if s.startswith(PROTOCOL + "/"))
    config = request.spec.config(request.items[0], system)
    writer = positions_backend(request.args, seat_backends(request.args, request.backend), request.backend, config)
    request.console.print(f"{ANNOUNCE}, written by {writer.model_id}")
    pool = position_pool(request.store, writer, request.items, seed=seed)
    return {key: question_setup(positions, seed, key) for key, positions in pool.items()}


PREPARATION = StudyPreparation(PROTOCOL, prepare, add_options)
