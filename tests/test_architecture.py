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


def offenders(folder: Path, forbidden: set[str], depth: int = 1) -> dict[str, list[str]]:
    found = {
        str(path.relative_to(ROOT)): sorted(
            m for m in imported_modules(path) if ".".join(m.split(".")[:depth]) in forbidden
        )
        for path in folder.rglob("*.py")
    }
    return {k: v for k, v in found.items() if v}


def test_engine_imports_no_consumer_and_prints_nothing():
    assert offenders(PACKAGE, {"ui", "storage", "console", "gradio", "sqlalchemy", "rich"}) == {}
    printing = [
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    ]
    assert printing == []


def test_the_kernel_knows_no_protocol():
    """The kernel is the ground floor: protocols import it, never the other way round."""
    assert offenders(PACKAGE / "kernel", {"debate_core.protocols"}, depth=2) == {}
    assert offenders(PACKAGE / "events", {"debate_core.protocols", "debate_core.kernel"}, depth=2) == {}
    for path in (PACKAGE / "kernel").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
        }
        words = [
            str(n.value if isinstance(n, ast.Constant) else getattr(n, "id", getattr(n, "attr", "")))
            for n in ast.walk(tree)
            if isinstance(n, ast.Name | ast.Attribute) or (isinstance(n, ast.Constant) and id(n) not in docstrings)
        ]
        assert not [w for w in words if "kimura" in w.lower()], f"{path.name} names a protocol in its code"


def test_protocol_packages_do_not_import_each_other():
    packages = [p for p in (PACKAGE / "protocols").iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    for package in packages:
        others = {f"debate_core.protocols.{p.name}" for p in packages if p != package}
        assert offenders(package, others, depth=3) == {}


def test_storage_has_no_import_circle():
    assert "storage.store" not in imported_modules(ROOT / "storage" / "transfer.py")
    assert "storage.store" not in imported_modules(ROOT / "storage" / "recorder.py")


def test_importing_the_package_loads_no_heavy_library():
    code = (
        "import sys, debate_core, console.cli, debate_core.debate;"
        "heavy = [m for m in ('spacy', 'torch', 'transformers') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_modules_stay_small_and_say_what_they_do():
    folders = [PACKAGE, ROOT / "storage", ROOT / "ui", ROOT / "experiments", ROOT / "console"]
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
    names = {p.name for p in (PACKAGE / "protocols" / "kimura" / "prompts").iterdir()}
    assert {"plan.txt", "utterance.txt", "initial_answer.txt", "persona.txt", "fragments.toml"} <= names
