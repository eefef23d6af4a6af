"""A comparison study's finished debates, read from the store: one ``Outcome`` each.

What it does: ``outcomes(store, experiment_id)`` reads every finished debate
of a comparison (``compare``) into one ``Outcome``: the dataset, the system,
the question key and the repeat (``repeats.split_run_key``), whether its
answer was correct (or missing), the tokens the backend actually computed
(prompt, of which cached, and generated), the wall time, what the debate did
(points of information or questions, listener decisions, model mistakes
recorded on the events: ``records_mistakes``), why it ended, and its final
and correct answers, the unit it disclosed by (its recorded segmenter), with
the free-form scorings (``scoring``) as properties.

What it does not do: summarise or write anything (``compare_report``), or
read debates that did not finish (``compare_endings`` counts those).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from debate_core.events import DebateEnded, DebateStarted, Event, ListenerDecision, ReplyBase, UtteranceGenerated
from experiments import scoring
from experiments.compare import KIND, CompareSpec
from experiments.repeats import split_run_key
from experiments.workers import ExperimentError
from storage import Store


@dataclass(frozen=True)
class Outcome:
    dataset: str
    system: str
    question_key: str  # the question's (the same in every repeat)
    repeat: int  # which run of a study run several times (0 for a study of one run)
    debate_id: str
    correct: bool
    answered: bool
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    wall_s: float
    interventions: int
    decisions: int
    mistakes: int
    turns: int
    end_reason: str  # why the debate ended (``DebateEnded.reason``)
    final_answer: str | None = None
    gold: str | None = None  # the correct label, or the free-form answer
    free_form: bool = False
    segmenter: str = ""  # the unit the debate recorded it disclosed by (``DebateStarted.segmenter``)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.generated_tokens

    @property
    def normalized_exact(self) -> bool:
        """Normalized exact match for a free-form question; the engine's label match otherwise."""
        return scoring.exact_match(self.final_answer, self.gold) if self.free_form else self.correct

    @property
    def contained(self) -> bool:
        """Containment for a free-form question (the paper's scoring); the engine's label match otherwise."""
        return scoring.contains(self.final_answer, self.gold) if self.free_form else self.correct


def records_mistakes(event: Event) -> bool:
    """Whether an invalid reply of this event's type counts as a model's mistake: a listener's decision, and a
    plugin's event whose class says ``records_mistakes = True`` (ACE's analyses and composed acts)."""
    return isinstance(event, ListenerDecision) or bool(getattr(type(event), "records_mistakes", False))


def _mistakes(events: Sequence[Event]) -> int:
    """Model replies recorded as unusable: utterances with an error, and invalid replies of the event types that
    record mistakes (``records_mistakes``: decisions, a plugin's analyses and acts)."""
    said = sum(1 for e in events if isinstance(e, UtteranceGenerated) and e.error and e.source.value == "model")
    return said + sum(
        1
        for e in events
        if isinstance(e, ReplyBase) and records_mistakes(e) and not e.valid and e.source.value == "model"
    )


def outcomes(store: Store, experiment_id: str) -> tuple[CompareSpec, list[Outcome]]:
    record = store.experiments.get(experiment_id)
    if record is None:
        raise ExperimentError(f"no experiment {experiment_id!r} in this store")
    if record.spec.get("kind") != KIND:
        raise ExperimentError(f"experiment {experiment_id!r} is not a comparison study")
    spec = CompareSpec.model_validate(record.spec)
    found = []
    for run in store.experiments.runs(experiment_id):
        try:
            summary = store.debate(run.debate_id)
        except KeyError:
            continue
        if summary.status != "finished":
            continue
        events = store.events(run.debate_id)
        start, end = events[0], events[-1]
        assert isinstance(start, DebateStarted) and isinstance(end, DebateEnded)
        question = start.config.question
        stats = end.stats
        key, repeat = split_run_key(run.question_key)
        found.append(
            Outcome(
                dataset=run.setting,
                system=run.condition,
                question_key=key,
                repeat=repeat,
                debate_id=run.debate_id,
                correct=bool(end.correct),
                answered=end.final_answer is not None,
                prompt_tokens=stats.prompt_tokens,
                cached_tokens=stats.cached_prompt_tokens,
                generated_tokens=stats.generated_tokens,
                wall_s=stats.wall_time_s,
                interventions=stats.interventions,
                decisions=stats.decisions,
                mistakes=_mistakes(events),
                turns=stats.turns,
                end_reason=end.reason.value,
                final_answer=end.final_answer,
                gold=question.answer,
                free_form=not question.is_multiple_choice,
                segmenter=start.segmenter,
            )
        )
    return spec, found
