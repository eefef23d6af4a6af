"""Shards of a test run: ``--shard K/N`` keeps the K-th of N parts of the selected tests, whole files each.

``make test-fast`` runs its lane as N pytest processes side by side, each with ``--shard K/N``; they
end together only if the parts cost the same. Each part is a set of whole test files (module-scoped
fixtures are built once, tests that share a module run as they always do), chosen greedily: the
files, dearest first, each go to the part with the least cost so far. A file's cost is the sum of
its selected tests' costs, read from ``tests/durations.json`` (seconds per test of each file, in the
lane and out of it, as measured by a sequential run); a file or kind of test the table does not
know costs the table's typical test. Every process of a run sees the same selection and the same
table, so the parts are disjoint and together hold every selected test exactly once.

``python -m tests.shards [PYTEST ARGS]`` refreshes the table from one sequential pytest run (by
default the fast lane; ``-m "model or server or browser"`` or no ``-m`` at all measures the rest):
the files it ran get their new costs, the others keep theirs. A stale table only unbalances the
parts; it never loses or repeats a test. This module knows nothing of how tests are marked
(tests/lanes.py does that, before the selection and the shard); it runs no test itself except in that refresh.
"""

from __future__ import annotations

import functools
import json
import re
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.lanes import FAST_LANE

TESTS_ROOT = Path(__file__).resolve().parent
ROOT = TESTS_ROOT.parent
DURATIONS = TESTS_ROOT / "durations.json"

# Tests that load a model, start a server or drive a browser cost far more than the others; the table
# keeps their seconds apart ("slow"), so a file's cost follows what the run selected of it.
SLOW_LANES = ("model", "server", "browser")
FALLBACK_SLOW_S = 10.0  # a slow test when the table has measured none


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` (1 <= K <= N) as ``(K, N)``; anything else is a usage error."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise pytest.UsageError(f"--shard takes K/N with 1 <= K <= N, not {text!r}")
    return int(match.group(1)), int(match.group(2))


def kind_of(item: pytest.Item) -> str:
    """``"slow"`` for a test in a model, server or browser lane, else ``"fast"``."""
    return "slow" if any(item.get_closest_marker(lane) for lane in SLOW_LANES) else "fast"


def file_of(item: pytest.Item) -> str:
    """The test file of ``item``, relative to the project's root where it lies inside it."""
    path = Path(str(item.path)).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


@functools.cache
def load_costs(path: Path = DURATIONS) -> dict[str, dict[str, float]]:
    """The table: file -> {"fast"|"slow": seconds per test}; empty when there is none."""
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        str(name): {str(kind): float(seconds) for kind, seconds in costs.items()}
        for name, costs in table.get("seconds_per_test", {}).items()
    }


def typical(costs: dict[str, dict[str, float]], kind: str) -> float:
    """The median seconds per test of ``kind`` over the table's files (its fallback for unknown ones)."""
    known = [by_kind[kind] for by_kind in costs.values() if kind in by_kind]
    if known:
        return statistics.median(known)
    return FALLBACK_SLOW_S if kind == "slow" else 0.1


def assign(file_costs: dict[str, float], parts: int) -> dict[str, int]:
    """Each file's part (0-based): dearest file first, each to the cheapest part so far (ties: lowest)."""
    loads = [0.0] * parts
    owner: dict[str, int] = {}
    for name in sorted(file_costs, key=lambda name: (-file_costs[name], name)):
        part = min(range(parts), key=lambda index: (loads[index], index))
        owner[name] = part
        loads[part] += file_costs[name]
    return owner


def shard(
    items: list[pytest.Item], part: int, parts: int, costs: dict[str, dict[str, float]] | None = None
) -> list[pytest.Item]:
    """Keep in ``items`` (in their order) the tests of the ``part``-th of ``parts`` parts; return the others."""
    costs = load_costs() if costs is None else costs
    fallback = {kind: typical(costs, kind) for kind in ("fast", "slow")}
    file_costs: dict[str, float] = {}
    for item in items:
        name, kind = file_of(item), kind_of(item)
        file_costs[name] = file_costs.get(name, 0.0) + costs.get(name, {}).get(kind, fallback[kind])
    owner = assign(file_costs, parts)
    kept = [item for item in items if owner[file_of(item)] == part - 1]
    dropped = [item for item in items if owner[file_of(item)] != part - 1]
    items[:] = kept
    return dropped


class _Recorder:
    """A pytest plugin summing each test's setup, call and teardown seconds by file and kind."""

    def __init__(self) -> None:
        self.kinds: dict[str, tuple[str, str]] = {}
        self.seconds: dict[tuple[str, str], float] = {}
        self.counts: dict[tuple[str, str], int] = {}

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            key = (file_of(item), kind_of(item))
            self.kinds[item.nodeid] = key
            self.counts[key] = self.counts.get(key, 0) + 1

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        key = self.kinds.get(report.nodeid)
        if key is not None:
            self.seconds[key] = self.seconds.get(key, 0.0) + report.duration


def refresh(args: Sequence[str], path: Path = DURATIONS) -> int:
    """Run pytest with ``args`` in this process and merge its seconds per test into the table at ``path``."""
    recorder = _Recorder()
    status = int(pytest.main(["-p", "no:cacheprovider", *args], plugins=[recorder]))
    if not recorder.seconds:
        return status or 1  # nothing ran: the table stays as it was
    table = {name: dict(by_kind) for name, by_kind in load_costs(path).items()}
    for (name, kind), count in recorder.counts.items():
        if (name, kind) in recorder.seconds:
            table.setdefault(name, {})[kind] = round(recorder.seconds[name, kind] / count, 3)
    about = (
        "seconds per test of each test file, fast lane and slow (model/server/browser) tests apart; "
        "written by `python -m tests.shards`, read by --shard to balance the parts (tests/shards.py)"
    )
    rows = [f"  {json.dumps(name)}: {json.dumps(dict(sorted(table[name].items())))}" for name in sorted(table)]
    body = ",\n".join(rows)  # a file a line, so that a refresh reads as a short diff
    path.write_text(f'{{\n "about": {json.dumps(about)},\n "seconds_per_test": {{\n{body}\n }}\n}}\n', encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(refresh(sys.argv[1:] or ["-q", "-m", FAST_LANE]))
