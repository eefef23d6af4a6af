"""A SID study on the scripted backend: the variants on the same questions, and the report's SID sections."""

from __future__ import annotations

from pathlib import Path

from experiments.cli import main
from protocols.sid.study.report import sid_debates, token_ratio
from storage import Store

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"
SYSTEMS = "sid/mad,sid/compress,sid/exit,sid/sid,sid/no_expand"


def test_the_variants_run_on_the_same_questions_and_the_report_has_table_three(tmp_path):
    db = str(tmp_path / "sid.sqlite3")
    common = ["--db", db, "--backend", "scripted", "--no-progress", "--mmlu", "0"]
    data = ["--strategyqa", "3", "--strategyqa-data", str(FIXTURES / "strategyqa_sample.json")]
    assert main(["compare", "--experiment", "sid", *common, *data, "--systems", SYSTEMS]) == 0
    assert main(["report", "sid", "--db", db, "--out", str(tmp_path / "report")]) == 0
    store = Store(db)
    try:
        debates = sid_debates(store, store.experiments.runs("sid"), SYSTEMS.split(","))
    finally:
        store.close()
    assert len(debates) == 15
    assert token_ratio(debates, "sid/mad") == 1.0
    exits = [d for d in debates if d.system == "sid/exit"]
    assert all(d.gate_score is not None and not d.early_exit for d in exits)  # the demo's first agent hesitates
    assert all(d.kept is not None and 0 < d.kept <= 1 for d in debates if d.system == "sid/no_expand")
    assert all(d.kept is None for d in debates if d.system in ("sid/mad", "sid/exit"))
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    table = report.split("## SID: accuracy and cost in the shape of the paper's Table 3")[1].split("##")[0]
    assert "| sid/mad | 100.0% (n=3, 95% CI" in table and "| 1.00 |" in table
    assert "| sid/exit |" in table and "| 0/3 |" in table
    assert "## SID: the gate statistic of first answers" in report
    assert (tmp_path / "report" / "sid_gate_statistic.html").is_file()
