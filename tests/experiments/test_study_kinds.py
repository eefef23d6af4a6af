"""Study kinds: what the Analysis tab and ``python -m experiments report`` show of an experiment.

The harness's own kind shows a comparison; Kimura's plugin brings its paper study (and its ``run``
command); a newcomer's kind comes in through ``register_study_kinds`` (this module is that plugin,
loaded through ``DEBATE_PLUGINS``); an experiment no kind handles is refused by name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from debate_core.backends import factory
from debate_core.plugins import hookimpl
from debate_core.protocols import registry
from experiments import extensions
from experiments.cli import BUILT_IN, main
from experiments.compare import CompareRunner, CompareSpec, Item
from protocols.kimura.study.runner import StudyRunner
from protocols.kimura.tests.test_runner import backend_for, questions, spec
from storage import Store
from storage.experiments import ExperimentRecord
from tests.conftest import QUESTION

PLUGIN = "tests.experiments.test_study_kinds"


def _tally_view(store: Store, record: ExperimentRecord, step: int) -> extensions.StudyView:
    return extensions.StudyView(f"# Tally of {record.id} (grid {step})", (), [["d1", "q", "s", "-", "c", "A", "yes"]])


def _tally_write(
    store: Store, record: ExperimentRecord, folder: Path, options: extensions.ReportOptions
) -> extensions.WrittenReport:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.md").write_text(f"tally, png={options.png}, step={options.step}\n")
    return extensions.WrittenReport(f"tallied into {folder}", ("a warning",))


@hookimpl
def register_study_kinds(register: Callable[[object], object]) -> None:
    register(extensions.StudyKind("tally", lambda r: r.spec.get("kind") == "tally", _tally_view, _tally_write))
    register(extensions.StudyKind("compare", lambda r: True, _tally_view, _tally_write))  # taken: left out


def compare_study(store: Store) -> None:
    """Parliament's four systems on two questions, scripted."""

    def demo(config):
        return factory.make_backend(factory.BackendSpec("scripted"), config)

    study = CompareSpec(experiment_id="browser-compare", mmlu=2, strategyqa=0)
    items = [
        Item("mmlu", f"mmlu:{i}", "toy", QUESTION.model_copy(update={"text": f"{QUESTION.text} ({i})"})) for i in (1, 2)
    ]
    CompareRunner(study, store, demo(study.config(items[0], study.systems[0])), items, per_debate=demo).run()


@pytest.fixture
def store(tmp_path: Path):
    opened = Store(tmp_path / "kinds.sqlite3")
    qs = questions(6)
    StudyRunner(spec(experiment_id="paper", questions=1), opened, backend_for(qs), questions=qs).run()
    compare_study(opened)
    opened.experiments.create("tally-1", model_id="scripted", pool_key="-", spec={"kind": "tally"})
    opened.experiments.create("tree-1", model_id="scripted", pool_key="-", spec={"kind": "tree"})
    yield opened
    opened.close()


@pytest.fixture
def plugged(monkeypatch):
    monkeypatch.setenv("DEBATE_PLUGINS", PLUGIN)
    registry.reload()
    yield
    monkeypatch.delenv("DEBATE_PLUGINS")
    registry.reload()


def test_kimuras_plugin_brings_the_run_command_and_the_harness_keeps_only_generic_ones():
    assert "run" not in BUILT_IN
    assert "run" in {command.name for command in extensions.commands(BUILT_IN)}
    assert [kind.name for kind in extensions.study_kinds()][:2] == ["compare", "paper-study"]


def test_each_experiment_is_shown_by_its_kind(store):
    paper = extensions.study_kind_for(store.experiments.get("paper"))
    assert paper is not None and paper.name == "paper-study"
    view = paper.view(store, store.experiments.get("paper"), 25)
    assert "Tables V and VI" in view.markdown and "scripted-study" in view.markdown
    assert len(view.figures) >= 11
    assert len(view.debates) == 2 * 3 and {row[4] for row in view.debates} >= {"Fixed order"}

    compare = extensions.study_kind_for(store.experiments.get("browser-compare"))
    assert compare is not None and compare.name == "compare"
    view = compare.view(store, store.experiments.get("browser-compare"), 25)
    assert "Comparison study" in view.markdown and view.figures == ()
    assert len(view.debates) == 2 * 4 and all(row[4].startswith("parliament/") for row in view.debates)

    assert extensions.study_kind_for(store.experiments.get("tree-1")) is None


def test_report_writes_through_the_kind_and_refuses_an_unknown_one(store, tmp_path, capsys):
    db = str(tmp_path / "kinds.sqlite3")
    assert main(["report", "browser-compare", "--db", db, "--out", str(tmp_path / "cmp")]) == 0
    assert "debates.csv" in capsys.readouterr().out and (tmp_path / "cmp" / "report.md").exists()
    assert main(["report", "tree-1", "--db", db, "--out", str(tmp_path / "tree")]) == 2
    assert "is of a kind no plugin reports" in capsys.readouterr().out
    assert main(["report", "nothing", "--db", db]) == 2
    assert "no experiment 'nothing' in the store (known:" in capsys.readouterr().out


def test_a_plugins_study_kind_is_shown_and_reported_and_a_taken_name_left_out(plugged, store, tmp_path, capsys):
    from debate_core.plugins import problems

    assert [kind.name for kind in extensions.study_kinds()].count("compare") == 1
    assert any("'compare' in register_study_kinds, which is taken" in p for p in problems())
    record = store.experiments.get("tally-1")
    kind = extensions.study_kind_for(record)
    assert kind is not None and kind.view(store, record, 40).markdown == "# Tally of tally-1 (grid 40)"
    db = str(tmp_path / "kinds.sqlite3")
    out = tmp_path / "tally"
    assert main(["report", "tally-1", "--db", db, "--out", str(out), "--no-png", "--step", "50"]) == 0
    printed = capsys.readouterr().out
    assert "tallied into" in printed and "a warning" in printed
    assert (out / "report.md").read_text() == "tally, png=False, step=50\n"
