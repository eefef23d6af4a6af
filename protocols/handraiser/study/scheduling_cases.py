"""``python -m experiments scheduling-cases``: (re)write or check the committed meeting-scheduling cases.

What it does: ``COMMAND`` (registered by the HandRaiser plugin) generates ``--count`` cases
(``scheduling.generate.generate_many``, case i from seed ``--seed + i``) and writes them to ``--out``
(default: ``cases.jsonl`` beside the scheduling package), printing how many of each tag; with
``--check`` it compares that file with what the generator gives instead, and exits 1 when they differ.

What it does not do: generate or verify cases itself (``scheduling.generate``, ``scheduling.check``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console

from experiments.extensions import Command
from protocols.handraiser.scheduling.generate import CASES, generate_many
from protocols.handraiser.scheduling.model import dump_cases

NAME = "scheduling-cases"


def add_parser(commands: Any) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(
        NAME, help="Meeting Scheduling: (re)generate the committed cases, or --check them against the generator"
    )
    parser.add_argument("--count", type=int, default=50, help="how many cases (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="the first case's seed (default 0)")
    parser.add_argument(
        "--out", type=Path, default=CASES, help="the JSON-lines file (default: the committed cases.jsonl)"
    )
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    return parser


def run(args: argparse.Namespace, console: Console) -> int:
    if not 1 <= args.count <= 10_000:
        console.print("--count is 1..10000", style="red")
        return 2
    cases = generate_many(args.count, args.seed)
    if args.check:
        expected = "".join(case.model_dump_json() + "\n" for case in cases)
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == expected
        verdict = "matches" if same else "differs from"
        console.print(f"{args.out}: {verdict} the generator's {args.count} cases", markup=False, soft_wrap=True)
        return 0 if same else 1
    dump_cases(cases, args.out)
    tags = Counter(tag for case in cases for tag in case.tags)
    console.print(f"wrote {len(cases)} cases to {args.out}; tags: {dict(sorted(tags.items()))}", markup=False)
    return 0


COMMAND = Command(NAME, add_parser, run)
