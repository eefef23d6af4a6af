"""The rules the code base lives by, checked mechanically.

Each protocol's own tests (``protocols/<name>/tests/``) are not part of the code these rules hold for:
tests import front ends and other protocols freely, print, and may run long. ``python_files`` leaves
them out of every check over ``protocols/``; a module beside them is still checked.
"""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "debate_core"
PROTOCOLS = ROOT / "protocols"


def is_protocol_test(path: Path) -> bool:
    """Whether ``path`` lies in a protocol's own tests folder (``protocols/<name>/tests/``)."""
    try:
        parts = path.relative_to(PROTOCOLS).parts
    except ValueError:
        return False
    return len(parts) > 2 and parts[1] == "tests"


def python_files(folder: Path) -> list[Path]:
    """The Python modules under ``folder`` these rules hold for: all but a protocol's own tests."""
    return [path for path in sorted(folder.rglob("*.py")) if not is_protocol_test(path)]


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
        for path in python_files(folder)
    }
    return {k: v for k, v in found.items() if v}


FRONT_ENDS = {"ui", "storage", "console", "experiments", "gradio", "sqlalchemy", "rich"}
# A protocol's front-end modules live in its folder under fixed names and may import the front end they serve.
FRONT_END_MODULES = {
    "web": {"ui", "gradio"},
    "terminal": {"console", "rich"},
    "study": {"experiments", "storage", "rich"},
}


def printing_modules(package: Path) -> list[str]:
    return [
        str(path.relative_to(ROOT))
        for path in python_files(package)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    ]


def front_end_of(path: Path) -> str | None:
    """The fixed name a protocol's front-end module has (``web.py`` or ``web/``, ``terminal.py``, ``study/``),
    or None for one of its engine-side modules."""
    parts = path.relative_to(PROTOCOLS).with_suffix("").parts
    if len(parts) >= 2 and parts[1] in FRONT_END_MODULES:
        return parts[1]
    return None


def layering_offenders(package: Path) -> dict[str, list[str]]:
    """Per protocol module: its engine side imports no front end; a front-end module only its own."""
    found = {}
    for path in python_files(package):
        allowed = FRONT_END_MODULES.get(front_end_of(path) or "", set())
        bad = sorted(m for m in imported_modules(path) if m.split(".")[0] in FRONT_ENDS - allowed)
        if bad:
            found[str(path.relative_to(ROOT))] = bad
    return found


def test_engine_imports_no_consumer_no_protocol_and_prints_nothing():
    """``debate_core`` is a pure library: no front end, no protocol package, no print, anywhere in it."""
    assert offenders(PACKAGE, FRONT_ENDS | {"protocols"}) == {}
    assert printing_modules(PACKAGE) == []


def test_protocols_keep_front_ends_in_their_front_end_modules():
    """A protocol's loop, forms, views and prompts import no front end and print nothing; only its ``web``,
    ``terminal`` and ``study`` modules reach the front end they serve."""
    assert layering_offenders(PROTOCOLS) == {}
    assert [p for p in printing_modules(PROTOCOLS) if front_end_of(ROOT / p) is None] == []


def test_protocols_import_front_end_modules_only_lazily_from_their_plugins():
    """A protocol's ``web``, ``terminal`` and ``study`` modules are imported inside plugin.py's hooks, nowhere else
    on its engine side, and never at module level: loading the protocols loads no front end."""
    modules = module_names(ROOT, "protocols")
    front = {name for name, path in modules.items() if front_end_of(path)}
    for name, path in modules.items():
        if front_end_of(path):
            continue
        eager = set(module_level_imports(name, path, set(modules))) & front
        assert not eager, f"{name} imports front-end modules at module level: {sorted(eager)}"
        if path.name != "plugin.py":
            assert not {m for m in imported_modules(path) if m in front}, f"{name} imports a front-end module"


def test_a_front_end_import_in_a_protocol_is_caught(tmp_path, monkeypatch):
    package = tmp_path / "protocols"
    for folder in ("p/study", "p/web"):
        (package / folder).mkdir(parents=True)
    (package / "p/loop.py").write_text("import rich\n")
    (package / "p/study/report.py").write_text("import experiments.metrics\nimport ui\n")
    (package / "p/web/panel.py").write_text("import ui.render\n")
    monkeypatch.setattr(sys.modules[__name__], "PROTOCOLS", package)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert layering_offenders(package) == {
        "protocols/p/loop.py": ["rich"],
        "protocols/p/study/report.py": ["ui"],
    }


def test_a_protocols_own_tests_are_left_out_but_the_module_beside_them_is_checked(tmp_path, monkeypatch):
    """protocols/<name>/tests/ may import front ends and other protocols and print; its engine modules may not."""
    package = tmp_path / "protocols"
    for folder in ("p/tests", "q"):
        (package / folder).mkdir(parents=True)
    test_code = "import rich\nimport ui.render\nimport protocols.q.loop\nprint('x')\n"
    (package / "p/tests/test_p.py").write_text(test_code)
    (package / "p/tests/__init__.py").write_text("")
    (package / "p/loop.py").write_text(test_code)
    (package / "p/__init__.py").write_text('"""p."""\n')
    monkeypatch.setattr(sys.modules[__name__], "PROTOCOLS", package)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert layering_offenders(package) == {"protocols/p/loop.py": ["rich", "ui.render"]}
    assert printing_modules(package) == ["protocols/p/loop.py"]
    assert offenders(package / "p", {"protocols.q"}, depth=2) == {"protocols/p/loop.py": ["protocols.q.loop"]}
    assert set(module_names(tmp_path, "protocols")) == {"protocols.p", "protocols.p.loop"}


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
    packages = [p for p in PROTOCOLS.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    assert len(packages) >= 5
    for package in packages:
        others = {f"protocols.{p.name}" for p in packages if p != package}
        assert offenders(package, others, depth=2) == {}


def test_storage_has_no_import_circle():
    assert "storage.store" not in imported_modules(ROOT / "storage" / "transfer.py")
    assert "storage.store" not in imported_modules(ROOT / "storage" / "recorder.py")


def test_importing_the_package_loads_no_heavy_library():
    code = (
        "import sys, debate_core, console.cli, debate_core.debate;"
        "from debate_core.protocols import registry; registry.available();"
        "heavy = [m for m in ('spacy', 'torch', 'transformers', 'experiments', 'ui') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_modules_stay_small_and_say_what_they_do():
    folders = [PACKAGE, PROTOCOLS, ROOT / "storage", ROOT / "ui", ROOT / "experiments", ROOT / "console"]
    for path in (p for folder in folders for p in python_files(folder)):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 450, f"{path.name} is past ~400 lines: split it"
        docstring = ast.get_docstring(ast.parse(text))
        assert docstring, f"{path.name} has no module docstring"


def test_the_experiment_harness_loads_no_model_library_until_it_runs_one():
    code = (
        "import sys, experiments.cli, protocols.kimura.study.report, protocols.kimura.study.runner, ui.analysis_panel;"
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
    names = {p.name for p in (PROTOCOLS / "kimura" / "prompts").iterdir()}
    assert {"plan.txt", "utterance.txt", "initial_answer.txt", "persona.txt", "fragments.toml"} <= names


# -- no import circle ----------------------------------------------------------------------------
# The graph: one node per module under a package (a package's ``__init__`` is the package's node);
# an edge for every import a module makes at module level, ``if TYPE_CHECKING:`` blocks included (a type
# checker and a reader follow them; guarding an import is how a circle hides, not how it goes away).
# Imports inside functions do not count: they run when called, once every module is loaded (the
# project's way to load heavy or optional code lazily). ``from a.b import c`` is an edge to the module
# ``a.b.c`` where there is one, else to ``a.b``; that importing ``a.b.c`` also loads the package
# ``a.b`` is no edge (every package would be a circle with the submodules it re-exports).


def module_names(root: Path, package: str) -> dict[str, Path]:
    names = {}
    for path in python_files(root / package):
        parts = path.relative_to(root).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def module_level_imports(name: str, path: Path, known: set[str]) -> dict[str, int]:
    """The modules of ``known`` that ``name`` imports outside its functions, each with the line of the import."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        if target in known and target != name:
            found.setdefault(target, line)

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name, node.lineno)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parent, *([node.module] if node.module else [])])
                for alias in node.names:
                    submodule = f"{base}.{alias.name}"
                    add(submodule if submodule in known else base, node.lineno)
            for block in ("body", "orelse", "finalbody", "handlers"):  # if/try/with/class bodies, not defs
                inner = getattr(node, block, None)
                if isinstance(inner, list):
                    visit(inner)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def import_circle(root: Path, package: str) -> list[str]:
    """One circle of module-level imports under ``package`` as ``a:LINE -> b:LINE -> ... -> a``, or []."""
    modules = module_names(root, package)
    edges = {name: module_level_imports(name, path, set(modules)) for name, path in sorted(modules.items())}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    trail: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        trail.append(node)
        for target in sorted(edges[node]):
            if state.get(target) == 1:
                circle = [*trail[trail.index(target) :], target]
                return [*(f"{a}:{edges[a][b]}" for a, b in itertools.pairwise(circle)), target]
            if target not in state and (found := walk(target)):
                return found
        trail.pop()
        state[node] = 2
        return []

    for start in sorted(edges):
        if start not in state and (found := walk(start)):
            return found
    return []


def test_the_engine_has_no_import_circle():
    """Modules depend one way: end conditions and policies read a ``TableState``, never the ``Table``."""
    for package in ("debate_core", "protocols"):
        circle = import_circle(ROOT, package)
        assert circle == [], f"an import circle in {package}: " + " -> ".join(circle)
    for name in ("endings", "policies", "listening"):
        assert "debate_core.kernel.table" not in imported_modules(PACKAGE / "kernel" / f"{name}.py")


def test_the_circle_check_counts_type_checking_imports_and_names_the_circle(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.a import A\n")
    (package / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\nA = 1\n"
    )
    (package / "b.py").write_text("from . import c\n")
    (package / "c.py").write_text("def late():\n    from pkg import a\n")
    assert import_circle(tmp_path, "pkg") == []  # an import inside a function is no edge
    (package / "c.py").write_text("from .a import A\n")
    assert import_circle(tmp_path, "pkg") == ["pkg.a:3", "pkg.b:1", "pkg.c:1", "pkg.a"]
