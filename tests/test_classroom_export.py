"""A classroom debate's record travels with its JSON transcript: exported (display names only, never a token or a
digest), imported back so that the replay draws the same seats and polls, checked where it enters (a malformed
classroom part is left out with a clear reason, and the debate is imported all the same), and an export from
before classroom records were exported still imports."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path
from typing import Any

import pytest

from storage import Store
from tests.test_ui_classroom_wiring import seated, started, wait
from ui.classroom_actions import HANDLERS, join_audience
from ui.classroom_live import classroom_of
from ui.classroom_panel import record_html
from ui.page_access import open_page


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Store, list[str]]:
    """A finished classroom debate (a seat held, three votes) exported; its store, and every token it gave."""
    folder = tmp_path_factory.mktemp("classroom-export")
    store = Store(folder / "source.sqlite3")
    live, host = started(store, max_turns=6)
    room = classroom_of(live.debate_id).room  # type: ignore[union-attr]
    sam = seated(live, host, "Alex", "Sam")
    voters = [join_audience(open_page(live, {}), {}, name)[0] for name in ("Lee", "Max", "Ola")]
    live.resume()
    assert wait(lambda: room.tally() is not None), "no poll opened at the debate's start"
    for tokens, choice in zip(voters, ("B", "B", "A"), strict=True):
        assert "counted" in HANDLERS["classroom_vote"](open_page(live, tokens), tokens, choice)
    room.free_seat(host, "Alex", "model")
    assert wait(lambda: live.done and store.classroom(live.debate_id) is not None)
    path = store.export_json(live.debate_id, folder / "classroom.json")
    secrets = [host, sam[live.debate_id], *(v[live.debate_id] for v in voters)]
    return json.loads(path.read_text(encoding="utf-8")), store, secrets


def write(folder: Path, document: dict[str, Any], name: str = "in.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_the_export_holds_who_held_which_seat_and_every_poll_by_display_name_only(exported):
    document, store, secrets = exported
    part = document["classroom"]
    assert part == store.classroom(document["debate_id"])
    assert [(h["agent"], h["name"], h["then"]) for h in part["seats"]] == [("Alex", "Sam", "model")]
    first = part["polls"][0]
    assert dict(zip(first["choices"], first["counts"], strict=True))["B"] == 2
    text = json.dumps(document)
    assert not any(secret in text for secret in secrets)
    assert not {"token", "digest", "kept", "id", "person", "voter"} & {k for h in part["seats"] for k in h}


def test_an_imported_classroom_debate_replays_its_seats_and_polls_as_the_original(exported, tmp_path):
    document, store, _ = exported
    debate_id = document["debate_id"]
    target = Store(tmp_path / "target.sqlite3")
    try:
        imported = target.import_transcript(write(tmp_path, document))
        assert (imported.debate_id, imported.classroom, imported.classroom_problem) == (debate_id, True, None)
        assert target.classroom(debate_id) == store.classroom(debate_id)
        last = target.events(debate_id)[-1].turn
        for turn in range(last + 1):
            drawn = record_html(target.classroom(debate_id), turn)
            assert drawn == record_html(store.classroom(debate_id), turn)
        assert "Sam held Alex" in drawn and "3 votes)" in drawn
        again = target.export_json(debate_id, tmp_path / "again.json")
        assert json.loads(again.read_text(encoding="utf-8")) == document  # a second round trip changes nothing
    finally:
        target.close()


def _set(where: tuple[Any, ...], value: Any):
    def change(part: dict[str, Any]) -> dict[str, Any]:
        node: Any = part
        for step in where[:-1]:
            node = node[step]
        node[where[-1]] = value
        return part

    return change


MALFORMED = {
    "a token": (_set(("seats", 0, "token"), "x" * 43), "classroom.seats[0].token is not a field"),
    "not an object": (lambda part: ["Sam"], "classroom is not a JSON object"),
    "another debate": (_set(("debate_id",), "someone-else"), "classroom.debate_id"),
    "no such agent": (_set(("seats", 0, "agent"), "Mallory"), "'Mallory', who is not one of the debate's agents"),
    "a count short": (_set(("polls", 0, "counts"), [1]), "classroom.polls[0]"),
    "a number as text": (_set(("polls", 0, "from_turn"), "0"), "classroom.polls[0].from_turn"),
    "a turn never reached": (_set(("seats", 0, "to_turn"), 10_000), "turns the debate did not reach"),
    "a blank name": (_set(("seats", 0, "name"), ""), "classroom.seats[0].name"),
    "a huge string": (_set(("polls", 0, "label"), "x" * 100_001), "classroom.polls[0].label"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_classroom_part_is_left_out_with_its_reason_and_the_debate_imported(exported, tmp_path, case):
    document, store, _ = exported
    change, reason = MALFORMED[case]
    broken = copy.deepcopy(document)
    broken["classroom"] = change(broken["classroom"])
    target = Store(tmp_path / "target.sqlite3")
    try:
        imported = target.import_transcript(write(tmp_path, broken))
        assert not imported.classroom and imported.classroom_problem is not None
        assert reason in imported.classroom_problem
        assert target.classroom(imported.debate_id) is None
        assert target.events(imported.debate_id) == store.events(document["debate_id"])  # nothing else lost
    finally:
        target.close()


def test_an_export_without_a_classroom_part_imports_as_before(exported, tmp_path):
    document, _, _ = exported
    older = {k: v for k, v in document.items() if k != "classroom"}
    target = Store(tmp_path / "target.sqlite3")
    try:
        assert target.import_json(write(tmp_path, older)) == document["debate_id"]
        assert target.classroom(document["debate_id"]) is None
        assert record_html(target.classroom(document["debate_id"]), 3) == ""
    finally:
        target.close()


def test_the_command_line_imports_the_debate_and_warns_of_a_malformed_classroom_part(exported, tmp_path, capsys):
    from storage.cli import main

    document, _, _ = exported
    broken = copy.deepcopy(document)
    broken["classroom"]["seats"][0]["token"] = "x" * 43
    db = str(tmp_path / "cli.sqlite3")
    assert main(["--db", db, "import", str(write(tmp_path, broken))]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert f"imported debate {document['debate_id']}" in said
    assert "its classroom record was left out: classroom.seats[0].token is not a field" in said
    assert main(["--db", db + "2", "import", str(write(tmp_path, document, "ok.json"))]) == 0
    assert "and its classroom record" in capsys.readouterr().out


def test_the_csv_tables_hold_who_held_which_seat_and_every_polls_votes_by_display_name_only(exported, tmp_path):
    document, store, secrets = exported
    debate_id = document["debate_id"]
    written = {path.name: path for path in store.export_csv([debate_id], tmp_path)}
    with open(written["seats.csv"], newline="", encoding="utf-8") as handle:
        seats = list(csv.DictReader(handle))
    with open(written["polls.csv"], newline="", encoding="utf-8") as handle:
        polls = list(csv.DictReader(handle))
    assert [(s["debate_id"], s["agent"], s["name"], s["ended"], s["then"]) for s in seats] == [
        (debate_id, "Alex", "Sam", "freed", "model")
    ]
    record = document["classroom"]
    assert len(polls) == sum(len(poll["choices"]) for poll in record["polls"])  # one row per choice
    first = record["polls"][0]
    votes = {row["choice"]: int(row["votes"]) for row in polls if row["poll"] == first["key"]}
    assert votes == dict(zip(first["choices"], first["counts"], strict=True)) and votes["B"] == 2
    text = written["seats.csv"].read_text(encoding="utf-8") + written["polls.csv"].read_text(encoding="utf-8")
    assert not any(secret in text for secret in secrets)
