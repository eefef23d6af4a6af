"""SID's early-exit gate: is the first agent confident enough to end the debate before it starts?

What it does: ``check(stats, rule, ...)`` compares a completion's aggregated
token statistics (``TokenStats``: NLL and entropy, max / average / first /
penultimate) with one of three rules and returns a ``Verdict`` (the score,
the threshold, whether it passed, and the rule in words) for a
``SignalsMeasured`` event:

* ``alpha`` (the paper): score = max(NLL max, entropy max), passed iff
  score <= alpha * ln|V| (|V| the model's vocabulary; alpha 0.5 for
  general-purpose models: SmolLM2's 49,152 tokens give 5.40);
* ``fixed`` (the authors' code, ``SID-v``): passed iff NLL max < 2.5 and
  entropy max < 3.0, the same constants for every model; the score is
  max(NLL max / 2.5, entropy max / 3.0) against 1.0, so one number says how
  far from passing it was;
* ``calibrated`` (``SID-c``): a small classifier's probability that the
  answer is right, passed iff >= tau (0.9). It reads one of two feature
  sets (``FEATURE_SETS``): ``u``, the paper's confidence vector U (§4.1:
  NLL and entropy, each aggregated as average, max, first and penultimate,
  eight numbers), or ``code``, the authors' code's four (NLL max, entropy
  max, NLL average, entropy average). The classifier is a ``GateModel``: the
  weights of a small multilayer perceptron (``protocols.sid.study.train_gate``
  trains it with scikit-learn and saves them as JSON with the names of the
  features it reads), evaluated here in plain Python, so nothing is
  unpickled and scikit-learn is not needed to debate.

What it does not do: measure signals (backends do) or end the debate (``loop``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_core.errors import ConfigError
from debate_core.events.records import TokenStats

FIXED_NLL_MAX, FIXED_ENT_MAX = 2.5, 3.0
# the paper's U (§4.1: "four for entropy and four for NLL", each average, max, first, penultimate)
U_FEATURES = (
    "nll_avg", "nll_max", "nll_first", "nll_penultimate", "ent_avg", "ent_max", "ent_first", "ent_penultimate",
)  # fmt: skip
CODE_FEATURES = ("nll_max", "ent_max", "nll_avg", "ent_avg")  # the authors' code's SID-c (its ``vector_4d``)
FEATURE_SETS = {"u": U_FEATURES, "code": CODE_FEATURES}
DEFAULT_FEATURES = U_FEATURES  # what train-gate reads unless told otherwise


@dataclass(frozen=True, slots=True)
class Verdict:
    score: float
    threshold: float
    passed: bool
    rule: str


def features(stats: TokenStats, names: Sequence[str] = DEFAULT_FEATURES) -> tuple[float, ...]:
    """What the calibrated gate reads, in the order of ``names`` (a ``FEATURE_SETS`` value; the paper's U)."""
    return tuple(float(getattr(stats, name)) for name in names)


def feature_set(names: Sequence[str]) -> str:
    """The name (``u``, ``code``) of the feature set ``names``; ValueError for any other list."""
    for name, known in FEATURE_SETS.items():
        if tuple(names) == known:
            return name
    raise ValueError(f"features {list(names)} are neither the paper's U {list(U_FEATURES)} nor the code's "
                     f"{list(CODE_FEATURES)}")  # fmt: skip


@dataclass(frozen=True)
class GateModel:
    """A small trained classifier: input scaling, then layers (weights, biases), ReLU between, a logistic out."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    layers: tuple[tuple[tuple[tuple[float, ...], ...], tuple[float, ...]], ...]
    source: str = ""
    features: tuple[str, ...] = DEFAULT_FEATURES  # the names of what it reads, in order

    @property
    def feature_set(self) -> str:
        """``u`` (the paper's U) or ``code`` (the authors' four)."""
        return feature_set(self.features)

    def verdict_of(self, stats: TokenStats) -> float:
        """P(right) of the answer whose statistics are ``stats``."""
        return self.probability(features(stats, self.features))

    def probability(self, x: Sequence[float]) -> float:
        values = [(v - m) / s if s else v - m for v, m, s in zip(x, self.mean, self.scale, strict=True)]
        for index, (weights, biases) in enumerate(self.layers):
            values = [sum(v * w[j] for v, w in zip(values, weights, strict=True)) + b for j, b in enumerate(biases)]
            if index < len(self.layers) - 1:
                values = [max(0.0, v) for v in values]
        z = values[0]
        return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))

    def to_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "feature_set": self.feature_set,
            "mean": list(self.mean),
            "scale": list(self.scale),
            "layers": [{"weights": [list(row) for row in w], "biases": list(b)} for w, b in self.layers],
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "") -> GateModel:
        """The model in ``data`` (what ``to_json`` wrote); raises ``ConfigError`` on anything else."""
        try:
            names = tuple(str(name) for name in data["features"])
            feature_set(names)
            mean = tuple(float(v) for v in data["mean"])
            scale = tuple(float(v) for v in data["scale"])
            layers = tuple(
                (
                    tuple(tuple(float(v) for v in row) for row in layer["weights"]),
                    tuple(float(v) for v in layer["biases"]),
                )
                for layer in data["layers"]
            )
            widths = len(names)
            for weights, biases in layers:
                if len(weights) != widths or any(len(row) != len(biases) for row in weights):
                    raise ValueError("layer shapes do not chain")
                widths = len(biases)
            if widths != 1 or len(mean) != len(names) or len(scale) != len(names) or not layers:
                raise ValueError(f"the model must map its {len(names)} features to 1 output")
        except (KeyError, TypeError, ValueError) as error:
            raise ConfigError(f"the gate classifier {source or ''} is not a trained gate: {error}") from None
        return cls(mean, scale, layers, source, names)

    @classmethod
    def load(cls, path: str) -> GateModel:
        file = Path(path).expanduser()
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ConfigError(f"cannot read the gate classifier {file}: {error}") from None
        return cls.from_json(data, str(file))


def check(
    stats: TokenStats,
    rule: str,
    *,
    alpha: float = 0.5,
    vocab_size: int | None = None,
    model: GateModel | None = None,
    tau: float = 0.9,
) -> Verdict:
    """The gate's verdict on ``stats`` under ``rule`` (see the module docstring)."""
    if rule == "alpha":
        if not vocab_size or vocab_size < 2:
            raise ValueError("the alpha rule needs the model's vocabulary size")
        threshold = alpha * math.log(vocab_size)
        score = max(stats.nll_max, stats.ent_max)
        return Verdict(score, threshold, score <= threshold, f"max(nll_max, ent_max) <= {alpha:g} ln|V|")
    if rule == "fixed":
        score = max(stats.nll_max / FIXED_NLL_MAX, stats.ent_max / FIXED_ENT_MAX)
        passed = stats.nll_max < FIXED_NLL_MAX and stats.ent_max < FIXED_ENT_MAX
        return Verdict(score, 1.0, passed, f"nll_max < {FIXED_NLL_MAX:g} and ent_max < {FIXED_ENT_MAX:g}")
    if rule == "calibrated":
        if model is None:
            raise ValueError("the calibrated rule needs a trained gate classifier")
        score = model.verdict_of(stats)
        return Verdict(score, tau, score >= tau, f"classifier P(right) >= {tau:g} ({model.feature_set} features)")
    raise ValueError(f"unknown gate rule {rule!r}")
