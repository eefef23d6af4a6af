"""The classroom side table: a debate's classroom record is kept as given, replaced, and deleted with it."""

from __future__ import annotations

from debate_core import Debate
from storage import Store
from tests.conftest import build_script_backend, make_config


def test_a_classroom_record_is_kept_with_its_debate_and_goes_with_it(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    debate = Debate(make_config(max_turns=1), build_script_backend())
    list(store.record(debate.events()))
    assert store.classroom(debate.debate_id) is None
    record = {"schema_version": 1, "debate_id": debate.debate_id, "seats": [], "polls": []}
    store.save_classroom(debate.debate_id, record)
    assert store.classroom(debate.debate_id) == record
    record["seats"] = [{"agent": "Alex", "name": "Sam"}]
    store.save_classroom(debate.debate_id, record)
    assert store.classroom(debate.debate_id) == record
    assert store.delete(debate.debate_id)
    assert store.classroom(debate.debate_id) is None


def test_a_record_for_a_debate_the_store_lacks_is_refused(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    try:
        store.save_classroom("nope", {})
    except KeyError as error:
        assert "no debate" in str(error)
    else:
        raise AssertionError("kept a record for no debate")
