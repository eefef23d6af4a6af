r"""MMLU-Pro, MATH and ScienceQA through the hub: rows to questions, the cache, the offline errors, MATH's answers.

Nothing here touches the network or needs ``datasets``: ``datasets`` is blocked (``sys.modules``) unless a test
puts a fake one in its place, and the rows are the hand-written ones of tests/fixtures/mmlu_pro_rows.json,
math_rows.jsonl and scienceqa_rows.json, in the hub's row shape (made up: nothing of the data sets is committed).
"""

from __future__ import annotations

import copy
import json
import logging
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from experiments import extensions, hub_data, math_data, mmlu_pro, scienceqa
from experiments.cli import main
from experiments.compare_report import outcomes, report_markdown
from experiments.hub_data import HubDataError
from experiments.scoring import contains, exact_match, last_boxed, math_equal
from storage import Store
from tests.experiments.offline import block_downloads

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MMLU_PRO, MATH, SCIENCEQA = (
    FIXTURES / "mmlu_pro_rows.json",
    FIXTURES / "math_rows.jsonl",
    FIXTURES / "scienceqa_rows.json",
)


def rows(path: Path) -> list[dict[str, Any]]:
    return hub_data.read_rows(path, name="fixture")  # type: ignore[return-value]


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No download, no user cache, no Hugging Face offline switch, and no ``datasets`` unless a test fakes one."""
    block_downloads(monkeypatch, tmp_path, "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
    monkeypatch.setitem(sys.modules, "datasets", None)


class Table(list):
    """What ``datasets.load_dataset`` returns, as far as the loaders read it."""

    column_names = ("image", "question")

    def cast_column(self, name: str, feature: object) -> Table:
        assert name == "image" and feature == ("Image", False)  # images are never decoded
        return self


def fake_datasets(monkeypatch, answer) -> list[tuple]:
    """A ``datasets`` whose ``load_dataset`` records its arguments and returns (or raises) ``answer(args)``."""
    asked: list[tuple] = []

    def load_dataset(*args, **kwargs):
        asked.append((args, kwargs))
        return answer(args)

    fake = types.SimpleNamespace(load_dataset=load_dataset, Image=lambda decode=True: ("Image", decode))
    monkeypatch.setitem(sys.modules, "datasets", fake)
    return asked


def said(capsys) -> str:
    captured = capsys.readouterr()
    return " ".join((captured.out + captured.err).split())  # the console wraps long lines


# --- MATH's answers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "boxed"),
    [
        (r"so $x = \boxed{\frac{3}{4}}$.", r"\frac{3}{4}"),  # nested braces matched
        (r"first \boxed{8}, then \boxed{6}", "6"),  # the last one
        (r"the set $\boxed{\{1, 2\}}$", r"\{1, 2\}"),  # escaped braces are content
        (r"$\boxed{\begin{pmatrix} 1 \\ 2 \end{pmatrix}}$", r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}"),
        (r"\fbox{12}", "12"),
        (r"is $\boxed 5$.", "5"),  # \boxed without braces: the word after it
        (r"\boxed{ 7 }", "7"),
        (r"\boxed{x + 1", None),  # never closed
        ("no box here", None),
        (r"\boxedx{3}", None),  # another command
    ],
)
def test_the_answer_is_the_last_boxed_expression_with_its_braces_matched(text, boxed):
    assert last_boxed(text) == boxed


@pytest.mark.parametrize(
    ("answer", "gold", "equal"),
    [
        ("1/2", r"\frac{1}{2}", True),
        ("0.5", r"\dfrac12", True),  # rationals by value; \dfrac and \frac ab
        (r"$\frac{3}{4}$", r"\frac34", True),
        (r"\left( 3, \infty \right)", r"(3,\infty)", True),
        (r"x = \boxed{5}", "5", True),  # the last box, then a leading "x ="
        (r"90^\circ", "90", True),
        (r"5\text{ cm}", "5", True),  # MATH's trailing unit
        (r"\text{(C)}", "(C)", True),
        (r"1,\!000", "1000", True),
        (r"\sqrt3", r"\sqrt{3}", True),
        (r"10\%", "10", True),
        (r"-\frac{1}{2}", "-0.5", True),
        ("x+1", "1+x", False),  # no algebra
        (r"\frac{\sqrt{3}}{2}", r"\sqrt{3}/2", False),
        ("1.414", r"\sqrt{2}", False),
        ("(2, 1)", "(1,2)", False),  # order kept
        ("3/4", r"\frac{4}{3}", False),
        ("1/0", r"\frac{1}{0}", True),  # the same text, though no number
        (None, "5", False),
        ("5", "", False),
    ],
)
def test_math_answers_are_compared_normalised(answer, gold, equal):
    assert math_equal(answer, gold) is equal


def test_the_reports_normalized_match_compares_latex_answers_as_math_and_plain_ones_as_before():
    assert exact_match(r"$\boxed{\dfrac{1}{6}}$", r"\dfrac{1}{6}") and contains("1/6", r"\frac{1}{6}")
    assert not exact_match("1/2", "0.5")  # neither side is LaTeX: the plain comparison, unchanged
    assert exact_match("The Velka River.", "Velka River") and not exact_match("Velka", "Velka River")


# --- MMLU-Pro -------------------------------------------------------------------------------


def test_mmlu_pro_rows_become_questions_with_up_to_ten_options(tmp_path):
    questions = mmlu_pro.load_mmlu_pro(MMLU_PRO)
    assert [(q.index, q.id, q.category, len(q.options), q.answer) for q in questions] == [
        (0, "90001", "physics", 10, "C"),
        (1, "90002", "economics", 8, "B"),
        (2, "90003", "history", 10, "J"),
        (3, "90004", "math", 4, "B"),
    ]
    tenth = questions[2].question()
    assert tenth.labels == tuple("ABCDEFGHIJ") and tenth.answer == "J" and tenth.options[9] == "Jorra"
    assert tenth.render().splitlines()[-1] == "J) Jorra"


def test_mmlu_pro_rows_that_cannot_be_posed_are_skipped_and_counted(tmp_path, caplog):
    broken = copy.deepcopy(rows(MMLU_PRO))
    broken[0]["answer"] = "D"  # the letter disagrees with answer_index 2
    broken[1]["options"][3] = " "  # a blank option
    broken[2]["options"].append("Kell")  # eleven options
    broken.append({**broken[3], "answer": None, "answer_index": 4})  # out of range
    broken.append({**broken[3], "answer": "a", "answer_index": None})  # the letter alone is enough
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in broken), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="experiments"):
        questions = mmlu_pro.load_mmlu_pro(path)
    assert [(q.index, q.answer) for q in questions] == [(3, "B"), (5, "A")]
    assert "skipped 4 of 6 rows" in caplog.text and "Pellow" not in caplog.text  # numbers, never text


def test_the_first_hub_load_is_cached_and_later_loads_need_no_hub(tmp_path, monkeypatch):
    asked = fake_datasets(monkeypatch, lambda args: rows(MMLU_PRO))
    first = mmlu_pro.load_mmlu_pro(cache=tmp_path)
    assert asked == [(("TIGER-Lab/MMLU-Pro",), {"split": "test"})]
    assert (tmp_path / "mmlu_pro" / "test.jsonl").is_file()
    monkeypatch.setitem(sys.modules, "datasets", None)
    assert mmlu_pro.load_mmlu_pro(cache=tmp_path) == first and len(asked) == 1
    with pytest.raises(HubDataError, match="not cached"):
        mmlu_pro.load_mmlu_pro(cache=tmp_path / "empty", fetch=False)


# --- the hub: offline, not installed -----------------------------------------------------------

LOADERS = [
    ("MMLU-Pro", "mmlu_pro", lambda: mmlu_pro.load_mmlu_pro()),
    ("MATH algebra", "math", lambda: math_data.load_math()),
    ("ScienceQA", "scienceqa", lambda: scienceqa.load_scienceqa()),
]


@pytest.mark.parametrize(("name", "dataset", "load"), LOADERS)
def test_offline_with_nothing_cached_each_says_so_in_one_line(monkeypatch, name, dataset, load):
    def unreachable(args):
        raise ConnectionError(f"Couldn't reach '{args[0]}' on the Hub\n(LocalEntryNotFoundError)")

    fake_datasets(monkeypatch, unreachable)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(HubDataError) as raised:
        load()
    message = str(raised.value)
    assert message.startswith(f"{name} needs the Hugging Face hub: ") and "(offline)" in message
    assert f"--data-file {dataset}=FILE" in message and "\n" not in message
    monkeypatch.delenv("HF_HUB_OFFLINE")
    with pytest.raises(HubDataError, match=r"ConnectionError: Couldn't reach .* the first load needs a network"):
        load()


@pytest.mark.parametrize(("name", "dataset", "load"), LOADERS)
def test_without_datasets_installed_each_says_what_to_install(name, dataset, load):
    with pytest.raises(HubDataError, match=rf"^{name} needs the Hugging Face hub through `datasets`.*pip install"):
        load()


def offline_datasets(monkeypatch) -> list[tuple]:
    """A ``datasets`` that behaves as the real one offline: ``config.HF_HUB_OFFLINE`` read from the environment
    when it is imported, and ``load_dataset`` with that switch on and nothing in ``HF_DATASETS_CACHE`` raising
    what datasets 3 raises (a ``ConnectionError`` naming the hub's ``LocalEntryNotFoundError``); with the switch
    off it would download, which fails the test."""
    asked: list[tuple] = []
    fake = types.ModuleType("datasets")
    fake.config = types.SimpleNamespace(  # type: ignore[attr-defined]
        HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "").upper() in {"1", "ON", "YES", "TRUE"}
    )

    def load_dataset(path: str, name: str | None = None, *, split: str) -> object:
        asked.append((path, name, split))
        cache = Path(os.environ["HF_DATASETS_CACHE"])
        cached = cache.is_dir() and any(cache.iterdir())
        if fake.config.HF_HUB_OFFLINE and not cached:  # type: ignore[attr-defined]
            raise ConnectionError(f"Couldn't reach '{path}' on the Hub (LocalEntryNotFoundError)")
        raise AssertionError(f"datasets would download {path} here")

    fake.load_dataset = load_dataset  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", fake)
    return asked


def test_datasets_offline_with_nothing_cached_is_refused_in_one_line(tmp_path, monkeypatch):
    """HF_HUB_OFFLINE=1 (read by ``datasets`` at import), an empty Hugging Face cache, no data cache."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf" / "datasets"))
    asked = offline_datasets(monkeypatch)
    offline = r"^MMLU-Pro needs the Hugging Face hub: .* HF_HUB_OFFLINE=1 forbids downloading it \(offline\)"
    with pytest.raises(HubDataError, match=offline + r".*\(--data-file mmlu_pro=FILE\)$"):
        mmlu_pro.load_mmlu_pro(cache=tmp_path / "cache")
    assert asked == [("TIGER-Lab/MMLU-Pro", None, "test")]  # the hub was asked, once, for the test split
    assert not (tmp_path / "cache").exists()  # nothing cached from a failed load


def test_the_command_line_says_the_hub_error_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    db = ["--db", str(tmp_path / "o.sqlite3"), "--backend", "scripted", "--systems", "parliament/cot"]
    assert main(["compare", "--experiment", "o", *db, "--no-progress", "--mmlu", "0", "--strategyqa", "0",
                 "--data", "scienceqa=2"]) == 2  # fmt: skip
    out = said(capsys)
    assert "ScienceQA needs the Hugging Face hub through `datasets`" in out and "Traceback" not in out


# --- MATH ----------------------------------------------------------------------------------


def test_math_rows_become_free_form_questions_by_subset():
    found = math_data.load_math(path=MATH)
    assert list(found) == list(math_data.SUBSETS)  # the file has every subset
    algebra = found["algebra"]
    assert [(q.index, q.level, q.answer) for q in algebra] == [(0, "Level 1", r"\frac{3}{4}"), (1, "Level 1", "6")]
    assert (
        algebra[0].question().text == "What is the value of $x$ if $4x + 3 = 6$?" and not algebra[0].question().options
    )
    assert found["precalculus"][0].answer == r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}"
    only = math_data.load_math(("geometry", "number_theory"), MATH)
    assert {s: [q.answer for q in qs] for s, qs in only.items()} == {"geometry": [r"9\pi"], "number_theory": ["7"]}
    with pytest.raises(HubDataError, match="no subset 'calculus'"):
        math_data.load_math(("calculus",), MATH)


def test_math_rows_without_an_answer_or_a_subset_are_skipped(tmp_path, caplog):
    broken = rows(MATH)
    broken[0]["solution"] = "No box at all."
    broken[1]["type"] = "Calculus"
    broken[2] = {**broken[2], "solution": "Left open.", "answer": "1/6"}  # an answer field instead of a box
    path = tmp_path / "math.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="experiments"):
        found = math_data.load_math(path=path)
    assert "algebra" not in found and found["counting_and_probability"][0].answer == "1/6"
    assert "skipped 2 of 8 rows" in caplog.text


def test_n_is_spread_evenly_over_the_subsets_the_remainder_by_the_seed():
    subsets = list(math_data.SUBSETS)
    assert set(math_data.spread(14, subsets, seed=0).values()) == {2}
    ten = math_data.spread(10, subsets, seed=0)
    assert sum(ten.values()) == 10 and sorted(ten.values()) == [1, 1, 1, 1, 2, 2, 2]
    assert ten == math_data.spread(10, subsets, seed=0) and math_data.spread(3, [], seed=0) == {}


def test_math_items_are_seeded_with_stable_keys_per_subset():
    items = math_data.math_items(7, 3, str(MATH))
    assert items == math_data.math_items(7, 3, str(MATH)) and math_data.math_items(0, 3, str(MATH)) == []
    assert [i.subject for i in items] == list(math_data.SUBSETS) and {i.dataset for i in items} == {"math"}
    name, subset, index, digest = items[0].key.split(":")
    assert (name, subset, index in ("0", "1"), len(digest)) == ("math", "algebra", True, 10)
    one = math_data.math_items(2, 3, str(MATH), ("algebra",), "math_algebra")
    assert {i.dataset for i in one} == {"math_algebra"} and all(i.key.startswith("math_algebra:") for i in one)
    with pytest.raises(HubDataError, match="asked for 2 MATH geometry questions, only 1"):
        math_data.math_items(2, 3, str(MATH), ("geometry",), "math_geometry")


def test_each_math_subset_is_its_own_config_on_the_hub_and_its_own_cache_file(tmp_path, monkeypatch):
    by_type = {math_data.subset_of(r["type"]): r for r in rows(MATH)}
    asked = fake_datasets(monkeypatch, lambda args: [by_type[args[1]]])
    found = math_data.load_math(("geometry", "prealgebra"), cache=tmp_path)
    assert [a[0] for a in asked] == [
        ("EleutherAI/hendrycks_math", "geometry"),
        ("EleutherAI/hendrycks_math", "prealgebra"),
    ]
    assert all(a[1] == {"split": "test"} for a in asked) and list(found) == ["geometry", "prealgebra"]
    assert (tmp_path / "math" / "geometry-test.jsonl").is_file()


# --- ScienceQA -----------------------------------------------------------------------------


def test_scienceqa_poses_its_text_only_rows_with_hint_and_lecture_in_the_text(caplog):
    with caplog.at_level(logging.INFO, logger="experiments"):
        questions = scienceqa.load_scienceqa(SCIENCEQA)
    assert [(q.index, q.subject, q.answer) for q in questions] == [
        (0, "natural science", "B"),
        (1, "language science", "A"),
        (3, "social science", "A"),
    ]
    assert "left out 1 of 4 rows" in caplog.text  # the row with an image
    first = questions[0].question()
    assert first.options == ("a wooden spoon", "an iron nail", "a glass marble") and first.answer == "B"
    question, hint, lecture = first.text.split("\n\n")
    assert question == "Which object is a magnet most likely to attract?"
    assert hint.startswith("Context: Odell has") and lecture.startswith("Lecture: A magnet can pull")
    assert "Context:" not in questions[1].question().text  # no hint, no context line


def test_scienceqa_rows_without_a_usable_answer_are_skipped(tmp_path, caplog):
    broken = rows(SCIENCEQA)
    broken[0]["answer"] = 3  # three choices
    broken[1]["choices"] = ["leaf"]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in broken), encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="experiments"):
        assert [q.index for q in scienceqa.load_scienceqa(path)] == [3]
    assert "skipped 2 of 3 rows" in caplog.text


def test_scienceqa_from_the_hub_never_decodes_or_caches_an_image(tmp_path, monkeypatch):
    hub = [{**row, "image": {"bytes": b"\x89PNG", "path": None} if row["image"] else None} for row in rows(SCIENCEQA)]
    asked = fake_datasets(monkeypatch, lambda args: Table(hub))
    questions = scienceqa.load_scienceqa(cache=tmp_path)
    assert asked == [(("derek-thomas/ScienceQA",), {"split": "test"})] and len(questions) == 3
    cached = rows(tmp_path / "scienceqa" / "test.jsonl")
    assert [r["image"] for r in cached] == [None, None, "left out", None]
    items = scienceqa.scienceqa_items(2, 1, str(SCIENCEQA))
    assert len(items) == 2 and all(i.key.startswith("scienceqa:") for i in items)


# --- the study -----------------------------------------------------------------------------


def test_they_are_registered_after_the_shared_data_sets():
    names = [d.name for d in extensions.datasets()]
    assert names[6:16] == ["mmlu_pro", "math", *(f"math_{s}" for s in math_data.SUBSETS), "scienceqa"]


def test_the_command_line_runs_a_scripted_comparison_on_each(tmp_path, capsys):
    db = str(tmp_path / "h.sqlite3")
    common = ["--db", db, "--backend", "scripted", "--systems", "parliament/cot", "--no-progress"]
    asked = ["--mmlu", "0", "--strategyqa", "0"]
    for name, n, path in [
        ("mmlu_pro", 2, MMLU_PRO),
        ("math", 7, MATH),
        ("math_algebra", 1, MATH),
        ("scienceqa", 2, SCIENCEQA),
    ]:
        asked += ["--data", f"{name}={n}", "--data-file", f"{name}={path}"]
    assert main(["compare", "--experiment", "h", *common, *asked]) == 0
    assert "12 finished now" in said(capsys)
    store = Store(db)
    try:
        spec, found = outcomes(store, "h")
    finally:
        store.close()
    assert spec.datasets == {"mmlu_pro": 2, "math": 7, "math_algebra": 1, "scienceqa": 2}
    assert {o.dataset for o in found} == {"mmlu_pro", "math", "math_algebra", "scienceqa"}
    assert all(o.free_form for o in found if o.dataset.startswith("math"))
    assert not any(o.free_form for o in found if o.dataset in ("mmlu_pro", "scienceqa"))
    report = report_markdown(spec, "scripted-demo", found)
    assert "| math | parliament/cot |" in report and "## Free-form answers, scored three ways" in report
