"""SID's step before a comparison's debates: each question's data set, so its prompts follow the paper's.

What it does: ``prepare(request)`` gives every question of a study a
``QuestionSetup`` whose parameters name the question's data set
(``dataset``: ``mmlu_pro``, ``math``, ``math_algebra``, ``gpqa``, ...), laid
over the ``sid/...`` systems' own, so that under ``prompts=paper`` each
debate asks with that data set's system prompt and output instruction (the
paper's Tables 4 and 5, ``formats``) and reads its answers that way. A
``--param sid.dataset=NAME`` of the user's is overridden per question; the
parameter is recorded with each debate, as every parameter is.

What it does not do: choose the prompts (``formats``) or touch another
protocol's systems.
"""

from __future__ import annotations

from collections.abc import Mapping

from experiments.extensions import PreparationRequest, QuestionSetup, StudyPreparation


def prepare(request: PreparationRequest) -> Mapping[str, QuestionSetup]:
    """Each question's data set as SID's ``dataset`` parameter, by question key."""
    return {item.key: QuestionSetup(params={"dataset": item.dataset}) for item in request.items}


PREPARATION = StudyPreparation("sid", prepare)
