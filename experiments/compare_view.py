"""A comparison study (``python -m experiments compare``) as a study kind: what the Analysis tab and ``report`` show.

What it does: ``register_study_kinds`` hands the harness's own ``StudyKind``
for a comparison (an experiment whose specification says ``kind:
compare``), registered before every plugin's: its view is the text of its
``report.md`` (``compare_report.full_markdown``: accuracy and cost per
system, drift against the control, free-form answers, the paired comparison
of every two systems, in a study of several runs mean ± standard error over
runs and paired t-tests, how the debates ended, each protocol's own sections)
with one row per debate (the data set as subject, the run as setting in a
study of several runs, the system as condition); its report is
``compare_report.write_report`` (``report.md``, ``debates.csv``, figures).

What it does not do: compute or write anything itself (``compare_report`` does).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from experiments import compare_report
from experiments.extensions import ReportOptions, StudyKind, StudyView, WrittenReport
from storage import Store
from storage.experiments import ExperimentRecord


def is_comparison(record: ExperimentRecord) -> bool:
    return record.spec.get("kind") == compare_report.KIND


def view(store: Store, record: ExperimentRecord, step: int) -> StudyView:
    """Its tables (as ``report.md`` has them) and its debates; the figures are in the report folder."""
    spec, found = compare_report.outcomes(store, record.id)
    rows = []
    for outcome in found:
        debate = store.debate(outcome.debate_id)
        rows.append(
            [
                outcome.debate_id, debate.question[:100], outcome.dataset,
                f"run {outcome.repeat}" if spec.repeats > 1 else "-", outcome.system,
                debate.final_answer or "-", "yes" if outcome.correct else "no",
            ]
        )  # fmt: skip
    return StudyView(compare_report.full_markdown(store, record.id, spec, record.model_id, found)[0], (), rows)


def write(store: Store, record: ExperimentRecord, folder: Path, options: ReportOptions) -> WrittenReport:
    written_to = compare_report.write_report(store, record.id, folder)
    return WrittenReport(f"wrote {written_to} and {folder / 'debates.csv'}")


COMPARISON = StudyKind("compare", is_comparison, view, write)


def register_study_kinds(register: Callable[[StudyKind], object]) -> None:
    register(COMPARISON)
