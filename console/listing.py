"""``python -m debate_core protocols``: every registered protocol, in the terminal.

What it does: ``show_protocols(console)`` prints each protocol's title,
where it came from (the plugin and its source: built-in, an installed
package's entry point, ``DEBATE_PLUGINS``, or ``register()``), the paper it
implements, its variants (the default first), its roles with how many agents
hold each and whether a person may, its request kinds, the temperature a
study samples it at (``Protocol.study_temperature``, its paper's), the
parameters it recommends for a small model (``Protocol.small_model_params``,
set by ``run --small-model`` and the web app's embedded-model choices), and a
table of its parameters with their types, defaults and meaning.

Plugins' problems (a module that does not import, a hook that raises) are
printed first as warnings, since the engine only logs them.

What it does not do: find the protocols (``debate_core.protocols.registry.describe``
does).
"""

from __future__ import annotations

import json

from rich.console import Console
from rich.table import Table
from rich.text import Text

from debate_core.plugins import problems
from debate_core.protocols.registry import describe, protocol_class


def show_protocols(console: Console) -> None:
    """Every registered protocol: variants, roles, parameters with defaults, request kinds.

    What went wrong loading plugins (one that failed, two claiming one protocol
    name) is printed first: the engine only logs it.
    """
    infos = describe()
    for problem in problems():
        console.print(Text(f"warning: {problem}", style="yellow"))
    for info in infos:
        console.print(Text(f"{info.name}: {info.title or info.doc}", style="bold"))
        origin = f"{info.source} (plugin {info.plugin})" if info.plugin and info.source != "built-in" else info.source
        if origin:
            console.print(Text(f"  from: {origin}", style="dim"))
        if info.paper:
            console.print(Text(f"  paper: {info.paper}", style="dim"))
        console.print(Text(f"  variants: {', '.join(info.variants)} (default {info.variants[0]})"))
        roles = ", ".join(
            f"{r.name} ×{r.minimum}{'+' if r.maximum is None else ('' if r.maximum == r.minimum else f'-{r.maximum}')}"
            + ("" if r.human_ok else " (models only)")
            for r in info.roles
        )
        console.print(Text(f"  roles: {roles or 'none (every agent is a debater, 2 or more)'}"))
        console.print(Text(f"  request kinds: {', '.join(info.forms) or '-'}"))
        temperature = protocol_class(info.name).study_temperature
        shown = "the backend's default" if temperature is None else f"{temperature:g}"
        console.print(Text(f"  study temperature: {shown} (python -m experiments compare, unless --temperature)"))
        if info.small_model_params:
            small = ", ".join(f"{key}={json.dumps(value)}" for key, value in info.small_model_params.items())
            console.print(Text(f"  for a small model: {small} (run --small-model; the app's embedded model)"))
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
