"""The classroom's secrets: tokens, join codes, the host password and the join link's QR code."""

from __future__ import annotations

import itertools
import re

import pytest

from ui.classroom import HOST_PASSWORD_ENV, Forbidden, HostGate, Invalid, Rooms, join_qr_svg, resolve_host_password
from ui.classroom.testing import classroom
from ui.classroom.tokens import (
    JOIN_ALPHABET,
    JOIN_CODE_LENGTH,
    digest,
    matches,
    new_join_code,
    new_token,
    normalize_code,
)


def test_tokens_are_long_random_and_kept_only_as_digests():
    tokens = {new_token() for _ in range(1_000)}
    assert len(tokens) == 1_000 and all(len(t) >= 43 and re.fullmatch(r"[A-Za-z0-9_-]+", t) for t in tokens)
    token = next(iter(tokens))
    kept = digest(token)
    assert kept is not None and token.encode() not in kept and matches(token, kept)
    assert not matches(token[:-1] + ("A" if token[-1] != "A" else "B"), kept)
    assert all(digest(x) is None for x in (None, "", 5, b"x", "x" * 201))
    room, host, _ = classroom()
    assert host not in repr(room.__dict__)  # the room holds no token, only digests


def test_join_codes_are_short_and_unambiguous():
    assert not set("01OIL") & set(JOIN_ALPHABET) and len(set(JOIN_ALPHABET)) == len(JOIN_ALPHABET)
    codes = {new_join_code() for _ in range(2_000)}
    assert all(len(c) == JOIN_CODE_LENGTH and set(c) <= set(JOIN_ALPHABET) for c in codes)
    assert len(codes) > 1_990
    code = "AB2C3D"
    assert normalize_code(" ab2-c3d ") == code
    assert normalize_code("ab 2c 3d") == code
    for bad in ("AB2C3", "AB2C3DE", "AB0C3D", "ABIC3D", None, 123456, "A" * 100):
        assert normalize_code(bad) is None


def test_join_codes_are_unique_among_open_rooms_and_expire_with_them():
    draws = itertools.chain(["AAAAAA"] * 3, ["BBBBBB"], ["AAAAAA", "CCCCCC"])
    rooms = Rooms(make_code=lambda: next(draws))
    first, _, _ = classroom(debate_id="one", rooms=rooms)
    second, _, _ = classroom(debate_id="two", rooms=rooms)  # AAAAAA is taken: drawn again
    third, _, _ = classroom(debate_id="three", rooms=rooms)
    assert [first.join_code, second.join_code, third.join_code] == ["AAAAAA", "BBBBBB", "CCCCCC"]
    assert rooms.by_code("aaa-aaa") is first and rooms.by_code("zzzzzz") is None
    first.close()
    assert rooms.by_code("AAAAAA") is None and rooms.codes() == {"BBBBBB", "CCCCCC"}
    reused = Rooms(make_code=lambda: "AAAAAA")
    a, _, _ = classroom(debate_id="a", rooms=reused)
    with pytest.raises(RuntimeError):
        classroom(debate_id="four", rooms=reused)  # a code source that only repeats a taken code
    a.close()
    b, _, _ = classroom(debate_id="b", rooms=reused)  # the closed room's code is free again
    assert b.join_code == "AAAAAA"


def test_a_debate_has_one_room():
    rooms = Rooms()
    classroom(rooms=rooms)
    with pytest.raises(Exception, match="already has a room"):
        classroom(rooms=rooms)


def test_the_join_link_carries_the_code():
    room, _, _ = classroom()
    assert room.join_link("http://10.0.0.5:7860/") == f"http://10.0.0.5:7860/?join={room.join_code}"
    assert room.join_path() == f"?join={room.join_code}"


def test_without_a_host_password_anyone_may_start_a_debate():
    gate = HostGate(None)
    assert not gate.required and gate.allows(None) and gate.allows("anything")
    gate.check(None)
    assert not HostGate("").required


def test_with_a_host_password_only_it_opens_the_gate():
    gate = HostGate("correct horse")
    assert gate.required and gate.allows("correct horse")
    for wrong in (None, "", "correct horse ", "Correct horse", 42, b"correct horse", "x" * 5_000):
        assert not gate.allows(wrong)
        with pytest.raises(Forbidden, match="host password"):
            gate.check(wrong)
    assert "horse" not in repr(gate) and "horse" not in repr(gate.__dict__)


def test_the_host_password_comes_from_the_flag_else_the_environment():
    env = {HOST_PASSWORD_ENV: "from-env"}
    assert resolve_host_password("from-flag", env) == "from-flag"
    assert resolve_host_password(None, env) == "from-env"
    assert resolve_host_password(None, {}) is None
    assert resolve_host_password("", env) is None  # an empty flag says: no password
    assert resolve_host_password(None, {HOST_PASSWORD_ENV: ""}) is None


def test_the_join_qr_code_is_a_scalable_svg():
    import segno  # a dependency (pyproject.toml)

    link = "http://10.0.0.5:7860/?join=AB2C3D"
    svg = join_qr_svg(link, title='Join <"debate">')
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    assert 'viewBox="0 0 ' in svg and "width=" not in svg.split(">", 1)[0]
    assert "<title>Join &lt;" in svg and '<"debate">' not in svg
    size = segno.make(link, error="m", micro=False).symbol_size(scale=1, border=4)
    assert f'viewBox="0 0 {size[0]} {size[1]}"' in svg
    for bad in ("", "   ", "x" * 1_001, None):
        with pytest.raises(Invalid):
            join_qr_svg(bad)  # type: ignore[arg-type]
