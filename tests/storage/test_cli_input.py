"""``python -m storage`` answers bad input with one line and exit code 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from storage.cli import main
from tests.conftest import HANG_GUARD_S

ROOT = Path(__file__).resolve().parents[2]


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run ``main(argv)``; it must exit 2 with one ``error:`` line after the usage; that line."""
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert "error:" in last
    return last


@pytest.mark.parametrize(
    "since",
    ["0001-01-01T00:00+01:00", "0001-01-01T00:30+00:45", "9999-12-31T23:59-01:00", "9999-12-31T23:59:59.999999-00:01"],
)
def test_a_since_at_the_calendars_edge_with_an_offset_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], since: str
) -> None:
    line = refused(capsys, "--db", str(tmp_path / "s.sqlite3"), "list", "--since", since)
    assert "is outside the times a UTC clock can give" in line


def test_a_since_at_the_calendars_edge_in_utc_still_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--db", str(tmp_path / "s.sqlite3"), "list", "--since", "0001-01-01T00:00+00:00"]) == 0
    assert "0 debate(s)" in capsys.readouterr().out


def test_text_of_100000_percent_signs_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = refused(capsys, "--db", str(tmp_path / "s.sqlite3"), "list", "--text", "%" * 100_000)
    assert "at most 1,000 characters, not 100,000" in line
    assert refused(capsys, "--db", str(tmp_path / "s.sqlite3"), "show", "%" * 100_000).endswith("not 100,000")


def test_percent_signs_in_text_are_words_not_wildcards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from storage import Store
    from tests.storage.helpers import record_quick

    store = Store(tmp_path / "s.sqlite3")
    record_quick(store)
    store.close()
    assert main(["--db", str(tmp_path / "s.sqlite3"), "list", "--text", "%" * 1_000]) == 0
    assert "0 debate(s)" in capsys.readouterr().out
    assert main(["--db", str(tmp_path / "s.sqlite3"), "list", "--text", "GREEK"]) == 0
    assert "1 debate(s)" in capsys.readouterr().out


def test_export_out_naming_a_folder_is_refused_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "here"
    folder.mkdir()
    line = refused(capsys, "--db", str(tmp_path / "s.sqlite3"), "export", "abc", "--out", str(folder))
    assert "is a folder; give the JSON file's name" in line
    assert list(folder.iterdir()) == []


def test_export_csv_naming_a_file_is_refused_and_leaves_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "tables"
    file.write_text("mine", encoding="utf-8")
    line = refused(capsys, "--db", str(tmp_path / "s.sqlite3"), "export", "abc", "--csv", str(file))
    assert "is a file; give a folder for the CSV tables" in line
    assert file.read_text(encoding="utf-8") == "mine"


def test_arguments_that_are_not_utf8_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "s.sqlite3").encode()
    first, *others = (
        [b"list", b"--text", b"\xff\xfe words"],
        [b"show", b"ab\xc3"],
        [b"import", b"\xff.json"],
        [b"list", b"--protocol", b"\xed\xa0\x80"],
    )
    # The bytes as a shell passes them, once through the interpreter's own decoding of the command line ...
    result = subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"storage", b"--db", db, *first],
        capture_output=True,
        cwd=ROOT,
        timeout=HANG_GUARD_S,
    )
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].endswith("is not UTF-8 text"), err
    # ... and, decoded the same way (os.fsdecode is what Python applies to sys.argv), in this process.
    for argv in (first, *others):
        last = refused(capsys, *(os.fsdecode(arg) for arg in (b"--db", db, *argv)))
        assert last.endswith("is not UTF-8 text"), last
