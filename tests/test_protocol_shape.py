"""Every built-in protocol package has the same shape: the same core modules, under the same names.

What it checks: each package that ``protocols.PLUGINS`` names holds the core
modules (``plugin``, ``protocol``, ``params``, ``forms``, ``state``,
``loop``, ``views``, ``prompting``, ``demo``, ``consistency``), and its
``state`` module says it holds the run state.

What it does not check: what the modules hold beyond their names (the
protocols' own tests and the conformance suite do), or installed plugins
(they may take any shape).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from protocols import PLUGINS

CORE = ("plugin", "protocol", "params", "forms", "state", "loop", "views", "prompting", "demo", "consistency")


def package_folder(plugin: str) -> tuple[str, Path]:
    """The short name and folder of the package a ``PLUGINS`` entry (``protocols.<name>.plugin``) belongs to."""
    package = plugin.rpartition(".")[0]
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations, f"{package} is not a package"
    return package.rpartition(".")[2], Path(next(iter(spec.submodule_search_locations)))


PACKAGES = dict(package_folder(plugin) for plugin in PLUGINS)


def test_the_built_in_packages_are_found():
    assert set(PACKAGES) == {"kimura", "parliament", "handraiser", "ace", "sid", "baselines"}
    assert all(folder.is_dir() for folder in PACKAGES.values())


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_protocol_package_has_the_core_modules(name: str):
    folder = PACKAGES[name]
    missing = [m for m in CORE if not (folder / f"{m}.py").is_file()]
    assert missing == [], f"protocols/{name}/ lacks {', '.join(f'{m}.py' for m in missing)}"


def state_docstring(name: str) -> str:
    path = PACKAGES[name] / "state.py"
    if not path.is_file():
        return ""
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_state_module_holds_the_run_state(name: str):
    """The run-state object (one debate's seats, views and record: what the loop takes) is named so in its
    module's docstring, whatever the class is called (``KimuraState``, ``Hall``, ``Room``, ``Circle``, ``Council``)."""
    assert "run state" in state_docstring(name), f"protocols/{name}/state.py: no 'run state'"


@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_every_protocol_package_has_its_page(name: str):
    """A protocol's page (what it implements of its paper, its parameters, every decision where the paper is
    silent) is in its folder, beside its code, and opens with a title."""
    page = PACKAGES[name] / "docs.md"
    assert page.is_file(), f"protocols/{name}/docs.md is missing"
    assert page.read_text(encoding="utf-8").startswith("# "), f"protocols/{name}/docs.md has no title"
