"""How a comparison's debates ended: every end reason counted per system, the debates cut short listed.

What it does: ``endings(store, runs)`` reads each cell's debate row (its
status and ``DebateEnded`` reason, error included) into an ``Ending``: the
system, the question key and repeat, the data set, the debate id, the reason
(``budget``, ``rounds``, ``silence``, ``max_turns``, ``observer_stop``,
``early_exit``, ``stopped``, ``error``, ...; ``incomplete`` for a debate
whose recording stopped before it ended). ``section(found, systems)`` writes
the report's table (per system, how many debates ended for each reason) and
lists the debates **cut short**: ended by one of the engine's stall guards
(``silence``: too many silent turns in a row, ``max_turns``: the turn cap;
``DebateConfig.max_silent_turns`` and ``max_turns``), stopped, failed or left
incomplete, with their question keys and repeats, so a study whose protocol
should end on its budget or rounds shows what else ended its debates.

What it does not do: decide whether a protocol's own early end (an observer's
stop, an early exit, a consensus) is a fault: those are counted, not listed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from debate_core.events.records import EndReason
from experiments.repeats import split_run_key
from storage import Store
from storage.experiments import RunRecord

INCOMPLETE = "incomplete"
STALL_GUARDS = (EndReason.SILENCE.value, EndReason.MAX_TURNS.value)
CUT_SHORT = (*STALL_GUARDS, EndReason.STOPPED.value, EndReason.ERROR.value, INCOMPLETE)
ORDER = [*(reason.value for reason in EndReason), INCOMPLETE]
LISTED = 40  # debates cut short listed in the report; the rest counted


@dataclass(frozen=True)
class Ending:
    system: str
    question_key: str
    repeat: int
    dataset: str
    debate_id: str
    reason: str
    error: str | None = None

    @property
    def cut_short(self) -> bool:
        return self.reason in CUT_SHORT


def endings(store: Store, runs: Sequence[RunRecord]) -> list[Ending]:
    """Every recorded cell's ending (a cell whose debate row is gone is skipped)."""
    found = []
    for run in runs:
        try:
            summary = store.debate(run.debate_id)
        except KeyError:
            continue
        if summary.status == "running":
            continue
        key, repeat = split_run_key(run.question_key)
        reason = summary.end_reason or INCOMPLETE
        found.append(Ending(run.condition, key, repeat, run.setting, run.debate_id, reason, summary.error))
    return found


def _why(ending: Ending) -> str:
    if ending.reason == EndReason.SILENCE.value:
        return "silence (the engine's guard: silent turns in a row)"
    if ending.reason == EndReason.MAX_TURNS.value:
        return "max_turns (the engine's guard: the turn cap)"
    if ending.error:
        shown = " ".join(ending.error.split())[:80].replace("|", "\\|")
        return f"{ending.reason}: {shown}"
    return ending.reason


def section(found: Sequence[Ending], systems: Sequence[str]) -> list[str]:
    """The report's section (nothing without a recorded debate)."""
    if not found:
        return []
    counts = {system: Counter(e.reason for e in found if e.system == system) for system in systems}
    reasons = sorted({e.reason for e in found}, key=lambda r: ORDER.index(r) if r in ORDER else len(ORDER))
    lines = [
        "",
        "## How the debates ended",
        "",
        "Each debate's end reason, per system (failed and stopped debates too; a rerun retries them). "
        "`silence` and `max_turns` are the engine's stall guards (silent turns in a row, the turn cap); with "
        "`stopped`, `error` and `incomplete` they cut a debate short and are listed below.",
        "",
        "| system | debates | " + " | ".join(f"`{r}`" for r in reasons) + " |",
        "|---|---|" + "---|" * len(reasons),
    ]
    for system in systems:
        if counts[system]:
            cells = " | ".join(str(counts[system].get(r, 0)) for r in reasons)
            lines.append(f"| {system} | {sum(counts[system].values())} | {cells} |")
    short = sorted((e for e in found if e.cut_short), key=lambda e: (e.system, e.repeat, e.question_key))
    if not short:
        return [*lines, "", "No debate was cut short."]
    lines += [
        "",
        f"Cut short ({len(short)}):",
        "",
        "| system | question | run | reason | debate id |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {e.system} | {e.question_key} | {e.repeat} | {_why(e)} | {e.debate_id} |" for e in short[:LISTED]]
    if len(short) > LISTED:
        lines += ["", f"... and {len(short) - LISTED} more."]
    return lines
