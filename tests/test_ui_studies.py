"""The studies committed under docs/studies, offered by the Analysis and Replay tabs read-only (issue #30, item 15).

The browser opens one and replays a debate of it in ``tests/browser/test_wording_defects.py``.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from debate_core import Debate
from protocols.kimura.demo import demo_backend, demo_config
from storage import Store
from ui.studies import APP, DOCS_STUDIES, StudyLibrary, committed, decompress


def a_study(root: Path, name: str = "tiny-study", debates: int = 2) -> Path:
    """A committed-study folder under ``root``: a report and a gzipped store of ``debates`` demo debates."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "report.md").write_text(f"# Comparison study `{name}`\n\nTwo demo debates.\n", encoding="utf-8")
    plain = root / f"{name}.sqlite3"
    store = Store(plain)
    for seed in range(debates):
        config = demo_config(seed=seed, token_budget=60)
        for _ in store.record(Debate(config, demo_backend(config)).events(), experiment_id=None):
            pass
    store.close()
    with plain.open("rb") as source, gzip.open(folder / "study.sqlite3.gz", "wb") as out:
        shutil.copyfileobj(source, out)
    for leftover in root.glob(f"{name}.sqlite3*"):
        leftover.unlink()
    return folder


def test_the_committed_studies_are_listed_with_their_reports_and_databases():
    studies = {study.name: study for study in committed(DOCS_STUDIES)}
    with_debates = {name for name, study in studies.items() if study.database is not None}
    on_disk = {path.parent.name for path in DOCS_STUDIES.glob("*/study.sqlite3.gz")}
    assert with_debates == on_disk and len(on_disk) >= 6
    assert all(study.report.name in ("report.md", "README.md") and study.title for study in studies.values())
    # a study of several experiments (a report per sub-folder) shows its README over them
    assert studies["handraiser-tasks-smollm2"].report.name == "README.md"
    assert studies["ace-smollm2"].title == "Comparison study ace-smollm2"
    report_only = [study for study in studies.values() if study.database is None]
    assert all(study.label.endswith("(report only)") for study in report_only)
    library = StudyLibrary(object())
    assert library.choices()[0] == ("this app's own debates and experiments", APP)
    assert {value for _, value in library.choices(debates_only=True)} == {APP, *on_disk}


def test_a_study_is_decompressed_once_and_opened_without_touching_the_committed_file(tmp_path):
    root, cache = tmp_path / "studies", tmp_path / "cache"
    folder = a_study(root)
    committed_bytes = (folder / "study.sqlite3.gz").read_bytes()
    app_store = Store(tmp_path / "app.sqlite3")
    library = StudyLibrary(app_store, root=root, cache=cache)
    assert library.store(APP) is app_store and library.store(None) is app_store and library.report(APP) == ""
    store = library.store("tiny-study")
    assert library.store("tiny-study") is store  # kept open
    listed = store.list_debates()
    assert len(listed) == 2 and {d.status for d in listed} == {"finished"}
    assert store.events(listed[0].id)[-1].type == "debate_ended"  # replayable
    [copy] = cache.glob("tiny-study-*.sqlite3")
    written = copy.stat().st_mtime_ns
    again = StudyLibrary(app_store, root=root, cache=cache)  # the next start of the app, or another process
    assert again.store("tiny-study").list_debates()[0].id in {d.id for d in listed}
    assert copy.stat().st_mtime_ns == written and len(list(cache.glob("tiny-study-*.sqlite3"))) == 1
    assert not list(cache.glob("*.part"))
    assert (folder / "study.sqlite3.gz").read_bytes() == committed_bytes
    assert app_store.list_debates() == []  # the app's store is not where a study's debates went
    assert library.report("tiny-study").startswith("# Comparison study `tiny-study`")
    library.close()
    again.close()
    app_store.close()


def test_a_changed_archive_is_decompressed_anew(tmp_path):
    root, cache = tmp_path / "studies", tmp_path / "cache"
    a_study(root, debates=1)
    [study] = committed(root)
    first = decompress(study, cache)
    shutil.rmtree(root)
    a_study(root, debates=2)
    [changed] = committed(root)
    second = decompress(changed, cache)
    assert first != second and first.exists() and second.exists()  # named by content: a new commit, a new copy


def test_only_a_listed_study_is_opened_never_a_path(tmp_path):
    root = tmp_path / "studies"
    a_study(root)
    (root / "notes").mkdir()  # no report: not a study
    library = StudyLibrary(object(), root=root, cache=tmp_path / "cache")
    assert [value for _, value in library.choices()] == [APP, "tiny-study"]
    for bad in ("../studies/tiny-study", "/etc", "notes", "tiny-study/../tiny-study", "x" * 10_000):
        with pytest.raises(KeyError, match="no committed study"):
            library.store(bad)
    (root / "report-only").mkdir()
    (root / "report-only" / "report.md").write_text("# Only a report\n", encoding="utf-8")
    with pytest.raises(KeyError, match="only its report"):
        StudyLibrary(object(), root=root, cache=tmp_path / "cache").store("report-only")
    assert committed(tmp_path / "missing") == []


def test_a_folder_of_several_reports_is_listed_by_its_readme_only_with_a_database(tmp_path):
    folder = a_study(tmp_path, "two-tasks")
    (folder / "report.md").unlink()
    (folder / "README.md").write_text("# Two tasks, one study\n\nSee each sub-folder.\n", encoding="utf-8")
    notes = tmp_path / "notes-only"
    notes.mkdir()
    (notes / "README.md").write_text("# Just a page\n", encoding="utf-8")
    studies = {study.name: study for study in committed(tmp_path)}
    assert set(studies) == {"two-tasks"}  # a README without a database is no study
    assert studies["two-tasks"].title == "Two tasks, one study" and studies["two-tasks"].database is not None
