"""What built-in variants need, beyond their defaults, to run on the scripted demo.

``params_for(case_id, folder)`` gives the parameters a variant cannot start without: SID's
``sid_c`` gates on a trained classifier (a one-layer gate written to ``folder``, as ``train-gate``
saves one), HandRaiser's ``learned`` seats a fine-tuned listener (the demo's script stands in for
it). Every other variant, a newcomer's included, runs on its defaults.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _gate_file(folder: Path) -> str:
    from protocols.sid import gate

    data = {
        "features": list(gate.CODE_FEATURES),
        "mean": [0, 0, 0, 0],
        "scale": [1, 1, 1, 1],
        "layers": [{"weights": [[-2.0], [0.0], [0.0], [0.0]], "biases": [3.0]}],
    }
    path = folder / "gate.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def params_for(case_id: str, folder: Path) -> dict[str, Any]:
    if case_id == "sid/sid_c":
        return {"classifier": _gate_file(folder)}
    if case_id == "handraiser/learned":
        return {"listener": "demo-listener"}
    return {}
