"""The round-robin debate's section of a comparison report: did the rounds change anyone's mind?

What it does: ``build(store, runs, systems)`` reads every finished debate of a
``round-robin/...`` system in the study and writes, per system, the debates,
the final accuracy, the share of debates whose first tally was already
unanimous, and the mean number of agents whose answer changed between the
first and the last tally (from its ``TallyTaken`` events).

What it does not do: run debates or write files (the host's ``compare`` and
report do); it builds nothing when no round-robin system ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from debate_core.events import Event
from round_robin.events import TallyTaken

if TYPE_CHECKING:
    from experiments.extensions import Section
    from storage import Store
    from storage.experiments import RunRecord

PREFIX = "round-robin/"


def _moved(first: TallyTaken, last: TallyTaken) -> int:
    """At least how many agents hold a different answer at the last tally than at the first."""
    before, after = dict(first.counts), dict(last.counts)
    return sum(max(0, after.get(answer, 0) - before.get(answer, 0)) for answer in set(before) | set(after))


def _row(system: str, debates: list[tuple[bool, list[TallyTaken]]]) -> str:
    n = len(debates)
    right = sum(correct for correct, _ in debates)
    tallied = [t for _, t in debates if t]
    unanimous = sum(len(t[0].counts) == 1 for t in tallied)
    moved = sum(_moved(t[0], t[-1]) for t in tallied)
    share = f"{100 * unanimous / len(tallied):.0f}%" if tallied else "-"
    mean = f"{moved / len(tallied):.2f}" if tallied else "-"
    return f"| {system} | {n} | {100 * right / n:.1f}% | {share} | {mean} |"


def build(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> Section:
    from experiments.extensions import Section
    from experiments.workers import finished_debates

    found: dict[str, list[tuple[bool, list[TallyTaken]]]] = {}
    wanted = {s for s in systems if s.startswith(PREFIX)}
    for run, events, end in finished_debates(store, runs, wanted.__contains__):
        found.setdefault(run.condition, []).append((bool(end.correct), _tallies(events)))
    if not found:
        return Section()
    lines = [
        "## Round-robin debates",
        "",
        "Per system: its finished debates, the final accuracy, the share whose first tally was already",
        "unanimous, and how many agents (at least) changed their answer between the first and last tally.",
        "",
        "| system | debates | accuracy | unanimous at first | agents moved |",
        "|---|---|---|---|---|",
        *(_row(system, found[system]) for system in sorted(found)),
        "",
    ]
    return Section(lines=lines)


def _tallies(events: Sequence[Event]) -> list[TallyTaken]:
    return [e for e in events if isinstance(e, TallyTaken)]
