"""SID's study commands: the paper's Table 1 and Table 3, each ``compare`` with the paper's settings as presets.

    python -m experiments sid-table1 [--questions 100] [--classifier GATE.json] [--repeats R] [any compare option]
    python -m experiments sid-table3 [--questions 100] [--repeats R] [any compare option ...]
    python -m experiments report ID        # the same tables in the report's SID section

What it does: each command is ``compare`` under another name (its parser,
every option of it, and ``compare_cli.cmd_compare`` to run, resume and
check the study: ``experiments.presets``),
with the paper's settings as defaults, then prints its table from the store
(``tables``; each cell the mean ± SE over ``--repeats`` runs):

* ``sid-table1``: CoT, IO, Step-Back, Self-Consistency, Self-Contrast (the
  baselines family's), MAD, DMAD and SID-v (``sid/sid``) on MATH's seven
  subsets (``--data math=7N``: ``--questions`` N per subset, spread evenly)
  and MMLU-Pro (``--data mmlu_pro=N``), the paper's 100 questions each;
  ``--classifier GATE.json`` adds SID-c (``sid/sid_c:classifier=GATE.json``,
  a gate of ``train-gate``);
* ``sid-table3``: the ablations on MMLU-Pro (``--data mmlu_pro=N``):
  single-round CoT (``sid/cot``), MAD, MAD + compression, SID, SID without
  semantic preservation (``sid/no_expand``) and SID without early exit with
  a token-level summary (``sid/summary``).

A ``--data`` of the user's replaces the preset's data sets (``--data-file
NAME=FILE`` serves one from a file, offline); MMLU and StrategyQA default to
0. The experiment id defaults to the command's name; any other option is
``compare``'s.

What it does not do: run or score debates itself (``compare``) or draw the
tables (``tables``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

from experiments.presets import Preset, Show, command
from protocols.sid.study import report, tables
from storage import Store
from storage.experiments import RunRecord

PAPER_QUESTIONS = 100  # §5.1: "we randomly sample 100 questions from each dataset"
TABLE_ONE_SYSTEMS = ",".join(system for system, _ in tables.TABLE_ONE if system != "sid/sid_c")
TABLE_THREE_SYSTEMS = ",".join(system for system, _ in tables.TABLE_THREE)


def _table_one(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[str]:
    return tables.table_one(tables.results(store, runs), systems)


def _table_three(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[str]:
    debates = report.sid_debates(store, runs, systems)
    return tables.table_three(tables.results(store, runs), debates, systems)


def _questions(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--questions",
        type=int,
        default=PAPER_QUESTIONS,
        metavar="N",
        help=f"questions per data set (MATH: per subset; default {PAPER_QUESTIONS}, the paper's); --data replaces",
    )


def _table_one_options(parser: argparse.ArgumentParser) -> None:
    _questions(parser)
    parser.add_argument("--classifier", metavar="GATE", help="a train-gate file: adds SID-c (sid/sid_c)")


def _preset(
    name: str, what: str, systems: str, show: Show, options: Callable[[argparse.ArgumentParser], None]
) -> Preset:
    """``compare`` as ``name``, with ``systems`` and no MMLU or StrategyQA by default."""
    defaults = {
        "systems": (systems, f"the systems (default: {systems})"),
        "mmlu": (0, "MMLU questions (default 0)"),
        "strategyqa": (0, "StrategyQA questions (default 0)"),
    }
    return Preset(
        name,
        f"{what} (compare with the paper's settings)",
        defaults,
        show,
        options=options,
        prepare=lambda args: prepared(name, args),
    )


TABLE_ONE = _preset(
    "sid-table1",
    "SID's Table 1: the baselines, MAD, DMAD and SID on MATH's 7 subsets and MMLU-Pro",
    TABLE_ONE_SYSTEMS,
    _table_one,
    _table_one_options,
)
TABLE_THREE = _preset(
    "sid-table3",
    "SID's Table 3: the ablations on MMLU-Pro, accuracy and token ratio against MAD",
    TABLE_THREE_SYSTEMS,
    _table_three,
    _questions,
)


def preset_data(name: str, n: int) -> list[str]:
    """The preset's ``--data``: MATH (n per subset) and MMLU-Pro for Table 1, MMLU-Pro for Table 3."""
    math = [f"math={n * len(tables.MATH_COLUMNS)}"] if name == TABLE_ONE.name else []
    return [*math, f"mmlu_pro={n}"]


def prepared(name: str, args: argparse.Namespace) -> argparse.Namespace:
    """``args`` of the command ``name`` with its data sets (unless ``--data`` named some) and SID-c where a gate
    is given."""
    if not args.data:
        args.data = preset_data(name, args.questions)
    gate = getattr(args, "classifier", None)
    if gate:
        args.systems = f"{args.systems},sid/sid_c:classifier={gate}"
    return args


COMMANDS = tuple(command(p) for p in (TABLE_ONE, TABLE_THREE))
