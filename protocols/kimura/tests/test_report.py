"""The report: one command turns a stored study into tables, figures (HTML + PNG) and CSVs."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.images import export_png
from protocols.kimura.study.report import pct, write_report
from protocols.kimura.study.runner import StudyRunner
from protocols.kimura.tests.test_runner import backend_for, questions, spec
from storage import Store


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("report") / "s.sqlite3"
    store = Store(path)
    qs = questions(6)
    StudyRunner(spec(questions=3, token_budget=80), store, backend_for(qs), questions=qs).run()
    yield store
    store.close()


def test_a_proportion_is_printed_with_its_n_and_interval() -> None:
    from experiments.accuracy import Accuracy

    assert pct(Accuracy(2, 5)) == "40.0% (2/5; 95% CI 11.8-76.9)"
    assert pct(Accuracy(0, 0)) == "- (n=0)"


def test_the_report_has_every_table_and_figure_with_n_and_intervals(stored: Store, tmp_path: Path) -> None:
    written = write_report(stored, "toy", tmp_path / "out", png=False)
    text = (tmp_path / "out" / "report.md").read_text()

    for heading in (
        "Final accuracy (Tables V and VI)",
        "Intermediate-answer accuracy (Figures 1-8)",
        "Effects of interruptions (Tables VII and VIII)",
        "Effects of completed utterances (Tables IX and X)",
        "When interruptions help (Figure 9)",
        "Counts and costs",
        "Definitions",
    ):
        assert f"## {heading}" in text
    assert "**Model**: scripted-study" in text and "seed 0" in text
    assert "pool acceptance 3 of 3 questions examined (100%)" in text
    # every percentage in a table carries its count and interval
    cells = re.findall(r"\d+\.\d% \([^)]*\)", text)
    assert cells and all(re.fullmatch(r"\d+\.\d% \(\d+/\d+; 95% CI \d+\.\d-\d+\.\d\)", c) for c in cells)
    stems = sorted(p.stem for p in written.figures)
    assert len(stems) == 11
    assert {s.split("_")[0] for s in stems} == {f"fig{i}" for i in range(1, 10)} | {"fig9b", "final"}
    for figure in written.figures:
        assert figure.exists() and "plotly" in figure.read_text()[:5000].lower()
    assert (tmp_path / "out" / "figures" / "plotly.min.js").exists()  # offline by default

    with open(tmp_path / "out" / "debates.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3 * 2 * 3
    assert {r["condition"] for r in rows} == {"fixed", "dynamic", "interruptible"}


def test_png_figures_come_from_the_system_chromium(stored: Store, tmp_path: Path) -> None:
    written = write_report(stored, "toy", tmp_path / "out", png=True, plotlyjs="cdn")
    assert written.warnings == []
    pngs = sorted((tmp_path / "out" / "figures").glob("*.png"))
    assert len(pngs) == 11
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 10_000 for p in pngs)
    assert "![Figure 1." in (tmp_path / "out" / "report.md").read_text()


def test_without_a_browser_the_report_keeps_html_and_says_why(
    stored: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-such-browser"))
    assert export_png([]) is None
    written = write_report(stored, "toy", tmp_path / "out", png=True)
    assert len(written.warnings) == 1 and "PNG figures were not written" in written.warnings[0]
    assert not list((tmp_path / "out" / "figures").glob("*.png"))
    assert len(list((tmp_path / "out" / "figures").glob("*.html"))) == 11
    assert "PNG figures were not written" in (tmp_path / "out" / "report.md").read_text()


def test_the_command_line_runs_a_study_and_reports_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.sqlite3")
    data = tmp_path / "mmlu.jsonl"
    import json

    with open(data, "w") as handle:
        for i in range(6):
            row = {"question": f"Q{i}?", "correct_answer": "ABCD"[i % 4], "topic": "toy"}
            row.update({f"answer_{x}": f"option {x}" for x in "abcd"})
            handle.write(json.dumps(row) + "\n")
    common = ["--db", db, "--backend", "scripted", "--data", str(data), "--questions", "2", "--budget", "60"]
    assert main(["run", "--experiment", "cli", *common, "--no-progress", "--pool-only"]) == 0
    assert "2 usable of 2 questions examined" in capsys.readouterr().out.replace("\n", " ")
    assert main(["run", "--experiment", "cli", *common, "--no-progress", "--concurrency", "2"]) == 0
    assert "12 finished now" in capsys.readouterr().out.replace("\n", " ")
    assert main(["run", "--experiment", "cli", *common, "--no-progress"]) == 0
    assert "12 already finished" in capsys.readouterr().out.replace("\n", " ")
    assert main(["run", "--experiment", "cli", *common[:-1], "90", "--no-progress"]) == 2
    assert "token_budget: 60 -> 90" in capsys.readouterr().out.replace("\n", " ")
    assert main(["report", "cli", "--db", db, "--out", str(tmp_path / "rep"), "--no-png"]) == 0
    report = (tmp_path / "rep" / "report.md").read_text()
    assert "**Runs**: 1, 12 debates in" in report  # the rerun that had nothing left to do is not counted
    assert main(["report", "missing", "--db", db]) == 2
    assert main(["list", "--db", db]) == 0
    assert "cli" in capsys.readouterr().out
