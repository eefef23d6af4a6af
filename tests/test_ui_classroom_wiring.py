"""The classroom wired to a live debate, without a browser: the room decides, the debate follows; every handler
acts only with the token its request brought; polls and seat holdings are stored with the transcript."""

from __future__ import annotations

import html
import time

import pytest

from debate_core import AgentSpec, DebateConfig
from debate_core.kernel import Acting
from storage import Store
from tests.conftest import QUESTION
from ui.classroom import ClassroomRecord, Forbidden
from ui.classroom_live import classroom_of, open_classroom, seat_of
from ui.classroom_panel import HANDLERS, base_url, join_audience, refresh, take_seat
from ui.live_panel import CONTROLS, control, submit_words
from ui.page_access import Refused, guard_seat, open_page, remember
from ui.session import SCRIPTED, LiveSession, backend_for

AGENTS = ("Alex", "Chris", "Jenny")


def wait(predicate, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def started(store=None, *, paused: bool = True, max_turns: int = 30) -> tuple[LiveSession, str]:
    agents = tuple(AgentSpec(name=n) for n in AGENTS)
    config = DebateConfig(question=QUESTION, agents=agents, max_turns=max_turns)
    live = LiveSession(config, backend_for(SCRIPTED, config), store=store, shared=AGENTS, pace_s=0.02)
    _, host = open_classroom(live, store, grace_s=60)
    if paused:
        live.pause()
    live.start()
    return live, host


@pytest.fixture
def classroom():
    live, host = started()
    yield live, host
    live.stop()


def seated(live: LiveSession, host: str, agent: str, name: str) -> dict[str, str]:
    """A student's browser storage after the host opened ``agent``'s seat and they took it."""
    room = classroom_of(live.debate_id).room  # type: ignore[union-attr]
    room.open_seat(host, agent)
    page = open_page(live, {})
    tokens, notice = take_seat(page, {}, name, agent)
    assert "You hold" in notice, notice
    return tokens


def test_the_host_token_is_the_debates_owner_token_and_a_seat_follows_the_room(classroom):
    live, host = classroom
    assert live.owned_by(host)
    alex = seated(live, host, "Alex", "Sam")
    assert live.people["Alex"].acting is Acting.PERSON and live.channel_of("Alex") is not None
    assert seat_of(live, alex[live.debate_id]) == "Alex"
    room = classroom_of(live.debate_id).room  # type: ignore[union-attr]
    room.free_seat(host, "Alex", "model")
    assert live.people["Alex"].acting is Acting.MODEL and live.channel_of("Alex") is None
    assert seat_of(live, alex[live.debate_id]) is None


def test_each_student_acts_only_on_their_own_seat_and_a_forged_request_changes_nothing(classroom):
    live, host = classroom
    sam, kim = seated(live, host, "Alex", "Sam"), seated(live, host, "Chris", "Kim")
    what, act = CONTROLS["interrupt"]
    page = open_page(live, sam)
    assert page.seat == "Alex"
    control(what, act)(page, sam, 5)
    assert live.channel_of("Alex").stance() == {"intent": "interrupt", "urgency": 5}  # type: ignore[union-attr]
    assert live.channel_of("Chris").stance() == {}  # type: ignore[union-attr]
    control(what, act)(open_page(live, kim), kim, 8)
    assert live.channel_of("Chris").stance()["urgency"] == 8  # type: ignore[union-attr]
    # the page a request comes from does not count: Sam's page with Kim's token acts on Kim's seat
    control(*CONTROLS["lower_hand"])(page, kim)
    assert live.people["Chris"].state == "listening" and live.people["Alex"].state == "armed"
    # watchers, forgers, an audience member, the host (who holds no seat): refused, nothing changes
    audience, _ = join_audience(open_page(live, {}), {}, "Lee")
    before = {agent: live.channel_of(agent).stance() for agent in ("Alex", "Chris")}  # type: ignore[union-attr]
    for tokens in ({}, None, {live.debate_id: "forged"}, audience, remember({}, live)):
        said = html.unescape(control(what, act)(open_page(live, tokens), tokens, 9))
        assert "cannot" in said, tokens
        assert "cannot" in html.unescape(submit_words(page, tokens, "B", *[None] * 10))
        with pytest.raises(Refused):
            guard_seat(page, tokens, "interrupt")
    assert {agent: live.channel_of(agent).stance() for agent in ("Alex", "Chris")} == before  # type: ignore[union-attr]
    # nor can anyone but the host open, free or give seats
    for tokens in ({}, sam, audience, {live.debate_id: "forged"}):
        said = HANDLERS["classroom_free_seat"](page, tokens, "Alex", "model")
        assert "bad" in said
    assert live.people["Alex"].acting is Acting.PERSON


def test_a_reloaded_students_page_re_attaches_to_their_seat_and_another_browser_watches(classroom):
    live, host = classroom
    sam = seated(live, host, "Alex", "Sam")
    again = open_page(live, sam)  # the same browser's storage: the same seat, with its controls
    assert again.seat == "Alex" and not again.owner
    other = open_page(live, {})  # another browser with the same link
    assert other.seat is None and not other.owner


def test_the_refresh_shows_each_role_its_part(classroom):
    live, _host = classroom
    room = classroom_of(live.debate_id).room  # type: ignore[union-attr]
    hosting = refresh(open_page(live, remember({}, live)), remember({}, live), None)
    assert room.join_code in hosting[3] and "join-qr" in hosting[3] and "roster-table" in hosting[4]
    watching = refresh(open_page(live, {}), {}, None)
    assert watching[2]["visible"] is False and watching[7]["visible"] is True  # no host box, a join box


def test_base_url_takes_the_pages_address_and_ignores_what_is_not_a_host():
    assert base_url({"host": "192.168.1.5:7860"}) == "http://192.168.1.5:7860"
    assert base_url({"x-forwarded-host": "debate.example.org", "x-forwarded-proto": "https", "host": "x"}) == (
        "https://debate.example.org"
    )
    assert base_url({"host": "evil.org/<script>"}) == "http://127.0.0.1:7860"


def test_polls_and_holdings_are_stored_with_the_transcript(tmp_path):
    store = Store(tmp_path / "db.sqlite")
    live, host = started(store, max_turns=6)
    room = classroom_of(live.debate_id).room  # type: ignore[union-attr]
    sam = seated(live, host, "Alex", "Sam")
    voters = [join_audience(open_page(live, {}), {}, name)[0] for name in ("Lee", "Max", "Ola")]
    live.resume()
    assert wait(lambda: room.tally() is not None), "no poll opened at the debate's start"
    for tokens, choice in zip(voters, ("B", "B", "A"), strict=True):
        assert "counted" in HANDLERS["classroom_vote"](open_page(live, tokens), tokens, choice)
    refused = HANDLERS["classroom_vote"](open_page(live, sam), sam, "C")  # a seated person is not the audience
    assert "bad" in refused
    room.free_seat(host, "Alex", "model")
    assert wait(lambda: live.done)
    kept = store.classroom(live.debate_id)
    assert kept is not None
    record = ClassroomRecord.model_validate(kept)
    [holding] = record.seats
    assert (holding.agent, holding.name, holding.then) == ("Alex", "Sam", "model")
    first = record.polls[0]
    assert dict(zip(first.choices, first.counts, strict=True))["B"] == 2 and first.total == 3
    assert "token" not in str(kept).lower()
    with pytest.raises(Forbidden):
        room.authorize(sam[live.debate_id], "interrupt", "Alex")  # the room closed with the debate


def test_the_host_password_comes_from_the_flag_else_the_environment(monkeypatch):
    from app import options

    monkeypatch.delenv("DEBATE_HOST_PASSWORD", raising=False)
    assert options([]).host_password is None
    monkeypatch.setenv("DEBATE_HOST_PASSWORD", "from the environment")
    assert options([]).host_password == "from the environment"
    assert options(["--host-password", "from the flag"]).host_password == "from the flag"
    assert options(["--host-password", ""]).host_password is None  # an empty value is no password
