"""HotpotQA (distractor): hub rows to free-form questions with their paragraphs, the cache, the errors, the study.

Nothing here touches the network or needs ``datasets``: the hub is ``hotpotqa.hub_rows`` (monkeypatched to
return the hand-written rows of tests/fixtures/hotpotqa_rows.json, in Hugging Face's row shape) or a fake
``datasets`` module.
"""

from __future__ import annotations

import copy
import json
import logging
import sys
import types
from pathlib import Path

import pytest

from experiments import hotpotqa
from experiments.cli import main
from experiments.compare import CompareSpec, hotpotqa_items
from experiments.compare_report import _questions, outcomes, report_markdown
from experiments.hotpotqa import HotpotQaError, load_hotpotqa, render_context, sample
from storage import Store
from tests.experiments.offline import block_downloads

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "hotpotqa_rows.json"


def rows() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No download, no user cache, no Hugging Face offline switch unless a test sets one."""
    block_downloads(monkeypatch, tmp_path, "HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")


@pytest.fixture
def hub(monkeypatch):
    """The hub answers with the fixture's rows; the list records each call."""
    calls: list[int] = []

    def hub_rows() -> list[dict]:
        calls.append(1)
        return rows()

    monkeypatch.setattr(hotpotqa, "hub_rows", hub_rows)
    return calls


def said(capsys) -> str:
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_hub_rows_become_free_form_questions_with_their_titled_paragraphs_as_context(tmp_path, hub):
    questions = load_hotpotqa(cache=tmp_path)
    assert [(q.index, q.id, q.answer, q.kind, q.level) for q in questions] == [
        (0, "made-up-0001", "Velka River", "bridge", "medium"),
        (1, "made-up-0002", "no", "comparison", "easy"),
        (2, "made-up-0003", "12,500", "bridge", "hard"),
    ]
    first = questions[0].question()
    assert first.text == 'Which river flows through the town where the painter of "Harbour at Dusk" was born?'
    assert first.answer == "Velka River" and not first.options  # free-form, the gold answer kept as it is
    paragraphs = first.context.split("\n\n")
    assert [p.split(": ", 1)[0] for p in paragraphs] == rows()[0]["context"]["title"]  # all ten, in the row's order
    assert paragraphs[3] == (
        "Mira Osterlund: Mira Osterlund (1850-1921) was a painter of coastal scenes. She was born in Kallby. "
        "She later moved to Norrhamn."
    )  # the sentences joined with one space each
    assert not questions[0].trimmed


def test_the_paragraphs_can_go_in_the_question_text_for_protocols_without_a_context(tmp_path, hub):
    question = load_hotpotqa(cache=tmp_path)[1].question("question")
    assert question.context == ""
    assert question.text.startswith("Are Tessaly Park and Brindlemoor Gardens in the same country?\n\nContext:\n")
    assert "Brindlemoor Gardens: Brindlemoor Gardens are botanical gardens" in question.text


def test_the_first_load_caches_the_rows_and_later_loads_need_no_hub(tmp_path, hub, monkeypatch):
    first = load_hotpotqa(cache=tmp_path)
    assert hub == [1] and hotpotqa.cached_path(tmp_path).is_file()

    def unreachable() -> list[dict]:
        raise AssertionError("the cache should have been read")

    monkeypatch.setattr(hotpotqa, "hub_rows", unreachable)
    assert load_hotpotqa(cache=tmp_path) == first
    with pytest.raises(HotpotQaError, match="not cached"):
        load_hotpotqa(cache=tmp_path / "empty", fetch=False)


def test_a_local_copy_in_hotpotqas_own_layout_is_read_without_the_hub(tmp_path, hub):
    original = []
    for row in rows():  # HotpotQA's own JSON: "_id", context as [title, sentences] pairs
        pairs = [[t, s] for t, s in zip(row["context"]["title"], row["context"]["sentences"], strict=True)]
        original.append({"_id": row["id"], "question": row["question"], "answer": row["answer"], "context": pairs})
    path = tmp_path / "hotpot_dev_distractor_v1.json"
    path.write_text(json.dumps(original), encoding="utf-8")
    from_file = load_hotpotqa(path, cache=tmp_path / "cache")
    assert hub == [] and not (tmp_path / "cache").exists()
    assert [q.question() for q in from_file] == [q.question() for q in load_hotpotqa(cache=tmp_path / "hub")]


def test_long_paragraphs_are_bounded_keeping_every_title_and_first_sentence():
    long = [
        (f"Title {i}", tuple(f"Sentence {j} of paragraph {i} " + "x" * 80 + "." for j in range(12))) for i in range(10)
    ]
    text, trimmed = render_context(long, limit=4_000)
    assert trimmed and len(text) <= 4_000
    for i in range(10):
        assert f"Title {i}: Sentence 0 of paragraph {i} " in text
    assert render_context(long[:1], limit=100_000) == (render_context(long[:1])[0], False)


def test_rows_without_a_question_an_answer_or_paragraphs_are_skipped_and_counted(tmp_path, caplog):
    broken = copy.deepcopy(rows())
    broken[0]["answer"] = " "
    broken[1]["context"] = {"title": ["Only a title"], "sentences": []}
    broken.append({"id": "x", "question": "Where?", "answer": "Here"})  # no context at all
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in broken) + "\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="experiments"):
        questions = load_hotpotqa(path)
    assert [q.index for q in questions] == [2]
    assert "skipped 3 of 4 rows" in caplog.text
    with pytest.raises(HotpotQaError, match="line 1 is not JSON"):
        (tmp_path / "bad.jsonl").write_text("{not json\n", encoding="utf-8")
        load_hotpotqa(tmp_path / "bad.jsonl")


def test_without_datasets_installed_the_error_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets raises ImportError
    with pytest.raises(HotpotQaError, match=r"pip install 'interruptible-debate\[hotpotqa\]'"):
        load_hotpotqa(cache=tmp_path)
    db = str(tmp_path / "h.sqlite3")
    args = ["--db", db, "--backend", "scripted", "--systems", "parliament/cot", "--no-progress"]
    assert main(["compare", "--experiment", "h", *args, "--mmlu", "0", "--strategyqa", "0", "--hotpotqa", "2"]) == 2
    out = " ".join(said(capsys).split())  # the console wraps long lines
    assert "pip install 'interruptible-debate[hotpotqa]'" in out and "Traceback" not in out


@pytest.mark.parametrize(
    ("switch", "expected"),
    [
        ("HF_HUB_OFFLINE", r"HF_HUB_OFFLINE=1 forbids downloading it: the first load needs a network"),
        (None, "needs a network"),
    ],
)
def test_offline_or_without_a_network_the_error_says_the_first_load_needs_one(tmp_path, monkeypatch, switch, expected):
    asked: list[tuple] = []

    def load_dataset(*args, **kwargs):
        asked.append((args, kwargs))
        raise ConnectionError("Couldn't reach 'hotpotqa/hotpot_qa' on the Hub")

    monkeypatch.setitem(sys.modules, "datasets", types.SimpleNamespace(load_dataset=load_dataset))
    if switch:
        monkeypatch.setenv(switch, "1")
    with pytest.raises(HotpotQaError, match=expected) as raised:
        load_hotpotqa(cache=tmp_path)
    assert "--hotpotqa-data FILE" in str(raised.value)
    # the distractor config's validation split alone
    assert asked == [
        (
            ("hotpotqa/hotpot_qa",),
            {"data_files": {"validation": "distractor/validation-*.parquet"}, "split": "validation"},
        )
    ]


def test_sampling_and_items_are_seeded_with_stable_keys(tmp_path, hub):
    questions = load_hotpotqa(cache=tmp_path)
    assert sample(questions, 2, seed=3) == sample(questions, 2, seed=3)
    with pytest.raises(HotpotQaError, match="asked for 4 HotpotQA questions, only 3"):
        sample(questions, 4)
    data = str(hotpotqa.cached_path(tmp_path))
    items = hotpotqa_items(3, 5, data)
    assert items == hotpotqa_items(3, 5, data) and hotpotqa_items(0, 5, data) == []
    assert {i.dataset for i in items} == {"hotpotqa"} and {i.subject for i in items} == {"bridge", "comparison"}
    for item in items:
        prefix, index, digest = item.key.split(":")
        assert prefix == "hotpotqa" and index.isdigit() and len(digest) == 10
    in_text = hotpotqa_items(3, 5, data, "question")
    assert [i.key for i in in_text] == [i.key for i in items] and all("Context:" in i.question.text for i in in_text)


def test_the_spec_counts_hotpotqa_and_older_specs_still_validate():
    spec = CompareSpec(experiment_id="x", mmlu=0, strategyqa=0, hotpotqa=100)
    assert (
        _questions(spec)
        == "0 MMLU, 0 StrategyQA, 100 HotpotQA (distractor, its paragraphs as the question's context) questions"
    )
    stored = CompareSpec(experiment_id="old").model_dump(mode="json")
    del stored["hotpotqa"], stored["hotpotqa_context"]  # a study stored before HotpotQA
    assert CompareSpec.model_validate(stored).differences(CompareSpec(experiment_id="old")) == []
    with pytest.raises(ValueError, match="hotpotqa_context"):
        CompareSpec(experiment_id="x", hotpotqa_context="everywhere")


def test_the_command_line_runs_a_scripted_comparison_on_hotpotqa(tmp_path, capsys):
    db = str(tmp_path / "q.sqlite3")
    common = ["--db", db, "--backend", "scripted", "--systems", "parliament/cot,parliament/british", "--no-progress"]
    asked = ["--mmlu", "0", "--strategyqa", "0", "--hotpotqa", "3", "--hotpotqa-data", str(FIXTURE)]
    assert main(["compare", "--experiment", "q", *common, *asked]) == 0
    assert "6 finished now" in said(capsys)
    store = Store(db)
    try:
        spec, found = outcomes(store, "q")
        context = store.events(found[0].debate_id)[0].config.question.context
    finally:
        store.close()
    assert spec.hotpotqa == 3 and {o.dataset for o in found} == {"hotpotqa"}
    titles = {title for row in rows() for title in row["context"]["title"]}
    assert all(o.free_form and o.gold for o in found) and context.split(": ", 1)[0] in titles
    report = report_markdown(spec, "scripted-demo", found)
    assert "## Free-form answers, scored three ways" in report and "| hotpotqa | parliament/british |" in report
    assert "## Paired comparison on the same questions" in report
