"""BIG-Bench Hard from BIG-bench's task files: rows to questions, the cache, the one-pass fetch, and the study.

No test touches the network or the real archive: archives are small ones made here.
"""

from __future__ import annotations

import io
import json
import logging
import tarfile
from pathlib import Path

import pytest

from debate_core.config import MAX_OPTIONS
from experiments import bbh, sdist
from experiments.bbh import (
    ARCHIVE_NAME,
    DEFAULT_TASKS,
    TASK_FILES,
    BbhError,
    BbhQuestion,
    fetch_bbh,
    load_bbh,
    load_task,
    parse_task,
    sample,
)
from experiments.cli import main
from experiments.compare import CompareSpec, bbh_items
from experiments.compare_report import outcomes
from experiments.sdist import SdistError, extract_members
from storage import Store
from tests.experiments.offline import block_downloads

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "bbh_sample"
FIXTURE_TASKS = (*DEFAULT_TASKS, "object_counting")
DOWNLOAD = sdist.download_sdist


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """Every way out fails the test, and no test sees the user's cache or archive."""
    block_downloads(monkeypatch, tmp_path, "DEBATE_BIGBENCH_ARCHIVE")


def said(capsys: pytest.CaptureFixture[str]) -> str:
    """What the command line printed, its lines (wrapped by rich) joined."""
    return " ".join(capsys.readouterr().out.split())


def task_file(path: Path, examples: list[object], **keys: object) -> Path:
    path.write_text(json.dumps({"name": "toy", **keys, "examples": examples}), encoding="utf-8")
    return path


def mc(text: str, right: str, *others: str) -> dict[str, object]:
    return {"input": text, "target_scores": {right: 1, **dict.fromkeys(others, 0)}}


# --- the committed subset -----------------------------------------------------------------


def test_the_committed_subset_is_the_first_six_examples_of_each_task_with_its_provenance():
    for task in FIXTURE_TASKS:
        document = json.loads((FIXTURES / f"{task}.json").read_text(encoding="utf-8"))
        assert len(document["examples"]) == 6
        assert document["total_examples"] == bbh.EXPECTED_EXAMPLES[task]
        assert TASK_FILES[task] in document["source"] and "sha256" in document["source"]
        assert "unchanged" in document["source"]
        assert (FIXTURES / f"{task}.json").stat().st_size < 20_000


def test_multiple_choice_rows_become_labelled_options_with_the_right_label():
    [first, *_] = load_task("tracking_shuffled_objects_three_objects", path=FIXTURES)
    assert first.options == ("orange ball.", "white ball.", "blue ball.")
    assert first.answer == "C"
    posed = first.question()
    assert posed.options == first.options and posed.answer == "C"
    assert posed.render().endswith("Alice has the\nA) orange ball.\nB) white ball.\nC) blue ball.")
    shapes = load_task("geometric_shapes", path=FIXTURES)
    assert [q.answer for q in shapes] == ["C", "F", "I", "F", "D", "G"]
    assert shapes[0].options[2] == "hexagon"


def test_the_task_prefix_comes_first_and_the_input_prefix_where_a_task_has_one(tmp_path):
    penguins = load_task("penguins_in_a_table", path=FIXTURES)
    assert penguins[0].text.startswith("Here is a table where the first line is a header")
    assert penguins[0].text.endswith(
        "For example: the age of Louis is 7, the weight of Gwen is 15 kg, the height of Bernard is 80 cm.\n\n"
        "What animals are listed in the table?"
    )
    assert penguins[0].options[penguins[0].question().labels.index(penguins[0].answer)] == "penguins"
    movies = task_file(
        tmp_path / "movie_recommendation.json",
        [mc("Mission Impossible, Star Wars:", "Austin Powers", "Rosetta")],
        example_input_prefix="\n\nFind a movie similar to ",
    )
    [movie] = load_task("movie_recommendation", path=movies)
    assert movie.text == "Find a movie similar to Mission Impossible, Star Wars:"
    navigate = task_file(
        tmp_path / "navigate.json",
        [mc("Take 1 step. Turn around.", "False", "True")],
        task_prefix="If you follow these instructions, do you return to the starting point?",
    )
    [step] = load_task("navigate", path=navigate)
    assert (
        step.text
        == "If you follow these instructions, do you return to the starting point?\n\nTake 1 step. Turn around."
    )


def test_free_form_rows_take_the_target_or_the_digits_of_a_list(tmp_path):
    counted = load_task("object_counting", path=FIXTURES)  # targets such as ["three", "3"]: BBH poses digits
    assert [q.answer for q in counted] == ["3", "9", "18", "7", "7", "10"]
    first = counted[0].question()
    assert first.options == () and first.answer == "3" and not first.is_multiple_choice
    assert first.text == "I have a clarinet, a violin, and a flute. How many musical instruments do I have?"
    words = task_file(tmp_path / "word_sorting.json", [{"input": "stick gelatine", "target": "gelatine stick"}])
    assert load_task("word_sorting", path=words) == [
        BbhQuestion("word_sorting", 0, "stick gelatine", (), "gelatine stick")
    ]
    assert parse_task([{"input": "b a", "target": ["a b", "a  b"]}], "word_sorting")[0].answer == "a b"  # bare list


def test_the_right_option_is_not_always_first_where_the_file_lists_it_first():
    dates = load_task("date_understanding", path=FIXTURES)
    raw = json.loads((FIXTURES / "date_understanding.json").read_text(encoding="utf-8"))["examples"]
    for question, row in zip(dates, raw, strict=True):
        right = next(option for option, score in row["target_scores"].items() if score == 1)
        assert question.options[question.question().labels.index(question.answer)] == right
        assert sorted(question.options) == sorted(row["target_scores"])
    assert len({q.answer for q in dates}) > 1  # in the file, the right date comes first in every row
    assert load_task("date_understanding", path=FIXTURES) == dates  # the order is seeded by task and row


def test_numbers_offered_as_digits_and_words_are_kept_once_and_a_target_picks_among_right_options(tmp_path):
    rows = [
        {"input": "How many?", "target_scores": {"0": 0, "zero": 0, "1": 0, "one": 0, "2": 1, "two": 1}},
        {
            "input": "This path draws a",
            "target_scores": {"circle": 1, "kite": 0, "ellipse": 1},
            "target": "circle",
        },
        {"input": "Both right, no target?", "target_scores": {"yes": 1, "maybe": 1, "no": 0}},
    ]
    counting, shape = load_task("reasoning_about_colored_objects", path=task_file(tmp_path / "t.json", rows))
    assert (counting.options, counting.answer) == (("zero", "one", "two"), "C")
    assert (shape.options, shape.answer) == (("circle", "kite"), "A")


def test_more_options_than_a_question_takes_is_posed_free_form_with_the_right_option(tmp_path):
    closings = {f"{i} )": 0 for i in range(MAX_OPTIONS + 4)} | {"] }": 1}
    path = task_file(tmp_path / "dyck.json", [{"input": "{ [", "target_scores": closings}], task_prefix="Close it.")
    [dyck] = load_task("dyck_languages", path=path)
    assert (dyck.text, dyck.options, dyck.answer) == ("Close it.\n\n{ [", (), "] }")


def test_unusable_rows_are_skipped_counted_and_logged_keeping_the_others_indexes(tmp_path, caplog):
    rows: list[object] = [
        mc("Fine?", "yes", "no"),
        {"input": "No answer at all?"},
        {"input": "Two right?", "target_scores": {"a": 1, "b": 1}},
        {"input": "Nothing right?", "target_scores": {"a": 0, "b": 0}},
        {"input": "Words as scores?", "target_scores": {"a": "1", "b": "0"}},
        {"input": "One option?", "target_scores": {"a": 1}},
        {"input": "Too long?", "target_scores": {"x" * 3_000: 1, "b": 0}},
        {"target_scores": {"a": 1, "b": 0}},
        {"input": "   ", "target": "a"},
        {"input": "Empty list?", "target": []},
        "not a row",
        mc("Also fine?", "no", "yes"),
    ]
    with caplog.at_level(logging.WARNING, logger="experiments"):
        questions = load_task("snarks", path=task_file(tmp_path / "snarks.json", rows))
    assert [(q.index, q.answer) for q in questions] == [(0, "A"), (11, "A")]
    assert "skipped 10 of 12 rows" in caplog.text and "snarks.json" in caplog.text
    assert "several right options and no target naming one" in caplog.text
    assert "an option longer than 2000 characters" in caplog.text


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"examples": [{"input": "Is it?",', "not JSON"),
        ('{"examples": 3}', "a list of 'examples'"),
        ('{"name": "toy"}', "a list of 'examples'"),
        ('{"examples": []}', "no usable question"),
        ('{"examples": [{"input": "Why?"}, {"target": "x"}]}', "no usable question"),
    ],
)
def test_a_file_without_a_usable_question_is_an_error_naming_it(tmp_path, content, reason):
    path = tmp_path / "broken.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BbhError, match=reason) as raised:
        load_task("navigate", path=path)
    assert str(path) in str(raised.value)


def test_a_folder_without_the_task_says_where_it_looked(tmp_path):
    with pytest.raises(BbhError, match=r"no file for BBH task navigate in .*navigate\.json"):
        load_bbh(["navigate"], path=tmp_path)
    nested = tmp_path / "logical_deduction" / "three_objects"
    nested.mkdir(parents=True)
    task_file(nested / "task.json", [mc("Shelf.", "The red book is the leftmost.", "The blue book is the leftmost.")])
    assert len(load_task("logical_deduction_three_objects", path=tmp_path)) == 1  # BIG-bench's own layout


# --- sampling ------------------------------------------------------------------------------


def test_sampling_is_seeded_reproducible_and_per_task(caplog):
    loaded = load_bbh(FIXTURE_TASKS, path=FIXTURES)
    everything = [q for questions in loaded.values() for q in questions]
    drawn = sample(everything, 3, seed=7)
    assert drawn == sample(everything, 3, seed=7)
    assert drawn != sample(everything, 3, seed=8)
    assert [q.task for q in drawn] == [task for task in FIXTURE_TASKS for _ in range(3)]
    assert len({(q.task, q.index) for q in drawn}) == 15
    alone = sample(loaded["date_understanding"], 3, seed=7)
    assert alone == [q for q in drawn if q.task == "date_understanding"]  # one task's draw ignores the others
    assert sample(everything, 0) == []
    with caplog.at_level(logging.INFO, logger="experiments"):
        whole = sample(everything, 250)  # BBH's size: every question of a task with fewer
    assert sorted((q.task, q.index) for q in whole) == sorted((q.task, q.index) for q in everything)
    assert "BBH tracking_shuffled_objects_three_objects: 250 questions asked for, all 6 taken" in caplog.text


# --- the cache and the fetch ---------------------------------------------------------------


def make_archive(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in {"bigbench-1.0.0/setup.py": b"raise SystemExit('never run')\n", **members}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def bigbench_archive(path: Path, tasks: tuple[str, ...] = FIXTURE_TASKS) -> Path:
    """A small archive laid out like bigbench's, holding the committed subsets as the tasks' files."""
    return make_archive(path, {TASK_FILES[task]: (FIXTURES / f"{task}.json").read_bytes() for task in tasks})


def test_extract_members_writes_every_target_in_one_pass(tmp_path):
    archive = make_archive(tmp_path / "a.tar.gz", {"root/a.txt": b"alpha", "root/sub/b.txt": b"beta", "c": b"-"})
    targets = {"root/a.txt": tmp_path / "out" / "a" / "a.txt", "root/sub/b.txt": tmp_path / "out" / "b.txt"}
    seen: list[str] = []

    def check(member: str, path: Path) -> int:
        seen.append(member)
        return len(path.read_bytes())

    assert extract_members(archive, targets, check) == {"root/a.txt": 5, "root/sub/b.txt": 4}
    assert seen == ["root/a.txt", "root/sub/b.txt"]
    assert targets["root/a.txt"].read_bytes() == b"alpha" and targets["root/sub/b.txt"].read_bytes() == b"beta"
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == ["a", "a.txt", "b.txt"]  # no partial file


def test_extract_members_replaces_nothing_when_a_check_fails_or_a_member_is_missing(tmp_path):
    archive = make_archive(tmp_path / "a.tar.gz", {"a.txt": b"new a", "b.txt": b"new b"})
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "a.txt").write_bytes(b"old a")
    targets = {"a.txt": kept / "a.txt", "b.txt": tmp_path / "fresh" / "deeper" / "b.txt"}

    def refuse_b(member: str, path: Path) -> None:
        if member == "b.txt":
            raise ValueError("b is broken")

    with pytest.raises(ValueError, match="b is broken"):
        extract_members(archive, targets, refuse_b)
    with pytest.raises(SdistError, match=r"has no missing\.txt"):
        extract_members(archive, {**targets, "missing.txt": kept / "m.txt"}, lambda member, path: None)
    assert [p.name for p in kept.iterdir()] == ["a.txt"] and (kept / "a.txt").read_bytes() == b"old a"
    assert not (tmp_path / "fresh").exists()  # the folders made for the targets are gone again
    with pytest.raises(SdistError, match="cannot read"):
        extract_members(kept / "a.txt", targets, lambda member, path: None)


def test_a_named_archive_fills_the_cache_in_one_pass_and_later_loads_read_it(tmp_path, monkeypatch):
    archive = bigbench_archive(tmp_path / "elsewhere.tar.gz")
    cache = tmp_path / "cache"
    opened: list[Path] = []
    real = sdist.extract_members

    def counting(archive: Path, *args: object) -> object:
        opened.append(archive)
        return real(archive, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(bbh, "extract_members", counting)
    loaded = load_bbh(FIXTURE_TASKS, cache=cache, archive=archive)
    assert opened == [archive]  # every task from one pass
    assert {task: len(questions) for task, questions in loaded.items()} == dict.fromkeys(FIXTURE_TASKS, 6)
    assert loaded == load_bbh(FIXTURE_TASKS, path=FIXTURES)
    for task in FIXTURE_TASKS:
        assert (cache / task / "task.json").read_bytes() == (FIXTURES / f"{task}.json").read_bytes()
    archive.unlink()
    assert load_bbh(FIXTURE_TASKS, cache=cache, fetch=False) == loaded  # the cache, no archive needed
    assert opened == [archive]


def test_the_archive_comes_from_the_environment_or_the_cache_before_any_download(tmp_path, monkeypatch):
    monkeypatch.setenv("DEBATE_BIGBENCH_ARCHIVE", str(bigbench_archive(tmp_path / "env.tar.gz")))
    assert len(load_task("object_counting")) == 6
    assert (tmp_path / "default-cache" / "bigbench" / "object_counting" / "task.json").is_file()
    monkeypatch.delenv("DEBATE_BIGBENCH_ARCHIVE")
    cache = tmp_path / "kept"
    cache.mkdir()
    bigbench_archive(cache / ARCHIVE_NAME)
    assert len(fetch_bbh(["geometric_shapes"], cache)["geometric_shapes"]) == 6
    monkeypatch.setenv("DEBATE_BIGBENCH_ARCHIVE", str(tmp_path / "nowhere.tar.gz"))
    with pytest.raises(BbhError, match=r"no archive at .*nowhere\.tar\.gz \(\$DEBATE_BIGBENCH_ARCHIVE\)"):
        load_task("navigate", cache=tmp_path / "empty")


def test_a_download_is_used_once_and_deleted_unless_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(
        sdist, "download_sdist", lambda project, version, workdir: bigbench_archive(workdir / ARCHIVE_NAME)
    )
    fetch_bbh(["object_counting"], tmp_path / "c")
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["object_counting"]
    fetch_bbh(["date_understanding"], tmp_path / "c", keep_archive=True)
    assert (tmp_path / "c" / ARCHIVE_NAME).is_file()


def test_an_archive_without_a_task_leaves_the_cache_untouched(tmp_path):
    archive = bigbench_archive(tmp_path / "partial.tar.gz", ("object_counting",))
    cache = tmp_path / "cache"
    with pytest.raises(BbhError, match=r"has no .*date_understanding/task\.json"):
        fetch_bbh(["object_counting", "date_understanding"], cache, archive=archive)
    assert not cache.exists() or list(cache.rglob("*")) == []


def test_nothing_cached_and_no_fetch_says_how_to_get_the_files(tmp_path):
    with pytest.raises(
        BbhError, match=r"not cached in .*: navigate\. Run `python -m experiments fetch-bbh`.*--bbh-data"
    ):
        load_bbh(["navigate"], cache=tmp_path, fetch=False)


def test_an_unreachable_index_is_a_clear_error(tmp_path, monkeypatch):
    def unreachable(project: str, version: str, workdir: Path) -> Path:
        raise SdistError("connection refused")

    monkeypatch.setattr(sdist, "download_sdist", DOWNLOAD)
    monkeypatch.setattr(sdist, "_pip_download", unreachable)
    monkeypatch.setattr(sdist, "_index_download", unreachable)
    with pytest.raises(BbhError, match=r"cannot download bigbench==1\.0\.0.*connection refused.*--archive"):
        load_task("navigate", cache=tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


# --- the comparison study ------------------------------------------------------------------


def test_bbh_items_have_stable_keys_and_the_task_as_subject():
    items = bbh_items(["object_counting", "geometric_shapes"], 2, 3, str(FIXTURES))
    assert items == bbh_items(["object_counting", "geometric_shapes"], 2, 3, str(FIXTURES))
    assert [item.subject for item in items] == ["object_counting"] * 2 + ["geometric_shapes"] * 2
    assert {item.dataset for item in items} == {"bbh"}
    for item in items:
        prefix, task, index, digest = item.key.split(":")
        assert (prefix, task) == ("bbh", item.subject) and index.isdigit() and len(digest) == 10
    assert items[0].question.answer in {"3", "9", "18", "7", "10"}
    assert bbh_items(["object_counting"], 0, 3, str(FIXTURES)) == []


def test_the_comparison_spec_names_bbh_tasks_and_refuses_unknown_ones():
    spec = CompareSpec(experiment_id="x", bbh=5, bbh_tasks=("navigate", "snarks"))
    assert (spec.bbh, spec.bbh_tasks) == (5, ("navigate", "snarks"))
    assert CompareSpec(experiment_id="x").bbh_tasks == DEFAULT_TASKS
    with pytest.raises(ValueError, match="unknown BBH task 'chess'"):
        CompareSpec(experiment_id="x", bbh=1, bbh_tasks=("navigate", "chess"))
    assert CompareSpec(experiment_id="x", bbh=1, bbh_tasks=("web_of_lies",)).bbh_tasks == ("web_of_lies",)
    with pytest.raises(ValueError, match="no BBH task named"):
        CompareSpec(experiment_id="x", bbh=1, bbh_tasks=())
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        CompareSpec(experiment_id="x", bbh=-1)
    stored = CompareSpec(experiment_id="old").model_dump(mode="json")
    del stored["bbh"], stored["bbh_tasks"]  # a study stored before BBH
    assert CompareSpec.model_validate(stored).differences(CompareSpec(experiment_id="old")) == []


def test_the_command_line_runs_a_scripted_comparison_on_bbh_questions(tmp_path, capsys):
    db = str(tmp_path / "bbh.sqlite3")
    common = ["--db", db, "--backend", "scripted", "--systems", "parliament/cot", "--no-progress"]
    none = ["--mmlu", "0", "--strategyqa", "0"]
    assert main(["compare", "--experiment", "empty", *common, *none]) == 2
    assert "--bbh N" in said(capsys)
    asked = ["--bbh", "2", "--bbh-tasks", "object_counting,date_understanding", "--bbh-data", str(FIXTURES)]
    assert main(["compare", "--experiment", "bbh", *common, *none, *asked]) == 0
    assert "4 finished now" in said(capsys)
    store = Store(db)
    try:
        spec, found = outcomes(store, "bbh")
    finally:
        store.close()
    assert spec.bbh == 2 and spec.bbh_tasks == ("object_counting", "date_understanding")
    assert {o.dataset for o in found} == {"bbh"} and len(found) == 4
    assert all(o.answered and o.correct for o in found)  # the demo script answers right, free-form too
    assert main(["compare", "--experiment", "bbh", *common, *none, *asked]) == 0  # resumed: nothing left
    assert "4 already finished" in said(capsys)
    assert main(["compare", "--experiment", "bad", *common, *none, "--bbh", "1", "--bbh-tasks", "chess"]) == 2
    assert "unknown BBH task 'chess'" in said(capsys)


def test_fetch_bbh_extracts_ahead_of_time_and_skips_what_is_cached(tmp_path, capsys):
    archive = str(bigbench_archive(tmp_path / "bb.tar.gz"))
    cache = str(tmp_path / "cache")
    command = ["fetch-bbh", "--tasks", "object_counting,geometric_shapes", "--cache", cache, "--archive", archive]
    assert main(command) == 0
    out = said(capsys)
    assert "object_counting: 6 questions (6 in a --bbh 250 sample), extracted now" in out
    assert "geometric_shapes: 6 questions (6 in a --bbh 250 sample), extracted now" in out
    assert main(command) == 0
    assert "geometric_shapes: 6 questions (6 in a --bbh 250 sample), cached" in said(capsys)
    before = {path: path.read_bytes() for path in Path(cache).rglob("*.json")}
    assert main(["fetch-bbh", "--cache", cache, "--archive", archive]) == 2  # all 27: the small archive lacks most
    assert "has no bigbench-1.0.0/bigbench/benchmark_tasks/causal_judgment/task.json" in said(capsys)
    assert {path: path.read_bytes() for path in Path(cache).rglob("*.json")} == before
    assert main(["fetch-bbh", "--tasks", "web_of_lies", "--cache", cache]) == 0  # generated: nothing to fetch
    assert "web_of_lies: 1000 questions (250 in a --bbh 250 sample), generated (seed 0, pool of 1000)" in said(capsys)
