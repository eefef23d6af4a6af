"""Plotly figures to PNG through kaleido and the system's Chromium, never a downloaded browser.

What it does: ``export_png([(figure, path), ...])`` writes every figure in
one kaleido call (one Chromium launch, about 3 s plus 0.2 s a figure). The
browser is ``$BROWSER_PATH`` when set, else the first of ``/usr/bin/chromium``
and ``chromium`` / ``google-chrome`` on the PATH. MathJax is turned off, so
nothing is fetched from a CDN. It returns None on success or the reason it
could not (kaleido not installed, no browser, the browser failed), so the
caller can keep the HTML figures and say why there are no PNGs.

What it does not do: use kaleido's persistent server (it can hang for good
when the browser dies and mixes up figures between threads), or install a
browser.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debate_core.log import logger

CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    if os.environ.get("BROWSER_PATH"):
        return os.environ["BROWSER_PATH"]
    for candidate in CANDIDATES:
        found = candidate if os.path.isabs(candidate) and os.access(candidate, os.X_OK) else shutil.which(candidate)
        if found:
            return found
    return None


def export_png(pairs: Sequence[tuple[Any, Path]], *, scale: float = 2.0) -> str | None:
    """Write each figure to its PNG path; None on success, else why not."""
    if not pairs:
        return None
    try:
        import kaleido  # type: ignore[import-untyped]
    except ImportError:
        return "kaleido is not installed (pip install 'kaleido>=1.5,<2')"
    browser = find_browser()
    if browser is None:
        return "no Chromium or Chrome found (install Debian's chromium or set BROWSER_PATH)"
    os.environ.setdefault("BROWSER_PATH", browser)
    specs = []
    for figure, path in pairs:
        layout = figure.layout
        options = {"format": "png", "width": layout.width or 760, "height": layout.height or 460, "scale": scale}
        specs.append({"fig": figure, "path": str(path), "opts": options})
    try:
        kaleido.write_fig_from_object_sync(specs, kopts={"mathjax": False})
    except RuntimeError as error:  # choreographer's ChromeNotFoundError / BrowserFailedError included
        logger.warning("PNG export failed: %s", error)
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else 'the browser failed'}"
    missing = [str(path) for _, path in pairs if not Path(path).is_file()]
    if missing:
        return f"kaleido wrote no file for {', '.join(missing)}"
    return None
