"""Meeting Scheduling in the study harness: the ``scheduling`` data set.

    python -m experiments compare --experiment ms-1 --mmlu 0 --strategyqa 0 --data scheduling=50 \\
        --systems scheduling/generic,scheduling/concise,scheduling/random,scheduling/prompted
    python -m experiments compare ... --data scheduling=20 --data-file scheduling=my-cases.jsonl

What it does: ``DATASET`` (registered by the plugin's ``register_datasets``)
gives a study ``n`` cases as questions (``Item``\\ s keyed
``scheduling:<case id>``, the case's first tag, or ``plain``, the subject):
drawn with the study's seed from the committed cases
(``scheduling/cases.jsonl``, the paper's 50), or from a file in the same
JSON-lines format (``python -m experiments scheduling-cases`` writes one).
Each question carries its whole case (``meeting.cases.scheduling_question``:
the task statement, the case's JSON as its context, the answer ``valid``),
so a stored study replays without the file.

What it does not do: run a comparison (``compare`` does, with the
``scheduling/...`` systems) or check schedules (the protocol does).
"""

from __future__ import annotations

import random
from pathlib import Path

from experiments.compare import Item
from experiments.extensions import DataRequest, Dataset
from protocols.handraiser.meeting.cases import committed, scheduling_question
from protocols.handraiser.scheduling import Case, load_cases


def read_cases(path: str | None) -> tuple[Case, ...]:
    """The cases of a JSON-lines file, or the committed ones."""
    return tuple(load_cases(Path(path))) if path is not None else tuple(committed().values())


def item(case: Case) -> Item:
    subject = case.tags[0] if case.tags else "plain"
    return Item("scheduling", f"scheduling:{case.id}", subject, scheduling_question(case))


def items(request: DataRequest) -> list[Item]:
    """``request.n`` cases, a seeded sample (all of them, in order, when ``n`` is their number or more)."""
    cases = list(read_cases(request.path))
    if request.n < len(cases):
        cases = random.Random(f"{request.seed}/scheduling").sample(cases, request.n)
    return [item(case) for case in cases]


DATASET = Dataset("scheduling", items, "Meeting Scheduling cases (the committed 50, or a JSON-lines file)")
