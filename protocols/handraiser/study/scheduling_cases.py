"""The command that (re)writes or checks the committed meeting-scheduling cases.

What it does: ``main(argv)`` is ``python -m protocols.handraiser.scheduling --count 50 --seed 0
[--out FILE] [--check]``: it generates the cases (``scheduling.generate.generate_many``) and writes
them to ``cases.jsonl`` beside the scheduling package, or with ``--check`` compares that file with
what the generator gives and exits 1 when they differ.

What it does not do: generate or verify cases itself (``scheduling.generate``, ``scheduling.check``).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from protocols.handraiser.scheduling.generate import CASES, generate_many
from protocols.handraiser.scheduling.model import dump_cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m protocols.handraiser.scheduling", description="(Re)generate the meeting-scheduling cases."
    )
    parser.add_argument("--count", type=int, default=50, help="how many cases (default 50)")
    parser.add_argument("--seed", type=int, default=0, help="the first case's seed (default 0)")
    parser.add_argument(
        "--out", type=Path, default=CASES, help="the JSON-lines file (default: cases.jsonl beside the module)"
    )
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    args = parser.parse_args(argv)
    if not 1 <= args.count <= 10_000:
        parser.error("--count is 1..10000")
    cases = generate_many(args.count, args.seed)
    if args.check:
        expected = "".join(case.model_dump_json() + "\n" for case in cases)
        same = args.out.is_file() and args.out.read_text(encoding="utf-8") == expected
        print(f"{args.out}: {'matches' if same else 'differs from'} the generator's {args.count} cases")
        return 0 if same else 1
    dump_cases(cases, args.out)
    tags = Counter(tag for case in cases for tag in case.tags)
    print(f"wrote {len(cases)} cases to {args.out}; tags: {dict(sorted(tags.items()))}")
    return 0
