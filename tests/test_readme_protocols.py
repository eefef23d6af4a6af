"""The README's protocol table says what the registry says: every built-in protocol, its variants, paper, page."""

from __future__ import annotations

from pathlib import Path

from debate_core.protocols import describe

ROOT = Path(__file__).resolve().parents[1]


def readme_rows() -> dict[str, list[str]]:
    rows = {}
    for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 4 and cells[0].strip("`").isidentifier():
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_the_readme_protocol_table_matches_the_registry():
    rows = readme_rows()
    built_in = {info.name: info for info in describe() if info.source == "built-in"}
    assert set(rows) == set(built_in)
    for name, (variants, paper, page) in rows.items():
        info = built_in[name]
        assert variants == ", ".join(info.variants), f"{name}'s variants"
        assert paper == info.paper, f"{name}'s paper"
        link = page[page.index("(") + 1 : page.index(")")]
        assert (ROOT / link).is_file(), f"{name}'s page {link}"
