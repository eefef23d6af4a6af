"""ACE's study commands: the paper's Table 1, Table 2 and Fig. 4 rounds sweep, each ``compare`` with presets.

    python -m experiments ace-table1 [--bbh N] [--repeats R] [--experiment ID] [any compare option ...]
    python -m experiments ace-table2 [--bbh N] [--repeats R] [--experiment ID] [...]
    python -m experiments ace-rounds-sweep [--rounds 1,2,3,4,5] [--systems ace/parallel,...] [...]
    python -m experiments report ID        # the tables (and the sweep's figure) in the report's ACE section

What it does: each command is ``compare`` under another name (its parser,
every option of it, and ``compare_cli.cmd_compare`` to run the study, resume
it and check a rerun's parameters: ``experiments.presets``), with the paper's
settings as defaults (``PRESETS``), then prints its table from the store (``report``'s ACE section
writes the same tables, and the sweep's figure, into ``python -m experiments
report ID``):

* ``ace-table1``: PAR (``ace/parallel``), RPD, RTC, TAR (the baselines
  family's) and ACE on BBH's 23 tasks (``--bbh-tasks all``, ``--bbh 250``:
  a BBH-sized sample per task), every baseline over the paper's 4 rounds
  (``--param baselines.rounds=4 baselines.max_rounds=4
  baselines.discussion_rounds=3``: RPD's rounds, TAR's rounds at most, RTC's
  first answers and 3 discussion rounds; ACE's ``parallel`` runs 4 already),
  no MMLU or StrategyQA;
* ``ace-table2``: the three ablations and full ACE on tracking shuffled
  objects with 3, 5 and 7 objects, date understanding, penguins in a table
  and geometric shapes;
* ``ace-rounds-sweep``: each method of ``--systems`` (default: Fig. 4's PAR,
  RPD, RTC and TAR; ``ace/ace`` may be added) at each number of ``--rounds``, as systems of one comparison
  (``sweep.swept``: ``ace/parallel:rounds=3``, ``baselines/rtc:discussion_rounds=2``,
  ``ace/ace:max_rounds=3``, a cap: ACE has no number of rounds), on Fig. 4's
  tasks: causal judgement, formal fallacies, sports understanding, ruin names
  and movie recommendation.

The experiment id defaults to the command's name. An option given on the
command line wins over the preset, and a ``--param`` given is laid over the
preset ones. The repeats (``--repeats R``, the tables' ± columns) are the
user's choice: the paper does not say how many runs it took.

What it does not do: run or score debates itself (``compare``), draw the
tables (``tables``, ``sweep``) or write the report's files (``report``).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from experiments import bbh
from experiments.presets import Preset, command
from protocols.ace.study import report, sweep, tables
from storage import Store
from storage.experiments import RunRecord


def _table_one(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[str]:
    debates, others = report.study_results(store, runs, systems)
    return tables.table_one([*debates, *others], systems)


def _table_two(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[str]:
    debates, _ = report.study_results(store, runs, systems)
    return tables.table_two(debates, [s for s in systems if any(d.system == s for d in debates)])


def _sweep(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> list[str]:
    debates, others = report.study_results(store, runs, systems)
    found = sweep.points([*debates, *others], systems)
    return sweep.section(found, report.ace_rounds(debates)) if found else []


def _data(tasks: str, what: str) -> dict[str, tuple[Any, str]]:
    return {
        "bbh": (bbh.BBH_SIZE, f"questions per BBH task (default {bbh.BBH_SIZE}: a BBH-sized sample, the paper's)"),
        "bbh_tasks": (tasks, f"BBH tasks, comma-separated, or all (default: {what})"),
        "mmlu": (0, "MMLU questions (default 0: the paper's tables are BBH's)"),
        "strategyqa": (0, "StrategyQA questions (default 0)"),
    }


def _rounds_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rounds",
        default=",".join(map(str, sweep.DEFAULT_ROUNDS)),
        metavar="N,N,...",
        help="the numbers of rounds, comma-separated (default: 1,2,3,4,5)",
    )


def _swept(args: argparse.Namespace) -> argparse.Namespace:
    """The sweep's ``--systems``: every method at every ``--rounds``."""
    args.systems = sweep_systems(args.systems, args.rounds)
    return args


TABLE_ONE_SYSTEMS = ",".join(system for system, _ in tables.TABLE_ONE)
TABLE_TWO_SYSTEMS = "ace/no_analyze,ace/no_compose,ace/no_execute,ace/ace"
TABLE_TWO_TASKS = (
    *bbh.TASK_GROUPS["tracking_shuffled_objects"],
    "date_understanding",
    "penguins_in_a_table",
    "geometric_shapes",
)
PRESETS = (
    Preset(
        "ace-table1",
        "ACE's Table 1: PAR, RPD, RTC, TAR and ACE on BBH's 23 tasks (compare with the paper's settings)",
        {
            "systems": (TABLE_ONE_SYSTEMS, f"the systems, comma-separated (default: {TABLE_ONE_SYSTEMS})"),
            **_data("all", "all, BBH's 23 tasks"),
        },
        _table_one,
        params=("baselines.rounds=4", "baselines.max_rounds=4", "baselines.discussion_rounds=3"),
    ),
    Preset(
        "ace-table2",
        "ACE's Table 2: the ablations and full ACE on TSO (3, 5, 7 objects), DU, PIA, GS (compare with presets)",
        {
            "systems": (TABLE_TWO_SYSTEMS, f"the systems, comma-separated (default: {TABLE_TWO_SYSTEMS})"),
            **_data(",".join(TABLE_TWO_TASKS), "Table 2's TSO with 3, 5 and 7 objects, DU, PIA, GS"),
        },
        _table_two,
    ),
    Preset(
        "ace-rounds-sweep",
        "ACE's Fig. 4: accuracy against the number of rounds, each method at each of --rounds (compare)",
        {
            "systems": (
                ",".join(sweep.DEFAULT_SYSTEMS),
                f"the methods to sweep, comma-separated, each at every --rounds (default: "
                f"{','.join(sweep.DEFAULT_SYSTEMS)}; known: {', '.join(sweep.ROUND_PARAMETER)})",
            ),
            **_data(",".join(sweep.DEFAULT_TASKS), "Fig. 4's CJ, FF, SU, RN, MR"),
        },
        _sweep,
        options=_rounds_option,
        prepare=_swept,
    ),
)


def sweep_systems(methods: str, rounds: str) -> str:
    """``--systems`` of a sweep: every method at every number of rounds, as ``compare``'s systems."""
    try:
        ns = [int(n) for n in rounds.split(",") if n.strip()]
    except ValueError:
        raise ValueError(f"--rounds {rounds!r}: whole numbers, comma-separated (e.g. 1,2,3,4,5)") from None
    if not ns:
        raise ValueError("--rounds: name at least one number of rounds")
    names = [m.strip() for m in methods.split(",") if m.strip()]
    return ",".join(sweep.swept(method, n) for method in names for n in sorted(set(ns)))


COMMANDS = tuple(command(p) for p in PRESETS)
