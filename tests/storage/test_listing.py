"""Listing and finding debates: filters, order, look-up by id or prefix."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from debate_core import Debate
from debate_core.events import PlansMade
from protocols.kimura.demo import demo_backend, demo_config
from storage import Store
from tests.conftest import SentenceSplitter
from tests.storage.helpers import record_quick

DAY = 86_400
T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def at(days: float):
    """A clock frozen ``days`` after T0 (every event of the debate gets that time)."""
    moment = (T0 + timedelta(days=days)).timestamp()
    return lambda: moment


@pytest.fixture
def catalogue(store: Store) -> dict[str, str]:
    """Five debates on known days, with different questions, conditions, outcomes, experiments."""
    made = {
        "atmosphere": record_quick(store, question="Which GAS fills the air?", clock=at(0)),
        "greek-wrong": record_quick(
            store, question="Which letter is second in Greek?", answer="A", condition="fixed", clock=at(1)
        ),
        "greek-right": record_quick(
            store,
            question="Which letter is second in greek?",
            condition="dynamic",
            clock=at(2),
            experiment_id="exp1",
        ),
        "percent": record_quick(store, question="Is it 100% sure_ish?", answer="C", clock=at(3), experiment_id="exp1"),
        "other-exp": record_quick(store, question="Anything else?", clock=at(4), experiment_id="exp2"),
    }
    return {name: events[0].debate_id for name, events in made.items()}


def names(store: Store, catalogue: dict[str, str], **filters) -> list[str]:
    by_id = {debate_id: name for name, debate_id in catalogue.items()}
    return [by_id[s.id] for s in store.list_debates(**filters)]


def test_list_is_newest_first(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue) == ["other-exp", "percent", "greek-right", "greek-wrong", "atmosphere"]
    summaries = store.list_debates()
    assert [s.created_at for s in summaries] == sorted((s.created_at for s in summaries), reverse=True)
    assert summaries[-1].created_at == T0


def test_limit_and_offset_page_through_the_list(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue, limit=2) == ["other-exp", "percent"]
    assert names(store, catalogue, limit=2, offset=2) == ["greek-right", "greek-wrong"]
    assert names(store, catalogue, limit=2, offset=4) == ["atmosphere"]


def test_filter_by_condition(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue, condition="fixed") == ["greek-wrong"]
    assert names(store, catalogue, condition="dynamic") == ["greek-right"]
    assert names(store, catalogue, condition="interruptible") == ["other-exp", "percent", "atmosphere"]


def test_filter_by_question_text_is_a_case_insensitive_substring(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue, text="greek") == ["greek-right", "greek-wrong"]
    assert names(store, catalogue, text="GREEK") == ["greek-right", "greek-wrong"]
    assert names(store, catalogue, text="gas fills") == ["atmosphere"]
    assert names(store, catalogue, text="nothing like this") == []
    # SQL wildcards in the text are plain characters
    assert names(store, catalogue, text="0%") == ["percent"]
    assert names(store, catalogue, text="e_i") == ["percent"]
    assert names(store, catalogue, text="%") == ["percent"]
    assert names(store, catalogue, text="_") == ["percent"]


def test_filter_by_outcome(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue, correct=False) == ["percent", "greek-wrong"]
    assert names(store, catalogue, correct=True) == ["other-exp", "greek-right", "atmosphere"]
    summary = store.debate(catalogue["greek-wrong"])
    assert (summary.final_answer, summary.correct_answer, summary.correct) == ("A", "B", False)


def test_filter_by_experiment(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue, experiment_id="exp1") == ["percent", "greek-right"]
    assert names(store, catalogue, experiment_id="exp2") == ["other-exp"]
    assert names(store, catalogue, experiment_id="exp3") == []
    assert store.debate(catalogue["percent"]).experiment_id == "exp1"
    assert store.debate(catalogue["atmosphere"]).experiment_id is None


def test_filter_by_date_since_inclusive_until_exclusive(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue, since=T0 + timedelta(days=3)) == ["other-exp", "percent"]
    assert names(store, catalogue, until=T0 + timedelta(days=1)) == ["atmosphere"]
    assert names(store, catalogue, since=T0 + timedelta(days=1), until=T0 + timedelta(days=3)) == [
        "greek-right",
        "greek-wrong",
    ]
    assert names(store, catalogue, since=T0 + timedelta(days=10)) == []


def test_date_filters_compare_instants_whatever_the_time_zone(store: Store, catalogue: dict[str, str]) -> None:
    """``since=datetime.now().astimezone()`` style values: the same instant, another zone."""
    tokyo = timezone(timedelta(hours=9))
    new_york = timezone(timedelta(hours=-5))
    day3 = T0 + timedelta(days=3)
    assert names(store, catalogue, since=day3.astimezone(tokyo)) == ["other-exp", "percent"]
    assert names(store, catalogue, since=day3.astimezone(new_york)) == ["other-exp", "percent"]
    assert names(store, catalogue, until=(T0 + timedelta(days=1)).astimezone(tokyo)) == ["atmosphere"]


def test_filters_combine(store: Store, catalogue: dict[str, str]) -> None:
    assert names(store, catalogue, experiment_id="exp1", correct=True) == ["greek-right"]
    assert names(store, catalogue, text="greek", condition="fixed", correct=False) == ["greek-wrong"]
    assert names(store, catalogue, text="greek", condition="fixed", correct=True) == []


def test_filter_by_status(store: Store, catalogue: dict[str, str]) -> None:
    config = demo_config(seed=1)
    debate = Debate(config, demo_backend(config), segmenter=SentenceSplitter())
    for event in store.record(debate.events()):
        if isinstance(event, PlansMade) and event.turn == 2:
            debate.stop()
    assert [s.id for s in store.list_debates(status="aborted")] == [debate.debate_id]
    assert len(store.list_debates(status="finished")) == len(catalogue)
    assert store.list_debates(status="running") == []


def test_unknown_debates_raise_key_error(store: Store, catalogue: dict[str, str]) -> None:
    with pytest.raises(KeyError, match="no debate"):
        store.debate("no-such-debate")
    with pytest.raises(KeyError, match="no debate"):
        store.events("no-such-debate")


def test_find_returns_the_full_id_for_a_unique_prefix(store: Store, catalogue: dict[str, str]) -> None:
    for debate_id in catalogue.values():
        prefix = next(
            debate_id[:n]
            for n in range(1, len(debate_id) + 1)
            if sum(other.startswith(debate_id[:n]) for other in catalogue.values()) == 1
        )
        assert store.find(prefix) == debate_id
        assert store.find(debate_id) == debate_id
    with pytest.raises(KeyError, match="no debate id starts with"):
        store.find("zzz-not-hex")
    with pytest.raises(KeyError, match="more than one"):
        store.find("")


def test_find_treats_wildcards_as_plain_characters(store: Store) -> None:
    """Ids are hex; a prefix with ``%`` or ``_`` matches no debate."""
    record_quick(store)
    for prefix in ("%", "_", "__"):
        with pytest.raises(KeyError, match="no debate id starts with"):
            store.find(prefix)
