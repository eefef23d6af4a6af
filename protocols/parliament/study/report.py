"""Parliament's part of a comparison report: its chain-of-thought baseline as the control, and how its tokens compare.

What it does: ``REPORT_SECTION`` names ``parliament/cot`` as the control: a
comparison that ran it gets a table of the questions each other system lost
or won against it (``compare_report.drift``). Where a study ran any of
Parliament's systems, the section adds one note on tokens: the paper's code
read a streamed speech's usage with a second, non-streamed call, so its
British totals count that opening twice.

What it does not do: add tables of its own (the generic report covers
Parliament's variants).
"""

from __future__ import annotations

from collections.abc import Sequence

from experiments.extensions import ReportSection, Section
from storage import Store
from storage.experiments import RunRecord

CONTROL = "parliament/cot"
TOKENS_NOTE = (
    "Parliament's tokens: the paper's code made a second, non-streamed call per streamed speech to read its "
    "usage, which doubles the British opening's count there; expect lower British totals here for that reason."
)


def report_section(store: Store, runs: Sequence[RunRecord], systems: Sequence[str]) -> Section:
    """The tokens note, where the study ran a Parliament system (nothing otherwise)."""
    if not any(system.split("/")[0] == "parliament" for system in systems):
        return Section()
    return Section(lines=("", TOKENS_NOTE, ""))


REPORT_SECTION = ReportSection("parliament", report_section, control=CONTROL)
