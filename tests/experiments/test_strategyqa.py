"""The StrategyQA loader: files, the cache, and the fetch (its extraction only: no test touches the network)."""

from __future__ import annotations

import io
import json
import logging
import shutil
import tarfile
from pathlib import Path

import pytest

from experiments import sdist, strategyqa
from experiments.strategyqa import (
    ARCHIVE_NAME,
    EXPECTED_EXAMPLES,
    MEMBER,
    StrategyQaError,
    StrategyQaQuestion,
    fetch_strategyqa,
    load_strategyqa,
    parse_rows,
    sample,
)

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "strategyqa_sample.json"


def _no_network(*args: object, **kwargs: object) -> None:
    raise AssertionError("a StrategyQA test tried to download")


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Every way out of the module fails the test: pip, urllib and the fetch itself."""
    monkeypatch.setattr(sdist.subprocess, "run", _no_network)
    monkeypatch.setattr(sdist.urllib.request, "urlopen", _no_network)
    monkeypatch.setattr(strategyqa, "fetch_strategyqa", _no_network)


def write_rows(path: Path, rows: list[object]) -> Path:
    path.write_text(json.dumps({"examples": rows}), encoding="utf-8")
    return path


def row(question: str, answer: str, because: str = "Because.") -> dict[str, object]:
    scores = {"Yes": int(answer == "Yes"), "No": int(answer == "No")}
    return {"input": question, "target_scores": scores, "target": f"{answer}. {because}"}


def test_the_committed_subset_loads_as_24_yes_no_questions_with_their_explanations():
    questions = load_strategyqa(FIXTURE)
    assert len(questions) == 24
    assert [q.index for q in questions] == list(range(24))
    first = questions[0]
    assert first.text == "Is it common to see frost during some college commencements?"
    assert first.answer == "Yes" and first.explanation.startswith("College commencement ceremonies")
    assert [q.answer for q in questions].count("Yes") == 10
    for q in questions:
        posed = q.question()
        assert posed.options == ("Yes", "No")
        assert posed.answer == {"Yes": "A", "No": "B"}[q.answer]
        assert q.explanation and not q.explanation.lower().startswith(("yes", "no"))
    assert json.loads(FIXTURE.read_text(encoding="utf-8"))["total_examples"] == EXPECTED_EXAMPLES


def test_sampling_is_seeded_and_reproducible():
    questions = load_strategyqa(FIXTURE)
    first = sample(questions, 5, seed=7)
    assert first == sample(questions, 5, seed=7)
    assert first != sample(questions, 5, seed=8)
    assert len({q.index for q in first}) == 5
    assert sample(questions, 5) == sample(questions, 5, seed=0)
    with pytest.raises(StrategyQaError, match="only 24"):
        sample(questions, 25)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"examples": [{"input": "Is it?",', "not JSON"),
        ('{"examples": 3}', "'examples' is not a list"),
        ("42", "got int"),
        ('{"question": "Is it?", "answer": "yes"}\n{"question": "Is', "line 2"),
    ],
)
def test_a_malformed_file_is_an_error_naming_it(tmp_path, content, reason):
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(StrategyQaError, match=reason) as raised:
        load_strategyqa(path)
    assert str(path) in str(raised.value)


def test_a_missing_or_undecodable_file_is_an_error_naming_it(tmp_path):
    with pytest.raises(StrategyQaError, match=r"nowhere\.json"):
        load_strategyqa(tmp_path / "nowhere.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(StrategyQaError, match=r"binary\.json"):
        load_strategyqa(binary)


def test_rows_without_one_clear_yes_or_no_are_skipped_counted_and_logged(tmp_path, caplog):
    rows: list[object] = [
        row("Is ice cold?", "Yes"),
        {"input": "Both?", "target_scores": {"Yes": 1, "No": 1}, "target": "Yes. Maybe."},
        {"input": "Neither?", "target_scores": {"Yes": 0, "No": 0}},
        {"input": "Disagreeing?", "target_scores": {"Yes": 1, "No": 0}, "target": "No. It is not."},
        {"input": "Unscored?", "target_scores": {"Yes": "1", "No": None}},
        {"input": "No answer at all?"},
        {"target_scores": {"Yes": 1, "No": 0}, "target": "Yes. No question."},
        {"input": "   ", "target_scores": {"Yes": 1, "No": 0}},
        "not a row",
        row("Is fire cold?", "No"),
    ]
    with caplog.at_level(logging.WARNING, logger="experiments"):
        questions = load_strategyqa(write_rows(tmp_path / "task.json", rows))
    assert [(q.index, q.text, q.answer) for q in questions] == [(0, "Is ice cold?", "Yes"), (9, "Is fire cold?", "No")]
    assert "skipped 8 of 10 rows" in caplog.text and "task.json" in caplog.text
    with pytest.raises(StrategyQaError, match="no StrategyQA question"):
        load_strategyqa(write_rows(tmp_path / "none.json", rows[1:3]))


def test_json_lines_of_question_and_answer_are_accepted(tmp_path):
    lines = [
        {"question": "Is the sky green?", "answer": False, "facts": ["The sky is blue.", "Blue is not green."]},
        {"question": "Is water wet?", "answer": "yes", "explanation": "It is."},
        {"question": "Is this clear?", "answer": "maybe"},
    ]
    path = tmp_path / "strategyqa.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    questions = load_strategyqa(path)
    assert questions == [
        StrategyQaQuestion(0, "Is the sky green?", "No", "The sky is blue. Blue is not green."),
        StrategyQaQuestion(1, "Is water wet?", "Yes", "It is."),
    ]
    assert [q.question().answer for q in questions] == ["B", "A"]
    assert parse_rows(lines[:1]) == questions[:1]


def test_loading_a_named_file_never_fetches(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_DATA_CACHE", str(tmp_path / "empty-cache"))
    assert len(load_strategyqa(FIXTURE)) == 24
    assert len(load_strategyqa(str(FIXTURE), cache=tmp_path / "also-empty")) == 24
    assert not (tmp_path / "empty-cache").exists() and not (tmp_path / "also-empty").exists()


def test_the_cache_is_used_when_present(tmp_path, monkeypatch):
    folder = tmp_path / "cache-folder"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / "task.json")
    assert len(load_strategyqa(cache=folder)) == 24
    monkeypatch.setenv("DEBATE_DATA_CACHE", str(tmp_path / "root"))
    (tmp_path / "root" / "strategyqa").mkdir(parents=True)
    shutil.copy(FIXTURE, tmp_path / "root" / "strategyqa" / "task.json")
    assert len(load_strategyqa()) == 24


def test_nothing_cached_and_no_fetch_says_to_pass_a_file(tmp_path):
    with pytest.raises(StrategyQaError, match="--data") as raised:
        load_strategyqa(cache=tmp_path, fetch=False)
    assert str(tmp_path / "task.json") in str(raised.value)


def test_nothing_cached_fetches_into_the_cache(tmp_path, monkeypatch):
    calls: list[Path] = []

    def fake_fetch(folder: Path) -> Path:
        calls.append(folder)
        shutil.copy(FIXTURE, folder / "task.json")
        return folder / "task.json"

    monkeypatch.setattr(strategyqa, "fetch_strategyqa", fake_fetch)
    assert len(load_strategyqa(cache=tmp_path)) == 24
    assert calls == [tmp_path]
    assert len(load_strategyqa(cache=tmp_path)) == 24 and calls == [tmp_path]  # the second load reads the cache


def fake_archive(path: Path, *, with_member: bool = True) -> Path:
    """A small tar.gz laid out like bigbench's source archive."""
    members = {"bigbench-1.0.0/setup.py": b"raise SystemExit('never run')\n"}
    if with_member:
        members[MEMBER] = FIXTURE.read_bytes()
    members["bigbench-1.0.0/bigbench/benchmark_tasks/other/task.json"] = b"{}"
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("keep", [False, True])
def test_the_fetch_extracts_one_member_atomically_and_deletes_the_archive_unless_kept(tmp_path, monkeypatch, keep):
    monkeypatch.setattr(sdist, "download_sdist", lambda project, version, workdir: fake_archive(workdir / ARCHIVE_NAME))
    cache = tmp_path / "cache"
    target = fetch_strategyqa(cache, keep_archive=keep)
    assert target == cache / "task.json"
    assert target.read_bytes() == FIXTURE.read_bytes()
    expected = {"task.json", ARCHIVE_NAME} if keep else {"task.json"}
    assert {p.name for p in cache.iterdir()} == expected  # no temporary folder or partial file left


def test_a_kept_archive_is_reused_without_downloading(tmp_path, monkeypatch):
    monkeypatch.setattr(sdist, "download_sdist", _no_network)
    fake_archive(tmp_path / ARCHIVE_NAME)
    assert fetch_strategyqa(tmp_path).read_bytes() == FIXTURE.read_bytes()


def test_an_archive_without_strategyqa_leaves_the_cache_untouched(tmp_path, monkeypatch):
    monkeypatch.setattr(
        sdist,
        "download_sdist",
        lambda project, version, workdir: fake_archive(workdir / ARCHIVE_NAME, with_member=False),
    )
    with pytest.raises(StrategyQaError, match="has no"):
        fetch_strategyqa(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_an_unreachable_index_is_a_clear_error(tmp_path, monkeypatch):
    def unreachable(project: str, version: str, workdir: Path) -> Path:
        raise sdist.SdistError("connection refused")

    monkeypatch.setattr(sdist, "_pip_download", unreachable)
    monkeypatch.setattr(sdist, "_index_download", unreachable)
    with pytest.raises(StrategyQaError, match=r"cannot download bigbench==1\.0\.0.*--data") as raised:
        fetch_strategyqa(tmp_path)
    assert "connection refused" in str(raised.value)
    assert list(tmp_path.iterdir()) == []
