"""``python -m experiments train-gate``: train SID's calibrated early-exit gate (SID-c) on stored debates.

    python -m experiments train-gate --experiment held-out --out gates/smol.json [--hidden 8] [--features u|code]

What it does: reads the finished debates of the named experiments (in the
store) that measured their first answer (SID's gated variants record a
``SignalsMeasured`` on every reply), and takes one example per debate: the
first agent's first answer, its features and whether that answer was
right. ``--features u`` (the default) reads the paper's confidence vector U
(§4.1: NLL and entropy, each aggregated as average, max, first and
penultimate); ``--features code`` the four the authors' code feeds its
classifier (NLL max, entropy max, NLL average, entropy average). The gate
file names its features; ``sid_c`` reads what its file names (with
``gate_features`` set, it refuses a file of the other set). It holds out a stratified ``--held-out``
share, trains a small multilayer perceptron (scikit-learn's
``MLPClassifier``, ReLU, ``--hidden`` units, inputs standardised) on the
rest, and writes its weights as JSON (``gate.GateModel``: evaluated in plain
Python by the protocol, so nothing is unpickled and scikit-learn is only
needed here) with a record of the data (experiments, examples, how many were
right), the held-out accuracy, and what the gate at ``--tau`` would have
done on the held-out answers (exit rate, and accuracy of the exits). Use
questions the evaluation will not ask (another seed or dataset): the paper
trains on 50 held-out questions.

What it does not do: run debates (run an ``exit`` study first: ``python -m
experiments compare --systems sid/exit ...``) or choose ``tau`` for you.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console

from debate_core.events import DebateStarted, SignalsMeasured, UtteranceGenerated
from debate_core.kernel.endings import is_correct
from experiments.extensions import Command
from experiments.workers import ExperimentError, finished_debates
from protocols.sid.gate import DEFAULT_FEATURES, FEATURE_SETS, GateModel, features
from storage import Store


def examples(
    store: Store, experiments: Sequence[str], names: Sequence[str] = DEFAULT_FEATURES
) -> list[tuple[tuple[float, ...], bool]]:
    """(features ``names``, right) of each finished debate's first measured answer, in the named experiments."""
    found = []
    for experiment in experiments:
        if store.experiments.get(experiment) is None:
            raise ExperimentError(f"no experiment {experiment!r} in this store")
        for _run, events, _end in finished_debates(store, store.experiments.runs(experiment), lambda system: True):
            measured = next((e for e in events if isinstance(e, SignalsMeasured)), None)
            start = events[0]
            if measured is None or not isinstance(start, DebateStarted):
                continue
            said = next((e for e in events if isinstance(e, UtteranceGenerated) and e.speaker == measured.agent), None)
            answer = (said.structured or {}).get("answer") if said is not None else None
            right = is_correct(answer if isinstance(answer, str) else None, start.config.question.answer)
            if right is not None:
                found.append((features(measured.stats, names), right))
    return found


def _split(data: list[tuple[tuple[float, ...], bool]], share: float, seed: int) -> tuple[list[Any], list[Any]]:
    rng = random.Random(seed)
    train, held = [], []
    for label in (True, False):
        group = [row for row in data if row[1] is label]
        rng.shuffle(group)
        cut = round(len(group) * share)
        held += group[:cut]
        train += group[cut:]
    return train, held


def train(
    data: list[tuple[tuple[float, ...], bool]],
    *,
    hidden: int,
    seed: int,
    held_out: float,
    tau: float,
    names: Sequence[str] = DEFAULT_FEATURES,
) -> tuple[GateModel, dict[str, Any]]:
    """The trained gate and its record (see the module docstring)."""
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler

    labels = {right for _, right in data}
    if len(data) < 4 or len(labels) < 2:
        raise ExperimentError(
            f"{len(data)} measured first answers ({sum(r for _, r in data)} right): the gate needs both right "
            "and wrong answers, at least 4 in all; run more questions"
        )
    train_rows, held_rows = _split(data, held_out, seed)
    x = [list(f) for f, _ in train_rows]
    y = [int(right) for _, right in train_rows]
    scaler = StandardScaler().fit(x)
    classifier = MLPClassifier(hidden_layer_sizes=(hidden,), max_iter=3_000, random_state=seed)
    classifier.fit(scaler.transform(x), y)
    layers = tuple(
        (tuple(tuple(float(v) for v in row) for row in weights), tuple(float(v) for v in biases))
        for weights, biases in zip(classifier.coefs_, classifier.intercepts_, strict=True)
    )
    scale = tuple(float(s) if s else 1.0 for s in scaler.scale_)
    model = GateModel(tuple(float(m) for m in scaler.mean_), scale, layers, features=tuple(names))

    def scored(rows: list[Any]) -> dict[str, Any]:
        if not rows:
            return {"n": 0}
        p = [model.probability(f) for f, _ in rows]
        exits = [right for (_, right), prob in zip(rows, p, strict=True) if prob >= tau]
        return {
            "n": len(rows),
            "accuracy": sum((prob >= 0.5) == right for (_, right), prob in zip(rows, p, strict=True)) / len(rows),
            "exit_rate": len(exits) / len(rows),
            "exits_right": (sum(exits) / len(exits)) if exits else None,
        }

    record = {
        "features": list(names),
        "feature_set": model.feature_set,
        "examples": len(data),
        "right": sum(r for _, r in data),
        "hidden": hidden,
        "seed": seed,
        "tau": tau,
        "train": scored(train_rows),
        "held_out": scored(held_rows),
    }
    return model, record


def add_parser(commands: Any) -> None:
    run = commands.add_parser("train-gate", help="train SID's calibrated early-exit gate (sid_c) on stored debates")
    run.add_argument("--experiment", action="append", required=True, metavar="ID", help="repeat for several")
    run.add_argument("--db", metavar="PATH_OR_URL", help="the store (default: the app's database)")
    run.add_argument("--out", required=True, metavar="JSON", help="the gate to write (sid_c's classifier=JSON)")
    run.add_argument("--hidden", type=int, default=8, help="hidden units (default 8)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--held-out", type=float, default=0.25, help="held-out share per label (default 0.25)")
    run.add_argument("--tau", type=float, default=0.9, help="the exit threshold to report on (default 0.9)")
    run.add_argument(
        "--features",
        choices=sorted(FEATURE_SETS),
        default="u",
        help="u: the paper's confidence vector U (8 numbers, the default); code: the authors' code's 4",
    )


def cmd_train_gate(args: argparse.Namespace, console: Console) -> int:
    store = Store(args.db)
    try:
        data = examples(store, args.experiment, FEATURE_SETS[args.features])
    finally:
        store.close()
    names = FEATURE_SETS[args.features]
    model, record = train(data, hidden=args.hidden, seed=args.seed, held_out=args.held_out, tau=args.tau, names=names)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**model.to_json(), "record": record}, indent=1), encoding="utf-8")
    held = record["held_out"]
    summary = f"held-out accuracy {held['accuracy']:.2f} (n={held['n']})" if held["n"] else "nothing held out"
    console.print(
        f"gate trained on {record['train']['n']} of {record['examples']} first answers ({record['right']} right); "
        f"{summary}; {args.features} features; wrote {out} (use --variant sid_c --param classifier={out}"
        + (f" --param gate_features={args.features})" if args.features != "u" else ")"),
        markup=False,
        highlight=False,
    )
    return 0


COMMAND = Command("train-gate", add_parser, cmd_train_gate)
