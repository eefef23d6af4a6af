"""SID's last ledger rows (#29): a tied last round, the first answers' significance test and the correction
flow, the sweeps of rounds, alpha and rho, and a ledger with no row still to build."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console

from console.terminal import TerminalRenderer
from debate_core.backends.scripted import ScriptedReply, scripted_tokens
from debate_core.errors import ImpossibleEvent
from debate_core.events import DebateEnded
from debate_core.protocols import protocol_class
from debate_core.protocols.consistency import check_stream
from debate_core.testing.ledger import protocol_docs, read_ledger
from experiments.cli import main
from protocols.sid.demo import SidDemo
from protocols.sid.protocol import SidProtocol
from protocols.sid.study.significance import mann_whitney, stars
from protocols.sid.study.sweep import SWEPT, grid_systems
from protocols.sid.tests.test_sid import AGENTS, Recording, config, run
from ui.render import result_html
from ui.render_rounds import rounds_html
from ui.view_model import DebateView

TWO = AGENTS[:2]


def _keeps(letters: dict[str, str]):
    """Each agent answers its letter and keeps it when it revises (hesitant replies: no early exit)."""

    def reply(request):
        text = f"I checked each option against the question. The answer is ({letters[request.agent]})."
        n = len(scripted_tokens(text))
        return ScriptedReply(text, token_nll=(7.0,) * n, token_entropy=(0.4,) * n)  # hesitant: the debate goes on

    return reply


def _tied_events(variant: str = "mad", *, seed: int | None = None, **params) -> list:
    """Two agents, Alex answering (C) and Chris (A), each keeping its answer: the last round is tied."""
    extra = {"seed": seed} if seed is not None else {}
    cfg = config(variant, agents=TWO, **params).model_copy(update=extra)
    keep = _keeps({"Alex": "C", "Chris": "A"})
    return run(cfg, Recording(cfg, answer=keep, revise=keep, revise_kept=keep))


def _said(events: list) -> str:
    """How the app (rounds table and result panel) and the terminal tell the end."""
    view = DebateView.from_events(events)
    terminal = TerminalRenderer(Console(record=True, width=300))
    for event in events:
        terminal.show(event)
    return " ".join((rounds_html(view), result_html(view), terminal.console.export_text()))


def _tied(variant: str = "mad", *, seed: int | None = None, **params) -> DebateEnded:
    events = _tied_events(variant, seed=seed, **params)
    check_stream(events)  # the kernel's and SID's rules accept the ending
    end = events[-1]
    assert isinstance(end, DebateEnded)
    return end


def test_a_tied_last_round_goes_to_the_first_seats_answer_as_the_authors_code_does():
    # the authors' code: Counter(answers).most_common(1)[0][0], the first-seen among the tied (agent order)
    for variant in ("mad", "sid"):
        end = _tied(variant)
        assert end.rule == "majority" and end.final_answer == "C"  # Alex's, first in seat order, not the letter first
        assert set(end.tie) == {"A", "C"} and end.decided_by == "Alex"  # the tie recorded, and whose answer won it
    said = _said(_tied_events())
    assert "to Alex's answer, given first" in said and "given first)" in said and "seeded" not in said


def test_ties_draw_draws_among_the_tied_with_the_seeded_generator_and_records_the_draw():
    ends = [_tied(ties="draw", seed=seed) for seed in range(12)]
    assert all(set(e.tie) == {"A", "C"} and e.decided_by is None for e in ends)  # a draw names no agent
    assert {e.final_answer for e in ends} == {"A", "C"}  # each tied answer drawn under some seed
    again = [_tied(ties="draw", seed=seed).final_answer for seed in range(12)]
    assert again == [e.final_answer for e in ends]  # the same seed draws the same answer: a replay shows it
    said = _said(_tied_events(ties="draw", seed=0))
    assert "broken by the seeded random choice" in said and "broken by the seeded RNG" in said and "drawn)" in said
    assert "given first" not in said


def test_a_tie_said_to_go_to_another_agent_than_the_first_is_an_impossible_stream():
    events = _tied_events()
    forged = events[-1].model_copy(update={"decided_by": "Chris"})
    with pytest.raises(ImpossibleEvent, match="no tie that went to the first tied answer"):
        check_stream([*events[:-1], forged])


def test_sids_ledger_has_no_row_not_yet_built():
    page = protocol_docs(protocol_class("sid"))
    rows = read_ledger(page.read_text(encoding="utf-8"))
    assert not [row.where("sid") for row in rows if row.kind == "not yet"]
    assert Path(page).name == "docs.md"


# -- right against wrong first answers, and the correction flow (Fig. 2(c), (d), Fig. 7) ------------------------
FIXTURES = Path(__file__).resolve().parents[3] / "tests" / "fixtures"
MMLU_PRO = FIXTURES / "mmlu_pro_rows.json"
TEXTS = [row["question"] for row in json.loads(MMLU_PRO.read_text(encoding="utf-8"))]


@dataclass
class Mixed(SidDemo):
    """The demo, but the first agent answers the first two questions wrong, less sure of them (a higher NLL peak)."""

    def _answer(self, request):
        question = self.config.question
        if request.agent != self.config.agent_names[0] or question.text not in TEXTS:
            return super()._answer(request)
        i = TEXTS.index(question.text)
        wrong = i < 2
        mine = next(label for label in question.labels if label != question.answer) if wrong else question.answer
        text = f"I look at what the question states and check each option against it. The answer is ({mine})."
        n = len(scripted_tokens(text))
        peak = (9.0 if wrong else 7.0) + 0.1 * i  # both above the gate's 5.55: the debate goes on
        return ScriptedReply(
            text, token_nll=tuple(peak if k == n // 2 else 0.2 for k in range(n)), token_entropy=(0.4,) * n
        )


def _report(tmp_path: Path, command: list[str], experiment: str) -> tuple[str, Path]:
    db = str(tmp_path / "sid.sqlite3")
    common = ["--db", db, "--backend", "scripted", "--no-progress"]
    assert main([*command, "--experiment", experiment, *common, "--data-file", f"mmlu_pro={MMLU_PRO}"]) == 0
    out = tmp_path / "report"
    assert main(["report", experiment, "--db", db, "--out", str(out)]) == 0
    return (out / "report.md").read_text(encoding="utf-8"), out


def _section(report: str, title: str) -> str:
    return report.split(title, 1)[1].split("\n## ", 1)[0]


def test_the_report_tests_right_against_wrong_first_answers_and_counts_the_correction_flow(tmp_path, monkeypatch):
    monkeypatch.setattr(SidProtocol, "demo_responder", classmethod(lambda cls, config: Mixed(config).reply))
    study = ["compare", "--mmlu", "0", "--strategyqa", "0", "--data", "mmlu_pro=4", "--repeats", "2"]
    report, _ = _report(tmp_path, [*study, "--systems", "sid/mad,sid/exit"], "flow")
    tested = _section(report, "## SID: right against wrong first answers, a two-sided Mann–Whitney U test")
    rows = {line.split("|")[1].strip(): line.split("|")[2:-1] for line in tested.splitlines() if line.startswith("| ")}
    gate_row = rows["gate statistic, max(NLL max, entropy max)"]
    # 4 right first answers (NLL peaks 7.2, 7.3, twice each) against 4 wrong ones (9.0, 9.1): U = 0
    assert [c.strip() for c in gate_row[:3]] == ["4, 7.250", "4, 9.050", "0"]
    assert gate_row[3].strip() == "0.0265 (normal approx.)" and gate_row[4].strip() == "*"  # ties: the normal approx.
    assert [c.strip() for c in rows["entropy average"][2:5]] == ["8", "1 (normal approx.)", ""]  # all alike: p = 1
    flow = _section(report, "## SID: the correction flow, each agent's first answer against its last")
    head = next(line for line in flow.splitlines() if line.startswith("| system"))
    assert head == "| system | answers | wrong → right | right → wrong | stayed right | stayed wrong |"
    # right questions: Chris's wrong answer comes round; wrong ones: Jenny's right answer is outvoted
    assert "| sid/mad | 24 | 4 | 4 | 8 | 8 |" in flow and "| sid/exit | 24 | 4 | 4 | 8 | 8 |" in flow


def test_with_too_few_wrong_first_answers_the_report_says_so_instead_of_a_p_value(tmp_path):
    study = ["compare", "--mmlu", "0", "--strategyqa", "0", "--data", "mmlu_pro=4"]
    report, _ = _report(tmp_path, [*study, "--systems", "sid/mad,sid/sid"], "few")
    tested = _section(report, "## SID: right against wrong first answers, a two-sided Mann–Whitney U test")
    assert "Too few first answers to test: 4 right and 0 wrong (at least 3 of each are needed)" in tested
    assert "| U |" not in tested
    flow = _section(report, "## SID: the correction flow, each agent's first answer against its last")
    assert "| sid/mad | 12 | 4 | 0 | 8 | 0 |" in flow  # the demo's Chris comes round every time in MAD


def test_the_mann_whitney_test_is_exact_without_ties_and_normal_with_them():
    exact = mann_whitney([0.5, 1.2, 1.9, 2.2, 3.1], [2.8, 3.3, 4.0, 4.4, 5.2, 6.1])
    assert (exact.u, exact.exact) == (1.0, True)
    assert exact.p == pytest.approx(2 * 2 / 462)  # U <= 1 in 2 of the 462 orders, both sides
    assert mann_whitney([1, 2, 3], [4, 5, 6]).p == pytest.approx(0.1)  # the most extreme of 20 orders, both sides
    tied = mann_whitney([1.0, 2.5, 2.5, 4, 7], [3, 5, 6, 8, 9, 9.5])
    assert (tied.u, tied.exact) == (4.0, False) and tied.p == pytest.approx(0.0546812047)
    assert mann_whitney([2, 2], [2, 2, 2]).p == 1.0 and stars(0.0009) == "***" and stars(0.2) == ""


# -- the sweeps of rounds, alpha and rho (Fig. 2(b), (e), (f)) --------------------------------------------------
def test_sid_sweep_runs_each_grid_as_systems_and_the_report_draws_a_panel_per_parameter(tmp_path, capsys):
    grids = ["--rounds-grid", "2,3", "--alpha-grid", "0.5,1.0", "--rho-grid", "0.2,0.4"]
    report, out = _report(tmp_path, ["sid-sweep", "--questions", "2", *grids], "sweep")
    printed = capsys.readouterr().out
    table = _section(report, "## SID: the sweeps of rounds, alpha and rho")
    cells = [[c.strip() for c in line.split("|")[1:-1]] for line in table.splitlines() if line.startswith("| ")]
    rows = {tuple(c[:3]): c[3:5] for c in cells if c[0] in SWEPT}
    assert set(rows) == {
        ("rounds", "2", "sid/sid"), ("rounds", "3", "sid/sid:rounds=3"),
        ("alpha", "0.5", "sid/sid"), ("alpha", "1", "sid/sid:alpha=1"),
        ("rho", "0.2", "sid/sid:rho=0.2"), ("rho", "0.4", "sid/sid"),
    }  # fmt: skip
    assert float(rows[("alpha", "1", "sid/sid:alpha=1")][1]) < 0.2  # alpha 1: 11.1 > the demo's NLL 7, it exits
    assert rows[("alpha", "0.5", "sid/sid")][0] == "100.0% (2)"
    assert "| sid/sid:rounds=3 | 100.0% (2) |" in table and table.count("| sid/mad:rounds=3 |") == 1  # its MAD
    assert "## SID: the sweeps of rounds, alpha and rho" in printed  # the command prints its table
    html = (out / "sid_sweeps.html").read_text(encoding="utf-8")
    assert all(title in html for title in ("debate rounds (Fig. 2(b))", "alpha", "rho (top fraction kept) (Fig. 2(e))"))


def test_the_sweeps_grids_are_checked_when_the_command_is_parsed():
    assert grid_systems({"rounds": (2, 4), "alpha": (0.5,), "rho": (0.35,)}) == [
        "sid/mad", "sid/sid", "sid/mad:rounds=4", "sid/sid:rounds=4", "sid/sid:rho=0.35",
    ]  # fmt: skip
    with pytest.raises(SystemExit):
        main(["sid-sweep", "--rho-grid", "0.4,1.5", "--backend", "scripted"])  # rho is a fraction
    with pytest.raises(SystemExit):
        main(["sid-sweep", "--rounds-grid", "2.5", "--backend", "scripted"])
