"""Text Pictionary in the study harness: the ``pictionary`` data set, and the filter that drops easy entities.

    python -m experiments compare --experiment tp-1 --mmlu 0 --strategyqa 0 --data pictionary=100 \\
        --systems pictionary/generic,pictionary/concise,pictionary/random,pictionary/prompted
    python -m experiments pictionary-filter --out data/pictionary-hard.json --model meta-llama/Llama-3.1-8B-Instruct
    python -m experiments compare ... --data pictionary=100 --data-file pictionary=data/pictionary-hard.json

What it does: ``DATASET`` (registered by the plugin's ``register_datasets``)
gives a study ``n`` entities as questions (``Item``\\ s keyed
``pictionary:<entity>``, the entity the question's answer, its category the
subject): drawn with the study's seed from the committed pool
(``entities.json``, unfiltered), or from a file in the same format (what
the filter writes). ``COMMAND`` is ``pictionary-filter``, the paper's
filter ("filter out some easy ones that can be successfully guessed within
one round by Llama 3 8B", App. A): it plays each entity of the pool (or of
``--data-file``) for one round on the given model (``generic``, no
interruption, at ``--temperature``) and writes the entities not guessed in
that round, with a header saying which model filtered them and how many it
dropped.

What it does not do: run a comparison (``compare`` does, with the
``pictionary/...`` systems) or check guesses itself (the protocol does).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from rich.console import Console

from debate_core.config import AgentSpec, DebateConfig, Question
from debate_core.debate import Debate
from debate_core.events import DebateEnded
from experiments.compare import Item
from experiments.compare_cli import add_backend_options, model_label, study_backend
from experiments.extensions import Command, DataRequest, Dataset
from protocols.handraiser.pictionary.entities import Entity, pool

QUESTION_TEXT = "Text Pictionary: guess the secret entity"


def read_entities(path: str | None) -> tuple[Entity, ...]:
    """The entities of a file in the pool's format (``{"entities": [{"entity", "category", "aliases"}]}``), or
    the committed pool."""
    if path is None:
        return pool()
    rows = json.loads(Path(path).read_text(encoding="utf-8"))["entities"]
    return tuple(Entity(row["entity"], row.get("category", ""), tuple(row.get("aliases", ()))) for row in rows)


def item(entity: Entity) -> Item:
    key = "pictionary:" + "-".join(entity.name.casefold().split())
    return Item("pictionary", key, entity.category, Question(text=QUESTION_TEXT, answer=entity.name))


def items(request: DataRequest) -> list[Item]:
    """``request.n`` entities, a seeded sample (all of them, in order, when ``n`` is their number or more)."""
    entities = list(read_entities(request.path))
    if request.n < len(entities):
        entities = random.Random(f"{request.seed}/pictionary").sample(entities, request.n)
    return [item(entity) for entity in entities]


DATASET = Dataset("pictionary", items, "Text Pictionary entities (the committed pool, unfiltered, or a file)")


def add_parser(commands: Any) -> None:
    run = commands.add_parser(
        "pictionary-filter", help="Text Pictionary: drop the entities a model guesses in round one (the paper's filter)"
    )
    run.add_argument("--out", required=True, metavar="FILE", help="the filtered entities, in the pool's format")
    run.add_argument("--data-file", metavar="FILE", help="entities to filter (default: the committed pool)")
    run.add_argument("--limit", type=int, default=0, help="filter only the first N entities (0: all)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--temperature", type=float, default=0.7)
    run.add_argument("--max-new-tokens", type=int, default=256)
    add_backend_options(run)


def one_round(entity: Entity, seed: int, temperature: float, max_new_tokens: int) -> DebateConfig:
    """The configuration of a one-round game of ``entity`` (no interruption)."""
    agents = (AgentSpec(name="Describer", role="describer"), AgentSpec(name="Guesser", role="guesser"))
    return DebateConfig(
        question=item(entity).question,
        agents=agents,
        protocol="pictionary",
        variant="generic",
        params={"max_rounds": 1, "aliases": list(entity.aliases)},
        seed=seed,
        temperature=temperature,
        max_new_tokens=max_new_tokens,
    )


def cmd_filter(args: argparse.Namespace, console: Console) -> int:
    entities = read_entities(args.data_file)
    if args.limit:
        entities = entities[: args.limit]
    configs = [one_round(e, args.seed, args.temperature, args.max_new_tokens) for e in entities]
    if not configs:
        console.print("[red]no entities to filter")
        return 2
    backend, per_debate = study_backend(args, configs[0])
    kept: list[Entity] = []
    dropped: list[Entity] = []
    for entity, config in zip(entities, configs, strict=True):
        events = Debate(config, per_debate(config) if per_debate else backend).run()
        end = events[-1]
        easy = isinstance(end, DebateEnded) and end.correct is True
        (dropped if easy else kept).append(entity)
        console.print(f"{entity.name}: {'guessed in round one, dropped' if easy else 'kept'}")
    model = model_label(args) or "the embedded model"
    header = {
        "name": "pictionary-entities-filtered",
        "source": args.data_file or "the committed pool (protocols/handraiser/pictionary/entities.json)",
        "licence": "MIT, the project's licence (pyproject.toml)",
        "filtered": f"yes: by {model}, dropped {len(dropped)} of {len(entities)} guessed in round one "
        f"(seed {args.seed}, temperature {args.temperature})",
        "dropped": [entity.name for entity in dropped],
        "entities": [{"entity": e.name, "category": e.category, "aliases": list(e.aliases)} for e in kept],
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(header, indent=1) + "\n", encoding="utf-8")
    console.print(f"kept {len(kept)} of {len(entities)} entities; written to {out}")
    return 0


COMMAND = Command("pictionary-filter", add_parser, cmd_filter)
