"""The rules the code base lives by, checked mechanically."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "debate_core"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_imports_neither_ui_nor_storage():
    offenders = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imported_modules(path) if m.split(".")[0] in {"ui", "storage", "gradio", "sqlalchemy"}
        )
        for path in PACKAGE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_the_package_loads_no_heavy_library():
    code = (
        "import sys, debate_core, debate_core.cli, debate_core.engine;"
        "heavy = [m for m in ('spacy', 'torch', 'transformers') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_modules_stay_small_and_say_what_they_do():
    folders = [PACKAGE, ROOT / "storage", ROOT / "ui", ROOT / "experiments"]
    for path in (p for folder in folders for p in folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 450, f"{path.name} is past ~400 lines: split it"
        docstring = ast.get_docstring(ast.parse(text))
        assert docstring, f"{path.name} has no module docstring"


def test_the_experiment_harness_loads_no_model_library_until_it_runs_one():
    code = (
        "import sys, experiments.cli, experiments.report, experiments.runner, ui.analysis_panel;"
        "heavy = [m for m in ('spacy', 'torch', 'transformers', 'kaleido') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert result.stdout.strip() == ""


def test_storage_plugs_into_the_engine_cli_only_through_an_entry_point():
    from importlib.metadata import entry_points

    (sink,) = entry_points(group="interruptible_debate.sinks", name="db")
    assert sink.value == "storage.cli:record_sink"


def test_prompt_templates_ship_inside_the_package():
    names = {p.name for p in (PACKAGE / "prompts").iterdir()}
    assert {"plan.txt", "utterance.txt", "initial_answer.txt", "persona.txt", "fragments.toml"} <= names
