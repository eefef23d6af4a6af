r"""MATH (Hendrycks et al.): the test split's 5,000 competition problems in seven subsets, posed free-form.

What it does: ``load_math(subsets)`` reads each subset's ``test`` split
(MIT licence) from the hub's ``EleutherAI/hendrycks_math``, one config per
subset (algebra, counting_and_probability, geometry, intermediate_algebra,
number_theory, prealgebra, precalculus), loaded once through ``datasets``
and cached as ``$DEBATE_DATA_CACHE/math/<subset>-test.jsonl``
(``hub_data``), or from one file you name (JSON lines or a JSON list of the
hub's rows, any subsets mixed: each row's ``type``, such as ``Counting &
Probability``, says which; the subsets it has are the ones used). A row
(``problem``, ``level``, ``type``, ``solution``) becomes a ``MathQuestion``:
the problem as the text, and as the answer what the solution's last
``\boxed{...}`` holds (``scoring.last_boxed``: braces matched; a row
without one may give an ``answer`` field instead). A row without a problem,
an answer or a known subset is skipped and counted in the log.

``math_items(n, seed, data)`` (the data set ``math``) spreads ``n`` evenly
over the subsets (``spread``: ``n // 7`` each, the remainder one more each
in as many subsets, drawn by the seed), ``math_items(n, seed, data,
(subset,), "math_<subset>")`` (the data sets ``math_algebra`` and so on)
draws ``n`` from one; each subset is sampled with the study's seed, its
name the question's subject. The engine scores the free-form answers
exactly; the report's normalized match also compares them as MATH answers
(``scoring.math_equal``: LaTeX spacing, ``\left``/``\right``, dollars, simple
``\frac{a}{b}`` as ``a/b``, and the limits of that).

What it does not do: use the train split or the solutions (never shown),
ask for a format (``\boxed``) in the question, check answers symbolically,
or print (the logger ``experiments``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from pydantic import ValidationError

from debate_core.config import Question
from experiments import hub_data
from experiments.items import Item
from experiments.rows import usable_rows
from experiments.scoring import last_boxed

DATASET = "math"
HUB_ID = "EleutherAI/hendrycks_math"
SUBSETS = (
    "algebra",
    "counting_and_probability",
    "geometry",
    "intermediate_algebra",
    "number_theory",
    "prealgebra",
    "precalculus",
)
# each subset's rows' ``type``
TYPES = {
    "Algebra": "algebra",
    "Counting & Probability": "counting_and_probability",
    "Geometry": "geometry",
    "Intermediate Algebra": "intermediate_algebra",
    "Number Theory": "number_theory",
    "Prealgebra": "prealgebra",
    "Precalculus": "precalculus",
}
TEST_QUESTIONS = {
    "algebra": 1_187,
    "counting_and_probability": 474,
    "geometry": 479,
    "intermediate_algebra": 903,
    "number_theory": 540,
    "prealgebra": 871,
    "precalculus": 546,
}
FIELDS = r"problem, a solution with a \boxed{} answer, type"


@dataclass(frozen=True)
class MathQuestion:
    index: int  # the row's position in its subset's split (or in the file), kept when other rows are skipped
    subset: str
    level: str  # "Level 1" to "Level 5"
    text: str
    answer: str

    def question(self) -> Question:
        return Question(text=self.text, answer=self.answer)


def check_subsets(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` without repeats, each a subset; a ``HubDataError`` naming the first that is not."""
    found = tuple(dict.fromkeys(names))
    for name in found:
        if name not in SUBSETS:
            raise hub_data.HubDataError(f"MATH has no subset {name!r} (subsets: {', '.join(SUBSETS)})")
    return found


def source(subset: str | None, dataset: str = DATASET) -> hub_data.HubSource:
    """A subset's split on the hub (``None``: a file of any subsets, for its name and fields)."""
    return hub_data.HubSource(
        name=f"MATH {subset}" if subset else "MATH",
        dataset=dataset,
        hub_id=HUB_ID,
        config=subset,
        split="test",
        cache_file=f"math/{subset}-test.jsonl",
        fields=FIELDS,
    )


def subset_of(kind: object, default: str | None = None) -> str | None:
    """The subset a row's ``type`` names (``Number Theory`` or ``number_theory``); ``default`` otherwise."""
    text = hub_data.text_of(kind)
    named = TYPES.get(text) or text.lower().replace(" & ", "_and_").replace(" ", "_")
    return named if named in SUBSETS else default


def _question_of(index: int, row: object, subset: str | None = None) -> MathQuestion | None:
    if not isinstance(row, dict):
        return None
    text, solution = hub_data.text_of(row.get("problem")), row.get("solution")
    answer = last_boxed(solution) if isinstance(solution, str) else None
    answer = answer or hub_data.text_of(row.get("answer"))
    found_subset = subset_of(row.get("type"), subset)
    if not text or not answer or found_subset is None:
        return None
    level = hub_data.text_of(row.get("level"))
    found = MathQuestion(index=index, subset=found_subset, level=level, text=text, answer=answer)
    try:
        found.question()  # the engine's own checks (lengths)
    except ValidationError:
        return None
    return found


def parse_rows(rows: Sequence[object], source: str = "rows", *, subset: str | None = None) -> list[MathQuestion]:
    """MATH rows as questions (``subset``: a row's subset when its ``type`` names none); unusable rows skipped."""
    why = r"without a problem, a \boxed{} answer or a known subset (type)"
    return usable_rows(rows, partial(_question_of, subset=subset), dataset="MATH", why=why, source=source)


def load_math(
    subsets: Sequence[str] = SUBSETS,
    path: str | Path | None = None,
    *,
    dataset: str = DATASET,
    cache: str | Path | None = None,
    fetch: bool = True,
) -> dict[str, list[MathQuestion]]:
    """Each subset's usable questions, in order: from ``path`` (the subsets asked for that it has), else from
    each subset's cache, else the hub."""
    wanted = check_subsets(subsets)
    if not path:
        return {
            subset: hub_data.load(source(subset, dataset), partial(parse_rows, subset=subset), cache=cache, fetch=fetch)
            for subset in wanted
        }
    questions = hub_data.load(source(None, dataset), parse_rows, path)
    found = {subset: [q for q in questions if q.subset == subset] for subset in wanted}
    found = {subset: chosen for subset, chosen in found.items() if chosen}
    if not found:
        raise hub_data.HubDataError(f"no question of MATH's {', '.join(wanted)} in {path} (by its rows' type)")
    return found


def spread(n: int, subsets: Sequence[str], seed: int) -> dict[str, int]:
    """``n`` questions over ``subsets`` evenly: ``n // len(subsets)`` each, one more in as many as the remainder,
    which drawn by ``seed``."""
    if not subsets:
        return {}
    each, extra = divmod(n, len(subsets))
    lucky = set(random.Random(seed).sample(list(subsets), extra))
    return {subset: each + (subset in lucky) for subset in subsets}


def math_items(
    n: int, seed: int, data: str | None = None, subsets: Sequence[str] = SUBSETS, dataset: str = DATASET
) -> list[Item]:
    """``n`` seeded MATH questions spread evenly over ``subsets`` (see ``spread``), each subset's name as the
    subject; ``data``: a local file of rows (else each subset's cache, else the hub)."""
    if not n:
        return []
    found = load_math(subsets, data, dataset=dataset)
    counts = spread(n, list(found), seed)
    items = []
    for subset, questions in found.items():
        for q in hub_data.sample(questions, counts[subset], seed=seed, name=f"MATH {subset}"):
            parts = (subset, q.index) if dataset == DATASET else (q.index,)
            items.append(Item(dataset, hub_data.item_key(dataset, *parts, text=q.text), subset, q.question()))
    return items
