"""A SID study on the scripted backend: the variants on the same questions, and the report's SID sections; on
long scripted answers, the token ratio as the paper counts it, the probes' prefill in its own column."""

from __future__ import annotations

from pathlib import Path

from experiments.cli import main
from protocols.sid.demo import SidDemo
from protocols.sid.protocol import SidProtocol
from protocols.sid.study.report import probe_tokens, sid_debates, token_ratio
from storage import Store

FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"
SYSTEMS = "sid/mad,sid/compress,sid/exit,sid/sid,sid/no_expand"


def _study(tmp_path: Path) -> tuple[list, str]:
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
    return debates, (tmp_path / "report" / "report.md").read_text(encoding="utf-8")


def test_the_variants_run_on_the_same_questions_and_the_report_has_table_three(tmp_path):
    debates, report = _study(tmp_path)
    assert len(debates) == 15
    assert token_ratio(debates, "sid/mad") == 1.0
    exits = [d for d in debates if d.system == "sid/exit"]
    assert all(d.gate_score is not None and not d.early_exit for d in exits)  # the demo's first agent hesitates
    assert all(d.kept is not None and 0 < d.kept <= 1 for d in debates if d.system == "sid/no_expand")
    assert all(d.kept is None for d in debates if d.system in ("sid/mad", "sid/exit"))
    table = report.split("## SID: accuracy and cost in the shape of the paper's Table 3")[1].split("##")[0]
    assert "| sid/mad | 100.0% (n=3, 95% CI" in table and "| 1.00 | - | 1.00 |" in table  # MAD probes nothing
    assert "| sid/exit |" in table and "| 0/3 |" in table
    assert "## SID: the gate statistic of first answers" in report
    assert (tmp_path / "report" / "sid_gate_statistic.html").is_file()


def test_on_long_answers_compress_and_sid_cost_less_than_mad_and_the_probes_have_their_own_column(
    tmp_path, monkeypatch
):
    """Table 3's ratio counts the debate's tokens (the answers' and revisions' prompts and generations); the
    attention probes' prefill is reported beside it. The scripted answers restate their check 20 times."""
    monkeypatch.setattr(
        SidProtocol, "demo_responder", classmethod(lambda cls, config: SidDemo(config, restatements=20).reply)
    )
    debates, report = _study(tmp_path)
    ratios = {s: token_ratio(debates, s) for s in SYSTEMS.split(",")}
    with_probes = {s: token_ratio(debates, s, probes=True) for s in SYSTEMS.split(",")}
    kept = {s: [d.kept for d in debates if d.system == s] for s in ("sid/compress", "sid/sid", "sid/no_expand")}
    print(f"token ratio vs sid/mad: {ratios}; with the probes: {with_probes}; kept: {kept}")
    assert ratios["sid/mad"] == 1.0 and ratios["sid/exit"] == 1.0  # the demo's first agent hesitates: no exit
    for system in ("sid/compress", "sid/sid"):
        assert ratios[system] is not None and ratios[system] < 0.9  # 0.84 here (1.57 with the probes)
        assert with_probes[system] is not None and with_probes[system] > ratios[system]
        assert all(k is not None and k < 0.6 for k in kept[system])  # 0.51: the restatements' middles dropped
    assert ratios["sid/no_expand"] is not None and ratios["sid/no_expand"] < ratios["sid/sid"]
    assert all(probe_tokens(d) == 0 for d in debates if d.system in ("sid/mad", "sid/exit"))
    assert all(probe_tokens(d) > 0 for d in debates if d.system in ("sid/compress", "sid/sid", "sid/no_expand"))
    table = report.split("## SID: accuracy and cost in the shape of the paper's Table 3")[1].split("##")[0]
    assert "| token ratio vs sid/mad | side requests per debate | ratio with them |" in table
    row = next(line for line in table.splitlines() if line.startswith("| sid/compress |")).split("|")
    assert row[3].strip() == f"{ratios['sid/compress']:.2f}" and row[5].strip() == f"{with_probes['sid/compress']:.2f}"
    assert row[4].strip().replace(",", "").isdigit()  # the probes' mean prefill per debate
