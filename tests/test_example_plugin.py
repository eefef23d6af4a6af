"""The example outside plugin (``examples/round_robin``): a sixth protocol that edits nothing outside its folder.

Each check runs the project's own command lines in a fresh process with the plugin loaded the two ways a
user loads one: installed (its one entry point, from a wheel-less ``pip install --target``) or during
development (``DEBATE_PLUGINS`` with its folder on ``PYTHONPATH``). It is listed, runs in the terminal,
is recorded and replayed from the store, and runs in a comparison study on its own data set with its
own report section. ``tests/conformance/test_newcomer.py`` runs the conformance suite on it, and the
browser test ``tests/browser/test_outside_plugin.py`` takes a person's seat in it in the web app.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from debate_core.plugins import ENV_VAR
from tests.conftest import HANG_GUARD_S

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "round_robin"


def plugin_env(**extra: str) -> dict[str, str]:
    """The environment of a development run: the example's folder on the path, its plugin named."""
    path = os.pathsep.join([str(EXAMPLE), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, ENV_VAR: "round_robin.plugin", "HF_HUB_OFFLINE": "1", **extra}


def run(args: list[str], env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=HANG_GUARD_S
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_installed_by_its_one_entry_point_it_is_listed_with_where_it_came_from(tmp_path):
    declared = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    assert declared["project"]["entry-points"]["interruptible_debate"] == {"round_robin": "round_robin.plugin"}
    target, source = tmp_path / "site", tmp_path / "source"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*pip, "--target", str(target), str(source)], check=True, capture_output=True, timeout=HANG_GUARD_S)
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR}
    env["PYTHONPATH"] = os.pathsep.join([str(target), str(ROOT)])
    listed = run(["-m", "debate_core", "protocols"], env, cwd=tmp_path).stdout
    block = listed[listed.index("round-robin:") :]
    assert "from: entry point debate-round-robin 0.1.0" in block.splitlines()[1]
    assert "variants: standard, short" in block and "rounds" in block


def test_it_runs_in_the_terminal_is_recorded_and_replays_from_the_store(tmp_path):
    db = str(tmp_path / "debates.sqlite3")
    env = plugin_env()
    shown = run(["-m", "debate_core", "run", "--protocol", "round-robin", "--backend", "scripted", "--db", db], env)
    assert "from: DEBATE_PLUGINS" in run(["-m", "debate_core", "protocols"], env).stdout
    live = shown.stdout
    assert live.count("── statements") == 2 and "Final answer: B" in live
    assert "round robin tally: round=2" in live  # its own event, in the terminal's generic rendering
    recorded = live.rsplit("Recorded as debate ", 1)[1].split()[0]
    listed = run(["-m", "storage", "--db", db, "list"], env).stdout
    assert recorded[:12] in listed and "round-robin/standard" in listed and "finished" in listed
    assert "102" in listed and "/500" not in listed  # its public tokens, and no budget it does not use
    replayed = run(["-m", "storage", "--db", db, "show", recorded], env).stdout
    for line in ("Alex: I hold B.", "round robin tally: round=1", "Final answer: B"):
        assert line in replayed
    transcript = tmp_path / "transcript.json"
    run(["-m", "storage", "--db", db, "export", recorded, "--out", str(transcript)], env)
    again = str(tmp_path / "again.sqlite3")
    run(["-m", "storage", "--db", again, "import", str(transcript)], env)  # its own event passes the import checks
    assert "round robin tally: round=2" in run(["-m", "storage", "--db", again, "show", recorded], env).stdout


def test_it_runs_in_a_comparison_study_with_its_data_set_and_report_section(tmp_path):
    db = str(tmp_path / "study.sqlite3")
    systems = "round-robin/standard,round-robin/short"
    study = ["-m", "experiments", "compare", "--experiment", "rr", "--db", db, "--systems", systems]
    study += ["--mmlu", "0", "--strategyqa", "0", "--data", "riddles=3", "--backend", "scripted", "--no-progress"]
    run(study, plugin_env())
    report = run(["-m", "experiments", "report", "rr", "--db", db, "--out", str(tmp_path / "r")], plugin_env())
    text = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    assert "## Round-robin debates" in text, report.stdout[-2000:]
    section = text.split("## Round-robin debates", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| round-robin/")]
    assert [row.split("|")[1].strip() for row in rows] == ["round-robin/short", "round-robin/standard"]
    cells = {row.split("|")[1].strip(): [cell.strip() for cell in row.split("|")[2:6]] for row in rows}
    # three riddles each, from its own data set; the demo's doubter comes round in the second round only
    assert cells == {
        "round-robin/short": ["3", "100.0%", "0%", "0.00"],
        "round-robin/standard": ["3", "100.0%", "0%", "1.00"],
    }
