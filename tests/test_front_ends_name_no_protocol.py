"""The front ends ask the plugins: experiments/, ui/ (with app.py), console/ and storage/ name no protocol.

A protocol's own code lives in its package (``protocols/<name>/``: its ``web.py``,
``terminal.py``, ``study/``) and reaches a front end through the plugin hooks. This ratchet reads
each front-end module's code (identifiers, imports and strings; not comments or docstrings) for
the names of the registered protocols. A file may name one only while it is on its folder's
allowlist, with the reason; a listed file that no longer names one must leave the list, so the
lists only shrink.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from debate_core.protocols import registry

ROOT = Path(__file__).resolve().parents[1]

STILL_NAMING: dict[str, dict[str, str]] = {
    "experiments": {},
    "ui": {},
    "console": {},
    "storage": {
        "storage/migrations/versions/0003_protocols.py": "a migration is history: it moved Kimura's rows once",
    },
}


def protocol_names_in(path: Path, names: list[str]) -> set[str]:
    """Protocol names in a module's code: identifiers, imports and strings, not comments or docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    words: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute | ast.FunctionDef | ast.ClassDef | ast.arg):
            words.append(getattr(node, "attr", None) or getattr(node, "name", None) or getattr(node, "arg", ""))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            words.append(node.value)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            words += [getattr(node, "module", None) or "", *(alias.name for alias in node.names)]
    pattern = re.compile(r"(?<![a-z])(" + "|".join(map(re.escape, names)) + r")(?![a-z])")
    return {match for word in words for match in pattern.findall(word.lower())}


def _modules(folder: str) -> list[Path]:
    found = sorted((ROOT / folder).rglob("*.py"))
    return [*found, ROOT / "app.py"] if folder == "ui" else found


@pytest.mark.parametrize("folder", sorted(STILL_NAMING))
def test_a_front_end_names_no_protocol_outside_its_allowlist(folder):
    names = sorted(registry.available())
    naming = {
        path.relative_to(ROOT).as_posix(): found
        for path in _modules(folder)
        if (found := protocol_names_in(path, names))
    }
    allowed = STILL_NAMING[folder]
    assert set(naming) <= set(allowed), (
        f"{folder}/ names a protocol: { {k: v for k, v in naming.items() if k not in allowed} }"
    )
    assert set(allowed) <= set(naming), (
        f"no longer names a protocol, take it off the list: {set(allowed) - set(naming)}"
    )


def test_the_ratchet_sees_code_not_docstrings(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""About handraiser."""\n# sid\nX = "ace/rounds"\ndef side(trace): return trace\n')
    assert protocol_names_in(path, ["ace", "handraiser", "sid"]) == {"ace"}
