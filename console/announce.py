"""Saying which model a terminal debate runs on, and loading it before the debate starts.

What it does: ``announce(backend, console)`` prints the embedded model's notice, loads an
in-process model under a status line and says where it runs and how long it took; for a router
it announces each backend. A server backend (vLLM, llama.cpp) has nothing to load: it was
probed when it was made.

What it does not do: build backends (``console.cli.backend_from_args``) or print events.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from debate_core.backends.base import Backend
from debate_core.backends.router import BackendRouter


def announce(backend: Backend | BackendRouter, console: Console) -> None:
    """Say plainly which model is in use, and load it before the debate starts."""
    if isinstance(backend, BackendRouter):
        for each in backend.backends:
            announce(each, console)
        return
    if not hasattr(backend, "loaded"):
        return
    from debate_core.backends.hf.embedded import EMBEDDED_NOTICE

    if getattr(backend, "is_embedded", False):
        console.print(Text(EMBEDDED_NOTICE, style="yellow"))
    with console.status(f"Loading {backend.model_id} (the first use of the embedded model converts it once)"):
        loaded = backend.loaded
    console.print(
        Text(
            f"Model: {loaded.model_id} on {loaded.device} ({loaded.dtype}), "
            f"loaded in {loaded.load_seconds:.1f} s (+ {loaded.import_seconds:.1f} s importing torch)",
            style="dim",
        )
    )
