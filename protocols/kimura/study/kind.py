"""Kimura et al.'s paper study as a study kind: what the Analysis tab and ``python -m experiments report`` show.

What it does: ``KIND`` (a ``StudyKind``, registered by Kimura's plugin through
``register_study_kinds``) handles an experiment ``python -m experiments run``
made (a ``StudySpec``: no ``kind`` field); its view is the report's text (what
was run, Tables V-X, Figure 9's bins, counts and costs, definitions), the
report's plotly figures (Figures 1-9 and final accuracy) on the chosen token
grid, and one row per finished debate (its setting and condition by their
names in the paper); its report is ``report.write_report``.

What it does not do: compute or draw anything itself (``analysis``,
``figures`` and ``report`` do).
"""

from __future__ import annotations

from pathlib import Path

from experiments.extensions import ReportOptions, StudyKind, StudyView, WrittenReport
from protocols.kimura.study.analysis import load_study, trajectories
from protocols.kimura.study.figures import CONDITION_NAMES, SETTING_NAMES, study_figures
from protocols.kimura.study.report import markdown, write_report
from storage import Store
from storage.experiments import ExperimentRecord


def is_paper_study(record: ExperimentRecord) -> bool:
    return record.spec.get("kind") is None


def view(store: Store, record: ExperimentRecord, step: int) -> StudyView:
    data = load_study(store, record.id)
    paths = trajectories(data, step)
    figures = study_figures(data, step, paths)
    rows = [
        [
            d.run.debate_id,
            d.started.config.question.text[:100],
            d.run.subject,
            SETTING_NAMES[d.setting],
            CONDITION_NAMES[d.condition],
            d.ended.final_answer or "-",
            "yes" if d.ended.correct else "no",
        ]
        for d in data.debates
    ]
    return StudyView(markdown(data, [], set(), [], step, paths), [f.figure for f in figures], rows)


def write(store: Store, record: ExperimentRecord, folder: Path, options: ReportOptions) -> WrittenReport:
    written = write_report(store, record.id, folder, png=options.png, plotlyjs=options.plotlyjs, step=options.step)
    return WrittenReport(f"wrote {folder / 'report.md'} and {len(written.figures)} figures", tuple(written.warnings))


KIND = StudyKind("paper-study", is_paper_study, view, write)
