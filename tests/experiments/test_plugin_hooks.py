"""A plugin brings its study: sub-commands, report sections, data sets; and experiments/ names no protocol.

The plugin ``tests.experiments.study_plugin`` comes in through ``DEBATE_PLUGINS``, as a newcomer's would.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from debate_core.plugins import problems
from debate_core.protocols import registry
from experiments import compare_cli, extensions
from experiments.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.experiments.study_plugin"


# Files of experiments/ that still name a protocol: this list only shrinks.
@pytest.fixture
def plugged(monkeypatch):
    monkeypatch.setenv("DEBATE_PLUGINS", PLUGIN)
    registry.reload()
    yield
    monkeypatch.delenv("DEBATE_PLUGINS")
    registry.reload()


def test_the_built_in_protocols_bring_their_commands_and_sections():
    assert {c.name for c in extensions.commands()} >= {"tree-sample", "train-listener", "train-gate"}
    sections = {s.name: s for s in extensions.report_sections()}
    assert {"handraiser", "ace", "sid"} <= set(sections)
    assert [s.control for s in sections.values() if s.control] == ["parliament/cot"]
    assert [d.name for d in extensions.datasets()][:6] == ["mmlu", "strategyqa", "bbh", "gsm8k", "gpqa", "hotpotqa"]


def test_a_plugin_command_runs_and_a_taken_name_is_left_out(plugged, capsys):
    assert main(["hello", "--name", "plugin"]) == 3
    assert "hello plugin" in capsys.readouterr().out
    choices = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "hello" in choices
    assert any("'compare' in register_commands, which is taken" in p for p in problems())
    assert any("'mmlu' in register_datasets, which is taken" in p for p in problems())


def test_a_preset_command_is_compare_under_its_name_with_its_defaults_and_prints_its_table(plugged, tmp_path, capsys):
    db = str(tmp_path / "p.sqlite3")
    parser = build_parser()._subparsers._group_actions[0].choices["tiny-table"]  # type: ignore[union-attr]
    args = parser.parse_args(["--db", db])
    assert (args.experiment, args.systems, args.data, args.mmlu) == ("tiny-table", "parliament/cot", ["tiny=2"], 0)
    assert {"--backend", "--repeats", "--param", "--twice"} <= set(parser._option_string_actions)  # compare's, its own
    assert main(["tiny-table", "--db", db, "--backend", "scripted", "--no-progress", "--twice"]) == 0
    assert "tally: 4 runs of parliament/cot and parliament/british" in capsys.readouterr().out  # prepare, then show
    assert main(["report", "tiny-table", "--db", db, "--out", str(tmp_path / "report")]) == 0  # its id: the name
    assert "- parliament/british: 2 runs" in (tmp_path / "report" / "report.md").read_text(encoding="utf-8")


def test_compare_finds_a_plugin_data_set_by_name_and_reports_its_section(plugged, tmp_path):
    db, out = str(tmp_path / "s.sqlite3"), tmp_path / "report"
    common = ["--experiment", "tiny", "--db", db, "--backend", "scripted", "--no-progress", "--systems"]
    run = ["compare", *common, "parliament/cot,parliament/british", "--mmlu", "0", "--strategyqa", "0"]
    assert main([*run, "--data", "tiny=2"]) == 0
    assert main(["report", "tiny", "--db", db, "--out", str(out)]) == 0
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "2 tiny questions" in text
    assert "## Tally\n\n- parliament/cot: 2 runs\n- parliament/british: 2 runs" in text
    assert "## Against the CoT control (`parliament/cot`)" in text  # Parliament's plugin declares the control
    assert "tiny," in (out / "debates.csv").read_text(encoding="utf-8")


def test_the_old_data_options_are_aliases_of_data_name(plugged):
    parser = argparse.ArgumentParser()
    compare_cli.add_parser(parser.add_subparsers())
    old = compare_cli.spec_from(parser.parse_args(["compare", "--experiment", "e", "--mmlu", "3", "--gsm8k", "2"]))
    new = parser.parse_args(["compare", "--experiment", "e", "--data", "mmlu=3", "--data", "gsm8k=2"])
    assert compare_cli.spec_from(new) == old
    with pytest.raises(ValueError, match="no data set 'nope'"):
        compare_cli.spec_from(parser.parse_args(["compare", "--experiment", "e", "--data", "nope=1"]))
    tiny = compare_cli.spec_from(parser.parse_args(["compare", "--experiment", "e", "--data", "tiny=1"]))
    assert (tiny.count("tiny"), tiny.count("mmlu"), tiny.datasets) == (1, 5, {"tiny": 1})
