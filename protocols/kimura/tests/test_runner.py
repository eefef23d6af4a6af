"""The study runner: pool from the model, cells, identical initial states, resuming, concurrency."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from debate_core.backends.scripted import ScriptedBackend
from debate_core.config import Condition
from debate_core.events import InitialAnswersGiven
from experiments.mmlu import MmluQuestion
from experiments.workers import ExperimentError
from protocols.kimura.study.pool import Setting
from protocols.kimura.study.runner import StudyRunner
from protocols.kimura.study.scripted import UNANIMOUS_MARK, StudyScript
from protocols.kimura.study.spec import StudySpec
from storage import Store


def questions(n: int = 6, unanimous: tuple[int, ...] = ()) -> list[MmluQuestion]:
    return [
        MmluQuestion(
            index=i,
            subject="toy",
            text=f"Toy question {i}?" + (f" {UNANIMOUS_MARK}" if i in unanimous else ""),
            options=("one", "two", "three", "four"),
            answer="ABCD"[i % 4],
        )
        for i in range(n)
    ]


def backend_for(qs: list[MmluQuestion]) -> ScriptedBackend:
    return ScriptedBackend(StudyScript({q.text: q.answer for q in qs}), model_id="scripted-study")


def spec(**overrides) -> StudySpec:
    values = {"experiment_id": "toy", "questions": 2, "token_budget": 60, "max_silent_turns": 3}
    values.update(overrides)
    return StudySpec(**values)


@pytest.fixture
def store(tmp_path: Path):
    opened = Store(tmp_path / "study.sqlite3")
    yield opened
    opened.close()


def test_a_study_runs_every_cell_from_identical_initial_states(store: Store) -> None:
    qs = questions()
    summary = StudyRunner(spec(), store, backend_for(qs), questions=qs).run()

    assert (summary.pool.usable, summary.debates, summary.finished, summary.failed) == (2, 12, 12, 0)
    runs = store.experiments.runs("toy")
    assert len(runs) == 12
    assert {(r.setting, r.condition) for r in runs} == {(s.value, c.value) for s in Setting for c in Condition}
    debates = store.list_debates(experiment_id="toy", limit=100)
    assert len(debates) == 12 and all(d.status == "finished" for d in debates)

    # every condition of a (question, setting) starts from the same assigned answers and reasons
    by_cell: dict[tuple[str, str], set[tuple]] = {}
    for run in runs:
        given = next(e for e in store.events(run.debate_id) if isinstance(e, InitialAnswersGiven))
        state = tuple((a.agent, a.answer, a.reason, a.source.value) for a in given.answers)
        by_cell.setdefault((run.question_key, run.setting), set()).add(state)
        correct = store.debate(run.debate_id).correct_answer
        right = {agent for agent, answer, _, _ in state if answer == correct}
        assert right == ({"Jenny"} if run.setting == Setting.TWO_INCORRECT.value else {"Chris", "Jenny"})
    assert all(len(states) == 1 for states in by_cell.values())
    assert all(source == "supplied" for states in by_cell.values() for s in states for *_, source in s)


def test_the_pool_is_generated_by_the_model_stored_and_filtered(store: Store) -> None:
    qs = questions(unanimous=(0, 2))
    backend = backend_for(qs)
    summary = StudyRunner(spec(questions=6, conditions=(Condition.FIXED,)), store, backend, questions=qs).run()

    pool_requests = [r for r in backend.requests if r.kind == "initial_answer"]
    assert len(pool_requests) == 30  # five samples for each of the six questions
    assert (summary.pool.examined, summary.pool.usable) == (6, 4)  # asked for 6, only 4 have both sides
    record = store.experiments.get("toy")
    assert record is not None
    assert record.notes["pool"]["usable"] == 4
    assert record.notes["pool"]["rate"] == pytest.approx(4 / 6, abs=1e-4)
    assert sorted(key.split(":")[1] for key in record.notes["pool"]["usable_keys"]) == ["1", "3", "4", "5"]
    stored = store.experiments.pool(record.pool_key)
    assert len(stored) == 6 and all(len(answers) == 5 for answers in stored.values())
    assert summary.debates == 4 * 2  # the runner goes on with the usable questions it found


def test_the_threshold_is_the_studys_to_choose(store: Store) -> None:
    qs = questions(n=4)
    strict = spec(questions=4, pool_threshold=3, conditions=(Condition.FIXED,))
    # the stand-in model gives 3 correct and 2 incorrect answers: threshold 3 rejects every question
    with pytest.raises(ExperimentError, match="none of 4 sampled questions"):
        StudyRunner(strict, store, backend_for(qs), questions=qs).run()


def test_a_rerun_skips_finished_debates_and_reuses_the_pool(store: Store) -> None:
    qs = questions()
    StudyRunner(spec(), store, backend_for(qs), questions=qs).run()
    again = backend_for(qs)
    summary = StudyRunner(spec(), store, again, questions=qs).run()
    assert (summary.skipped, summary.finished) == (12, 0)
    assert again.requests == []  # neither the pool nor any debate was generated again


def test_an_unfinished_debate_is_run_again(store: Store) -> None:
    qs = questions()
    StudyRunner(spec(), store, backend_for(qs), questions=qs).run()
    victim = store.experiments.runs("toy")[0].debate_id
    with store.engine.begin() as connection:
        connection.exec_driver_sql("UPDATE debates SET status='incomplete' WHERE id=?", (victim,))
    summary = StudyRunner(spec(), store, backend_for(qs), questions=qs).run()
    assert (summary.skipped, summary.finished) == (11, 1)
    assert store.debate(victim).status == "finished"


def test_a_changed_specification_is_refused_with_the_difference(store: Store) -> None:
    qs = questions()
    StudyRunner(spec(), store, backend_for(qs), questions=qs).run()
    with pytest.raises(ExperimentError, match="token_budget: 60 -> 80"):
        StudyRunner(spec(token_budget=80), store, backend_for(qs), questions=qs).run()


def test_no_usable_question_is_a_clear_error_suggesting_a_lower_threshold(store: Store) -> None:
    qs = questions(n=3, unanimous=(0, 1, 2))
    with pytest.raises(ExperimentError, match="--pool-threshold 1"):
        StudyRunner(spec(), store, backend_for(qs), questions=qs).run()


def test_concurrent_debates_batch_their_calls_and_give_the_same_results(tmp_path: Path) -> None:
    qs = questions()
    alone_store, together_store = Store(tmp_path / "a.sqlite3"), Store(tmp_path / "b.sqlite3")
    try:
        StudyRunner(spec(), alone_store, backend_for(qs), questions=qs).run()
        together = StudyRunner(spec(), together_store, backend_for(qs), questions=qs, concurrency=4, window_s=1.0)
        summary = together.run()
        assert max(summary.batch_sizes) > 3  # plans of several debates went out as one batch
        for run in alone_store.experiments.runs("toy"):
            mine = [(e.type, e.turn, e.public_tokens) for e in alone_store.events(run.debate_id)]
            theirs = [(e.type, e.turn, e.public_tokens) for e in together_store.events(run.debate_id)]
            assert mine == theirs
            assert alone_store.debate(run.debate_id).final_answer == together_store.debate(run.debate_id).final_answer
    finally:
        alone_store.close()
        together_store.close()


def test_stop_ends_running_debates_and_a_rerun_completes_them(store: Store) -> None:
    qs = questions()
    gate = threading.Event()
    script = StudyScript({q.text: q.answer for q in qs})

    def slow(request):
        if request.kind == "plan" and request.turn >= 2:
            gate.wait(timeout=5)
        return script(request)

    runner = StudyRunner(spec(), store, ScriptedBackend(slow, model_id="scripted-study"), questions=qs)
    thread = threading.Thread(target=runner.run)
    thread.start()
    threading.Timer(0.5, lambda: (runner.stop(), gate.set())).start()
    thread.join(timeout=30)
    statuses = [d.status for d in store.list_debates(experiment_id="toy", limit=100)]
    assert statuses and "aborted" in statuses and len(statuses) < 12

    summary = StudyRunner(spec(), store, backend_for(qs), questions=qs).run()
    assert summary.finished + summary.skipped == 12
    assert all(d.status == "finished" for d in store.list_debates(experiment_id="toy", limit=100))


@pytest.mark.parametrize("bad", ["..", "../x", "a/b", "", "x y", ".hidden"])
def test_an_experiment_id_cannot_name_a_path(bad: str) -> None:
    with pytest.raises(ValueError, match=r"experiment id|at least 1 character"):
        spec(experiment_id=bad)


def test_a_debate_still_recorded_by_a_live_process_is_not_touched(store: Store) -> None:
    qs = questions()
    StudyRunner(spec(), store, backend_for(qs), questions=qs).run()
    busy = store.experiments.runs("toy")[0].debate_id
    with store.engine.begin() as connection:  # as if this very process were still recording it
        connection.exec_driver_sql("UPDATE debates SET status='running' WHERE id=?", (busy,))
    with pytest.raises(ExperimentError, match="already running"):
        StudyRunner(spec(), store, backend_for(qs), questions=qs).run()
    assert store.debate(busy).status == "running"


def test_a_low_threshold_keeps_only_questions_that_can_realise_the_settings(store: Store) -> None:
    qs = questions(4)
    script = StudyScript({q.text: q.answer for q in qs})
    calls = {"n": 0}

    def one_right(request):  # of five samples, only the first is correct
        if request.kind != "initial_answer":
            return script(request)
        calls["n"] += 1
        correct = next(q.answer for q in qs if q.text in request.messages[-1].content)
        answer = correct if calls["n"] % 5 == 1 else next(x for x in "ABCD" if x != correct)
        return f'{{"reason": "r", "answer": "{answer}"}}'

    both = spec(questions=2, pool_threshold=1, conditions=(Condition.FIXED,))
    with pytest.raises(ExperimentError, match="with a single setting, --pool-threshold 1"):
        StudyRunner(both, store, ScriptedBackend(one_right, model_id="m"), questions=qs).run()
    # one correct answer is enough for "two incorrect, one correct" on its own
    single = spec(experiment_id="single", questions=2, pool_threshold=1, settings=(Setting.TWO_INCORRECT,))
    summary = StudyRunner(single, store, ScriptedBackend(one_right, model_id="m"), questions=qs).run()
    assert (summary.pool.usable, summary.finished) == (2, 2 * 3)
