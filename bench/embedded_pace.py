"""How long a debate on the embedded model takes on this machine, with the app's default and short settings.

Prints, for each setting: seconds to load the model, seconds from the start
to the first disclosed unit, seconds per turn (median), per disclosed unit
(median), the number of turns and units, and the total until the debate
ended (or until ``--max-turns`` turns, then the projection to the end). The
numbers behind the app's "about N s per turn" next to the embedded model and
its short defaults.

    python bench/embedded_pace.py [--settings short,app] [--max-turns 12]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debate_core import Debate, DebateConfig
from debate_core.backends.factory import BackendSpec, make_backend
from debate_core.events import DebateEnded, PlansMade, UnitDisclosed
from protocols.kimura.demo import demo_config

# The app's embedded-model defaults (``ui.model_presets.EMBEDDED_DEFAULTS``) next to the settings
# it used before they existed.
SETTINGS: dict[str, dict[str, Any]] = {
    "short": {"token_budget": 120, "max_new_tokens": 160, "params": {"utterance_max_new_tokens": 40}},
    "app": {"token_budget": 300, "params": {"utterance_max_new_tokens": 80}},
}


def run(name: str, max_turns: int) -> None:
    base = demo_config(seed=1).model_dump()
    settings = SETTINGS[name]
    params = {**base["params"], **settings["params"], "prompt_layout": "cached"}
    config = DebateConfig.model_validate({**base, **settings, "params": params})
    backend = make_backend(BackendSpec("transformers"), config)
    began = time.perf_counter()
    backend.loaded  # type: ignore[attr-defined]  # noqa: B018 - load before timing the debate
    load_s = time.perf_counter() - began
    start = time.perf_counter()
    first = None
    turn_starts: list[float] = []
    units: list[float] = []
    ended = False
    for event in Debate(config, backend).events():
        now = time.perf_counter() - start
        if isinstance(event, PlansMade):  # one per turn
            turn_starts.append(now)
            if len(turn_starts) > max_turns:
                break
        elif isinstance(event, UnitDisclosed):
            units.append(now)
            first = now if first is None else first
        elif isinstance(event, DebateEnded):
            ended = True
    total = time.perf_counter() - start
    per_turn = statistics.median(b - a for a, b in itertools.pairwise(turn_starts)) if len(turn_starts) > 1 else total
    per_unit = statistics.median(b - a for a, b in itertools.pairwise(units)) if len(units) > 1 else float("nan")
    print(
        f"{name:6} load {load_s:5.1f} s · first unit {first if first is not None else float('nan'):6.1f} s · "
        f"{per_turn:5.1f} s/turn · {per_unit:5.1f} s/unit · {len(turn_starts)} turns, {len(units)} units · "
        f"{'ended' if ended else 'stopped'} after {total:6.1f} s"
    )
    backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="short,app")
    parser.add_argument("--max-turns", type=int, default=40)
    args = parser.parse_args()
    print(f"embedded SmolLM2-135M on {os.cpu_count()} cores")
    for name in args.settings.split(","):
        run(name, args.max_turns)


if __name__ == "__main__":
    main()
