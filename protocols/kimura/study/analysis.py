"""A study's results, computed from the store: the numbers behind Tables V-X and Figures 1-9.

What it does: ``load_study(store, id)`` reads an experiment's specification,
its cells and every finished debate's events; then

* ``final_accuracy``: majority-vote accuracy at the end, per setting and
  condition (Tables V and VI), with n and a Wilson 95% interval; also
  ``initial_accuracy`` (the majority of the assigned initial answers, a
  check that the settings were realised);
* ``trajectories``: intermediate-answer accuracy against cumulative public
  tokens on a grid (default every 25 tokens), majority and per agent
  (Figures 1-8). The point 0 shows the initial answers; at each later grid
  point a debate contributes the answers of its last plans made at or below
  that token count (its last answers after it ended). The majority counts as
  correct only when the correct answer has strictly more votes than any
  other (a tie is not correct, as in the authors' analysis); a missing
  answer counts as incorrect, so n is the number of debates at every point;
* ``effect_table``: interruption or completion effects (Tables VII-X) as
  event-level proportions over the evaluated (not excluded) events;
* ``interruption_bins``: improve and worsen success rates of interruptions
  per 50-token bin (Figure 9), over evaluated events, by the public tokens at
  the interruption;
* ``costs``: per-debate counts and costs, summed and averaged per condition.

What it does not do: draw or write anything (``figures`` and ``report`` do).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from debate_core.config import Condition
from debate_core.events import DebateEnded, DebateStarted, Event, InitialAnswersGiven
from debate_core.status import DebateStatus
from experiments.accuracy import Accuracy
from protocols.kimura.study.metrics import BIN_WIDTH, Effect, Kind, Outcome, effects, intermediate_answers, token_bin
from protocols.kimura.study.pool import AGENTS, Setting
from protocols.kimura.study.spec import StudySpec
from storage import Store
from storage.experiments import ExperimentRecord, RunRecord

DEFAULT_STEP = 25


@dataclass(frozen=True)
class DebateResult:
    run: RunRecord
    setting: Setting
    condition: Condition
    correct_answer: str
    events: tuple[Event, ...]

    @property
    def ended(self) -> DebateEnded:
        last = self.events[-1]
        assert isinstance(last, DebateEnded)
        return last

    @property
    def started(self) -> DebateStarted:
        first = self.events[0]
        assert isinstance(first, DebateStarted)
        return first


@dataclass(frozen=True)
class StudyData:
    record: ExperimentRecord
    spec: StudySpec
    debates: tuple[DebateResult, ...]
    unfinished: tuple[RunRecord, ...] = ()

    def cells(self, setting: Setting, condition: Condition) -> list[DebateResult]:
        return [d for d in self.debates if d.setting is setting and d.condition is condition]

    @property
    def settings(self) -> tuple[Setting, ...]:
        return self.spec.settings

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return self.spec.conditions


def load_study(store: Store, experiment_id: str) -> StudyData:
    record = store.experiments.get(experiment_id)
    if record is None:
        known = ", ".join(r.id for r in store.experiments.all()) or "none"
        raise KeyError(f"no experiment {experiment_id!r} in the store (known: {known})")
    spec = StudySpec.model_validate(record.spec)
    finished, unfinished = [], []
    for run in store.experiments.runs(experiment_id):
        try:
            summary = store.debate(run.debate_id)
        except KeyError:
            unfinished.append(run)
            continue
        if summary.status != DebateStatus.FINISHED or summary.correct_answer is None:
            unfinished.append(run)
            continue
        events = tuple(store.events(run.debate_id))
        finished.append(
            DebateResult(run, Setting(run.setting), Condition(run.condition), summary.correct_answer, events)
        )
    return StudyData(record, spec, tuple(finished), tuple(unfinished))


# -- accuracy ------------------------------------------------------------------
def majority_correct(answers: Iterable[str | None], correct: str) -> bool:
    """True when the correct answer has strictly more votes than any other answer."""
    votes = Counter(a for a in answers if a)
    right = votes.pop(correct, 0)
    return right > 0 and right > max(votes.values(), default=0)


def final_accuracy(data: StudyData, setting: Setting, condition: Condition) -> Accuracy:
    cell = data.cells(setting, condition)
    return Accuracy(sum(bool(d.ended.correct) for d in cell), len(cell))


def initial_accuracy(data: StudyData, setting: Setting, condition: Condition) -> Accuracy:
    cell = data.cells(setting, condition)
    right = 0
    for debate in cell:
        given = next(e for e in debate.events if isinstance(e, InitialAnswersGiven))
        right += majority_correct((a.answer for a in given.answers), debate.correct_answer)
    return Accuracy(right, len(cell))


# -- trajectories ----------------------------------------------------------------
def answers_on_grid(events: Sequence[Event], grid: Sequence[int]) -> list[dict[str, str | None]]:
    """Every agent's answer in effect at each token count of ``grid`` (carried forward).

    The point 0 shows the initial answers (the conditioned state, as in the
    authors' analysis); any later point the answers of the last plans made at
    or below it, so plans made before anything was said count from the first
    point after 0.
    """
    given = next((e for e in events if isinstance(e, InitialAnswersGiven)), None)
    initial: dict[str, str | None] = {a.agent: a.answer for a in given.answers} if given else {}
    steps = [(tokens, answers) for _, tokens, answers in intermediate_answers(events)]
    steps += [(e.public_tokens, {a.agent: a.answer for a in e.answers}) for e in events if isinstance(e, DebateEnded)]
    out: list[dict[str, str | None]] = []
    position, current = 0, initial
    for point in grid:
        if point <= 0:
            out.append(initial)
            continue
        while position < len(steps) and steps[position][0] <= point:
            current = steps[position][1]
            position += 1
        out.append(current)
    return out


@dataclass(frozen=True)
class Trajectory:
    grid: tuple[int, ...]
    majority: tuple[Accuracy, ...]
    agents: dict[str, tuple[Accuracy, ...]] = field(default_factory=dict)


def grid_for(budget: int, step: int = DEFAULT_STEP) -> tuple[int, ...]:
    points = list(range(0, budget + 1, step))
    if points[-1] != budget:
        points.append(budget)
    return tuple(points)


def trajectory(debates: Sequence[DebateResult], budget: int, step: int = DEFAULT_STEP) -> Trajectory:
    grid = grid_for(budget, step)
    majority = [0] * len(grid)
    agents = {name: [0] * len(grid) for name in AGENTS}
    for debate in debates:
        for i, answers in enumerate(answers_on_grid(debate.events, grid)):
            majority[i] += majority_correct(answers.values(), debate.correct_answer)
            for name in agents:
                agents[name][i] += answers.get(name) == debate.correct_answer
    n = len(debates)
    return Trajectory(
        grid,
        tuple(Accuracy(c, n) for c in majority),
        {name: tuple(Accuracy(c, n) for c in counts) for name, counts in agents.items()},
    )


def trajectories(data: StudyData, step: int = DEFAULT_STEP) -> dict[tuple[Setting, Condition], Trajectory]:
    return {
        (s, c): trajectory(data.cells(s, c), data.spec.token_budget, step)
        for s in data.settings
        for c in data.conditions
    }


# -- effects ---------------------------------------------------------------------
def study_effects(debates: Iterable[DebateResult]) -> list[Effect]:
    return [effect for debate in debates for effect in effects(debate.events, debate.correct_answer)]


@dataclass(frozen=True)
class EffectTable:
    kind: Kind
    events: int
    excluded: int
    improved: Accuracy
    worsened: Accuracy
    unchanged: Accuracy

    @property
    def evaluated(self) -> int:
        return self.improved.n


def effect_table(data: StudyData, kind: Kind, setting: Setting, condition: Condition) -> EffectTable:
    found = [e for e in study_effects(data.cells(setting, condition)) if e.kind is kind]
    evaluated = [e for e in found if e.outcome is not Outcome.EXCLUDED]
    n = len(evaluated)

    def share(outcome: Outcome) -> Accuracy:
        return Accuracy(sum(e.outcome is outcome for e in evaluated), n)

    return EffectTable(
        kind, len(found), len(found) - n, share(Outcome.IMPROVED), share(Outcome.WORSENED), share(Outcome.UNCHANGED)
    )


@dataclass(frozen=True)
class Bin:
    low: int
    high: int
    improve: Accuracy  # of interruptions by a correct interrupter, those that improved
    worsen: Accuracy  # of interruptions by an incorrect interrupter, those that worsened


def interruption_bins(data: StudyData, setting: Setting, width: int = BIN_WIDTH) -> list[Bin]:
    """Figure 9: success rates per bin of public tokens at the interruption (evaluated events)."""
    found = [
        e
        for e in study_effects(data.cells(setting, Condition.INTERRUPTIBLE))
        if e.kind is Kind.INTERRUPTION and e.outcome is not Outcome.EXCLUDED
    ]
    bins = []
    for low in range(0, max(data.spec.token_budget, 1), width):
        inside = [e for e in found if token_bin(e.public_tokens, width)[0] == low]
        right = [e for e in inside if e.speaker_correct]
        wrong = [e for e in inside if not e.speaker_correct]
        bins.append(
            Bin(
                low,
                low + width - 1,
                Accuracy(sum(e.outcome is Outcome.IMPROVED for e in right), len(right)),
                Accuracy(sum(e.outcome is Outcome.WORSENED for e in wrong), len(wrong)),
            )
        )
    return bins


# -- counts and costs --------------------------------------------------------------
COST_FIELDS = (
    "turns",
    "silent_turns",
    "utterances",
    "interruptions",
    "completions",
    "invalid_plans",
    "model_calls",
    "batches",
    "generated_tokens",
    "prompt_tokens",
    "wall_time_s",
)


@dataclass(frozen=True)
class Costs:
    debates: int
    totals: dict[str, float]
    public_tokens: int

    def mean(self, name: str) -> float:
        if name == "public_tokens":
            return self.public_tokens / self.debates if self.debates else 0.0
        return self.totals[name] / self.debates if self.debates else 0.0


def costs(debates: Sequence[DebateResult]) -> Costs:
    totals = {name: 0.0 for name in COST_FIELDS}
    for debate in debates:
        stats = debate.ended.stats
        for name in COST_FIELDS:
            totals[name] += getattr(stats, name)
    return Costs(len(debates), totals, sum(d.ended.public_tokens for d in debates))
