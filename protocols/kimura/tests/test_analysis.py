"""The study's numbers: trajectories on a token grid, majority ties, effect tables, Figure 9's bins."""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_core.config import Condition
from debate_core.events import (
    AgentAnswer,
    DebateEnded,
    EndReason,
    InitialAnswer,
    InitialAnswersGiven,
    PlansMade,
    Source,
)
from protocols.kimura.study.analysis import (
    answers_on_grid,
    costs,
    effect_table,
    final_accuracy,
    grid_for,
    initial_accuracy,
    interruption_bins,
    load_study,
    majority_correct,
    trajectories,
)
from protocols.kimura.study.metrics import Kind
from protocols.kimura.study.pool import Setting
from protocols.kimura.study.runner import StudyRunner
from protocols.kimura.tests.test_runner import backend_for, questions, spec
from storage import Store


def plans(turn: int, tokens: int, answers: dict[str, str | None]) -> PlansMade:
    return PlansMade(
        seq=turn + 2,
        turn=turn,
        public_tokens=tokens,
        at=0.0,
        plans=(),
        answers=tuple(AgentAnswer(agent=a, answer=x) for a, x in answers.items()),
        floor_holder=None,
        batch_latency_s=0.0,
    )


def test_answers_are_carried_forward_on_the_token_grid() -> None:
    initial = InitialAnswersGiven(
        seq=1,
        turn=0,
        public_tokens=0,
        at=0.0,
        answers=tuple(
            InitialAnswer(agent=a, answer=x, reason="", source=Source.SUPPLIED)
            for a, x in {"Alex": "A", "Chris": "A", "Jenny": "B"}.items()
        ),
    )
    events = [
        initial,
        plans(0, 0, {"Alex": "A", "Chris": "A", "Jenny": "B"}),
        plans(1, 30, {"Alex": "B", "Chris": "A", "Jenny": "B"}),
        plans(2, 50, {"Alex": "B", "Chris": "B", "Jenny": "B"}),
        DebateEnded(
            seq=9,
            turn=2,
            public_tokens=50,
            at=0.0,
            reason=EndReason.SILENCE,
            final_answer="B",
            votes=(),
            answers=tuple(AgentAnswer(agent=a, answer="B") for a in ("Alex", "Chris", "Jenny")),
        ),
    ]
    events.insert(2, plans(1, 0, {"Alex": "C", "Chris": "A", "Jenny": "B"}))  # changed in a silent turn
    grid = [0, 25, 30, 49, 50, 100]
    on_grid = answers_on_grid(events, grid)
    # 0 is the initial state; a change before anything was said shows from the next point
    assert [row["Alex"] for row in on_grid] == ["A", "C", "B", "B", "B", "B"]  # at 30 the new plan counts
    assert [row["Chris"] for row in on_grid] == ["A", "A", "A", "A", "B", "B"]  # after the end: carried
    assert grid_for(150, 25) == (0, 25, 50, 75, 100, 125, 150)
    assert grid_for(60, 25) == (0, 25, 50, 60)  # the budget itself is always a point


def test_a_tied_majority_is_not_correct() -> None:
    assert majority_correct(["B", "B", "A"], "B")
    assert not majority_correct(["A", "B", "C"], "B")  # a three-way tie
    assert not majority_correct(["B", "A", None, "A"], "B")
    assert not majority_correct(["B", "B", "A", "A"], "B")
    assert majority_correct(["B", None, None], "B")
    assert not majority_correct([None, None, None], "B")


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("study") / "s.sqlite3"
    store = Store(path)
    qs = questions(8)
    StudyRunner(spec(questions=4, token_budget=80), store, backend_for(qs), questions=qs).run()
    yield load_study(store, "toy")
    store.close()


def test_a_study_is_read_back_with_every_cell(study) -> None:
    assert len(study.debates) == 4 * 2 * 3
    assert not study.unfinished
    for setting in Setting:
        for condition in Condition:
            assert len(study.cells(setting, condition)) == 4
            assert final_accuracy(study, setting, condition).n == 4
    # the assigned initial answers realise each setting
    assert initial_accuracy(study, Setting.TWO_INCORRECT, Condition.FIXED).value == 0.0
    assert initial_accuracy(study, Setting.ONE_INCORRECT, Condition.FIXED).value == 1.0


def test_trajectories_start_from_the_settings_and_count_every_debate(study) -> None:
    paths = trajectories(study, step=20)
    for (setting, _), path in paths.items():
        assert path.grid[0] == 0 and path.grid[-1] == 80
        assert all(point.n == 4 for point in path.majority)
        # at zero tokens, the conditioned state: Jenny right and Alex wrong in both settings
        assert path.agents["Jenny"][0].value == 1.0
        assert path.agents["Alex"][0].value == 0.0
        expected_chris = 1.0 if setting is Setting.ONE_INCORRECT else 0.0
        assert path.agents["Chris"][0].value == expected_chris


def test_effect_tables_and_bins_add_up(study) -> None:
    for setting in Setting:
        table = effect_table(study, Kind.INTERRUPTION, setting, Condition.INTERRUPTIBLE)
        cells = study.cells(setting, Condition.INTERRUPTIBLE)
        assert table.events == sum(d.ended.stats.interruptions for d in cells)
        assert table.evaluated + table.excluded == table.events
        assert table.improved.correct + table.worsened.correct + table.unchanged.correct == table.evaluated
        bins = interruption_bins(study, setting)
        assert [(b.low, b.high) for b in bins] == [(0, 49), (50, 99)]
        assert sum(b.improve.n + b.worsen.n for b in bins) == table.evaluated
        fixed = effect_table(study, Kind.COMPLETION, setting, Condition.FIXED)
        assert fixed.events == sum(d.ended.stats.completions for d in study.cells(setting, Condition.FIXED))
        assert effect_table(study, Kind.INTERRUPTION, setting, Condition.FIXED).events == 0


def test_costs_are_per_debate_means_of_the_recorded_statistics(study) -> None:
    cell = study.cells(Setting.TWO_INCORRECT, Condition.INTERRUPTIBLE)
    cost = costs(cell)
    assert cost.debates == 4
    assert cost.mean("turns") == pytest.approx(sum(d.ended.stats.turns for d in cell) / 4)
    assert cost.mean("public_tokens") == pytest.approx(sum(d.ended.public_tokens for d in cell) / 4)


def test_an_unknown_experiment_names_the_known_ones(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite3")
    try:
        with pytest.raises(KeyError, match="known: none"):
            load_study(store, "nope")
    finally:
        store.close()
