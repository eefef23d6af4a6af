"""Parliament's part of a comparison report: its chain-of-thought baseline as the control system.

What it does: ``REPORT_SECTION`` names ``parliament/cot`` as the control: a
comparison that ran it gets a table of the questions each other system lost
or won against it (``compare_report.drift``).

What it does not do: add tables of its own (the generic report covers
Parliament's variants).
"""

from __future__ import annotations

from experiments.extensions import ReportSection

CONTROL = "parliament/cot"
REPORT_SECTION = ReportSection("parliament", control=CONTROL)
