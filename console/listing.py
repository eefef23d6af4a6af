"""``python -m debate_core protocols``: every registered protocol, in the terminal.

What it does: ``show_protocols(console)`` prints each protocol's title and
source, its variants (the default first), its roles with how many agents
hold each and whether a person may, its request kinds, and a table of its
parameters with their types, defaults and meaning.

What it does not do: find the protocols (``debate_core.protocols.registry.describe``
does).
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from debate_core.protocols.registry import describe


def show_protocols(console: Console) -> None:
    """Every registered protocol: variants, roles, parameters with defaults, request kinds."""
    for info in describe():
        console.print(Text(f"{info.name}: {info.title or info.doc}", style="bold"))
        if info.source:
            console.print(Text(f"  from: {info.source}", style="dim"))
        console.print(Text(f"  variants: {', '.join(info.variants)} (default {info.variants[0]})"))
        roles = ", ".join(
            f"{r.name} ×{r.minimum}{'+' if r.maximum is None else ('' if r.maximum == r.minimum else f'-{r.maximum}')}"
            + ("" if r.human_ok else " (models only)")
            for r in info.roles
        )
        console.print(Text(f"  roles: {roles or 'none (every agent is a debater, 2 or more)'}"))
        console.print(Text(f"  request kinds: {', '.join(info.forms) or '-'}"))
        if info.params:
            table = Table(show_edge=False, box=None, padding=(0, 2))
            for column in ("parameter", "type", "default", "meaning"):
                table.add_column(column)
            for param in info.params:
                table.add_row(param.name, param.type, json.dumps(param.default), Text(param.description))
            console.print(table)
        else:
            console.print(Text("  parameters: none beyond the shared settings (budget, seed, temperature, caps)"))
        console.print()
