"""A classroom on one debate, or several at once: from each disclosure to every client, and what the server spends.

Starts the web app (this checkout, or another with ``--app``) on a free
loopback port with an empty store, starts a long scripted debate from one
client (the teacher's page: the Start button's endpoint with the set-up's
defaults, a budget of 2,000 public tokens), pauses it while the other
viewers open its live address (``?live=ID``), resumes it, and follows every
page's live stream. The clients are not browsers: each speaks Gradio's
HTTP/SSE protocol over its own connection (``httpx``), as a page does:
joins the queue for the page load (``reattach``) and the live stream
(``watch``), reads its session's event stream, applies Gradio's diffs and
the transcript's deltas, and notes when each sentence first reaches it.
Every page beats the classroom's heartbeat once a second, as its
``gr.Timer`` does (``--no-heartbeat``: only the seated do, to compare with
numbers taken before the classroom reached the page).

Seated people (``--seated K``, per debate): while the debate is paused the
host's page reads its join code and the seats a model holds from its
heartbeat and opens K of them to people (``classroom_open_seat``, with the
host's token); K clients open the join link (``?join=CODE``), each takes a
seat under a name of its own (``classroom_take_seat``: the seat's token comes
back, as a browser keeps it), follows the live stream like a viewer and acts
as a student would (``Seated``): presses *Interrupt* and *Raise hand* once
each, a few sentences apart (``seat_presses``), with its own token, and
answers whatever the debate asks its seat (the words form the stream shows
that page: the first choice, the lowest number, a few words) after a second.
Their latencies are pooled with the viewers'; the line says how many presses
were accepted and how many answers the debate took.

Several debates (``--debates K``): K independent classroom debates on the
same app, each with its own teacher, ``--viewers`` pages and ``--seated``
people; started and paused one after the other, resumed together. The
latencies are pooled over every debate, and the worst debate's p95 is given
too.

Prints, for each number of viewers (``--viewers 1,10,40``; the teacher's page
is one of them), the latency from the engine's disclosure (``UnitDisclosed.at``,
wall clock, read back from the store) to the client, as p50/p95/max over the
first and over the last quarter of each debate's sentences, every page
pooled; how many (sentence, page) pairs arrived; the server's CPU (its
process's user and system time over the debates' wall time, 100 % = one
core; and that time per page update, every page's heartbeats included: less
sensitive to the machine's other load) and the machine's load average. A sentence disclosed before a page
had its first update is not counted for that page.

    python bench/classroom.py --viewers 1,10,40
    python bench/classroom.py --viewers 40 --app /tmp/before   # another checkout
    python bench/classroom.py --viewers 40 --seated 2          # one debate, 40 pages and two students in seats
    python bench/classroom.py --viewers 4 --debates 10         # ten classroom debates at once

The pure helpers (``Transcript``, ``latencies``, ``percentiles``,
``quarters``, ``host_view``, ``slot_value``, ``seat_presses``, ``report``)
are checked by tests/test_classroom_bench.py; the run on real connections by
tests/browser/test_classroom_bench.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = re.compile(r'<span class="sentence">(.*?)</span>', re.S)
API = "gradio_api"
UPDATES = ("process_generating", "process_completed")  # the messages that carry a stream's outputs


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_app(app: Path, db: Path, port: int) -> subprocess.Popen[str]:
    env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(app)}
    process = subprocess.Popen(
        [sys.executable, str(app / "app.py"), "--db", str(db), "--port", str(port)],
        cwd=app,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2):
                return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the app did not start")


# -- what a client keeps: the transcript as the page would show it --------------------------------------


@dataclass
class Transcript:
    """The transcript's lines as a page holds them, from the ``delta`` updates (``{seq, from, lines}``), and
    when each sentence first arrived: the k-th copy of a text is ``(text, k)``, as bench/ui_latency.py counts."""

    lines: list[list[str]] = field(default_factory=list)  # each line's sentences
    counts: Counter[str] = field(default_factory=Counter)
    first: dict[tuple[str, int], float] = field(default_factory=dict)
    seq: int = -1

    def apply(self, delta: Any, at: float) -> None:
        """A ``delta`` value as the page's script applies it (anything else, e.g. a skipped update, is ignored)."""
        if not isinstance(delta, dict) or "lines" not in delta or delta.get("seq") == self.seq:
            return
        self.seq = delta.get("seq", self.seq)
        start = int(delta.get("from", 0))
        for line in self.lines[start:]:
            self.counts.subtract(line)
        del self.lines[start:]
        for line_html in delta["lines"]:
            texts = [html.unescape(text).strip() for text in SENTENCE.findall(line_html)]
            self.lines.append(texts)
            for text in texts:
                self.counts[text] += 1
                self.first.setdefault((text, self.counts[text]), at)


def latencies(disclosed: Sequence[tuple[str, float]], first: dict[tuple[str, int], float], since: float) -> list:
    """Per disclosure (text, engine time) in order: seconds until the client had it, None if never; a
    disclosure before ``since`` (the client's first update) is left out (None too)."""
    copies: Counter[str] = Counter()
    found: list[float | None] = []
    for text, at in disclosed:
        copies[text.strip()] += 1
        seen = first.get((text.strip(), copies[text.strip()]))
        found.append(seen - at if seen is not None and at >= since else None)
    return found


def percentiles(values: Sequence[float]) -> tuple[float, float, float]:
    """p50, p95 and the maximum (nearest rank), in the values' unit; NaN for none."""
    if not values:
        return (float("nan"),) * 3
    ordered = sorted(values)

    def rank(q: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]

    return rank(0.5), rank(0.95), ordered[-1]


def quarters(count: int) -> tuple[range, range]:
    """The indices of the first and of the last quarter of ``count`` disclosures."""
    size = max(1, count // 4)
    return range(0, min(size, count)), range(max(0, count - size), count)


# -- clients speaking Gradio's protocol -------------------------------------------------------------------


class Client:
    """A page's Gradio session: joins the queue for an event and reads the session's event stream."""

    def __init__(self, http: Any, url: str, config: dict[str, Any], live: str = "", query: str = "") -> None:
        self.http, self.url, self.config, self.live = http, url, config, live
        self.query = query or (f"live={live}" if live else "")  # the page's address: ?live=ID or ?join=CODE
        self.session_hash = uuid.uuid4().hex[:11]
        self.fns = {d["api_name"]: d for d in config["dependencies"] if d.get("api_name")}
        self.tokens: dict[str, str] = {}  # this browser's storage: debate id -> its token here

    async def join(self, api_name: str, data: list[Any]) -> str:
        body = {
            "data": data,
            "fn_index": self.fns[api_name]["id"],
            "session_hash": self.session_hash,
            "event_data": None,
            "trigger_id": None,
        }
        query = f"?{self.query}" if self.query else ""
        joined = await self.http.post(f"{self.url}{API}/queue/join{query}", json=body)
        joined.raise_for_status()
        return str(joined.json()["event_id"])

    async def messages(self) -> AsyncIterator[tuple[float, dict[str, Any]]]:
        """The session's event stream: (arrival time, message) until the server closes it."""
        params = {"session_hash": self.session_hash}
        async with self.http.stream("GET", f"{self.url}{API}/queue/data", params=params, timeout=None) as stream:
            async for line in stream.aiter_lines():
                if line.startswith("data:"):
                    at = time.time()
                    yield at, json.loads(line[5:])

    async def call(self, api_name: str, data: list[Any]) -> list[Any]:
        """An event that completes: its outputs."""
        event_id = await self.join(api_name, data)
        async for _, message in self.messages():
            if message.get("event_id") == event_id and message.get("msg") == "process_completed":
                if not message.get("success"):
                    raise RuntimeError(f"{api_name} failed: {message}")
                return list(message["output"]["data"])
        raise RuntimeError(f"{api_name}: the stream ended without an outcome")

    async def tick(self) -> list[Any]:
        """The page's heartbeat (its ``gr.Timer``, not queued): the classroom panel's values, with this page's
        tokens."""
        body = {"data": [None, self.tokens], "fn_index": heartbeat_fn(self.config), "session_hash": self.session_hash}
        answer = await self.http.post(f"{self.url}{API}/run/predict", json=body)
        answer.raise_for_status()
        return list(answer.json()["data"])

    async def beat(self, until: asyncio.Event, every: float = 1.0) -> None:
        """A heartbeat every ``every`` seconds, as the page's timer does, until ``until`` is set."""
        while not until.is_set():
            try:
                await self.tick()
            except Exception as error:  # a missed beat is what a busy server does to a page: noted, not fatal
                say(f"a heartbeat failed: {error!r}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(until.wait(), every)


class Viewer(Client):
    """A page watching the debate: its live stream's updates, the transcript it holds, when each arrived."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        outputs = self.fns["watch"]["outputs"]
        ids = {c["id"]: c.get("props", {}).get("elem_id") for c in self.config["components"]}
        self.delta_at = next(i for i, o in enumerate(outputs) if ids.get(o) == "transcript-delta")
        self.transcript = Transcript()
        self.since = float("inf")  # when its first update arrived
        self.updates = 0
        self.watching = True
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}  # other events' outcomes, awaited
        self.completed: dict[str, dict[str, Any]] = {}  # those that came before anyone waited

    async def open(self) -> None:
        """The page load of ``?live=ID``: the page re-attaches to the debate (watching: it holds no token)."""
        await self.call("reattach", [{}])

    followed: tuple[int, ...] = ()  # the outputs followed besides the transcript's (a seat's form)

    async def watch(self) -> None:
        """Follow the live stream until the debate has ended."""
        from gradio_client.utils import apply_diff

        event_id = await self.join("watch", [None])
        values: list[Any] | None = None
        follow = (self.delta_at, *self.followed)
        async for at, message in self.messages():
            if message.get("event_id") != event_id:  # another event of this page's (one stream per page)
                if message.get("msg") == "process_completed":
                    self.outcome(str(message.get("event_id")), message)
                continue
            if message.get("msg") not in UPDATES:
                continue
            data = (message.get("output") or {}).get("data")
            if data is None:
                break
            if values is None or message["msg"] == "process_completed":
                values = list(data)
            else:  # Gradio sends each output as a diff from the last: only those followed are rebuilt here
                for index in follow:
                    values[index] = apply_diff(values[index], data[index])
            self.since = min(self.since, at)
            self.updates += 1
            self.transcript.apply(values[self.delta_at], at)
            self.updated(values)
            if message["msg"] == "process_completed":
                break
        self.watching = False
        for waiting in self.waiting.values():
            if not waiting.done():
                waiting.set_exception(RuntimeError("the live stream ended first"))

    def updated(self, values: list[Any]) -> None:
        """One update of the live stream, its followed outputs rebuilt (a seated person reads their form)."""

    def outcome(self, event_id: str, message: dict[str, Any]) -> None:
        """Another event's outcome, read on the live stream's connection: to whoever waits for it."""
        waiting = self.waiting.pop(event_id, None)
        if waiting is None:
            self.completed[event_id] = message
        elif not waiting.done():
            waiting.set_result(message)

    async def act(self, api_name: str, data: list[Any]) -> list[Any]:
        """An event while the page watches: its outcome comes on the stream the page already reads (a browser
        has one per page; a second connection for the same session would take messages from the first)."""
        event_id = await self.join(api_name, data)
        message = self.completed.pop(event_id, None)
        if message is None:
            if not self.watching:
                raise RuntimeError(f"{api_name}: the live stream has ended")
            self.waiting[event_id] = asyncio.get_running_loop().create_future()
            message = await self.waiting[event_id]
        if not message.get("success"):
            raise RuntimeError(f"{api_name} failed: {message}")
        return list(message["output"]["data"])


FORM = re.compile(r"^seat(-prompt|-(choice|integer|boolean|text)-\d+)?$")  # the seat's words form (ui/seat_form.py)
SAID = "I would like to add one short point here, if I may."


def slot_value(elem_id: str, update: Any) -> Any:
    """What a person sets in one slot of the words form, from the update that showed it (a hidden slot: what the
    page sends for it): the value shown, else the first choice or the lowest number; a few words for a text."""
    kind = elem_id.split("-")[1]
    shown = isinstance(update, dict) and update.get("visible") is True
    if not shown:
        return {"choice": None, "integer": 0, "boolean": False}.get(kind, "")
    value = update.get("value")
    if kind == "choice":
        if value is not None:
            return value
        first = next(iter(update.get("choices") or []), None)
        return first[-1] if isinstance(first, list | tuple) else first  # (label, value) pairs
    if kind == "integer":
        return int(value if value is not None else update.get("minimum") or 0)
    if kind == "boolean":
        return bool(value)
    return SAID


class Seated(Viewer):
    """A person in a seat: joins through the join code (``?join=CODE``), takes the seat the host opened with a
    token of their own, follows the live stream, presses the seat's controls (``presses``: (the number of
    sentences seen, the control's api name), each once) and answers whatever the debate asks the seat (the
    words form, as the stream shows it to this page: its first choice, its lowest number, a few words) after
    ``think_s``."""

    def __init__(self, *args: Any, presses: Sequence[tuple[int, str]] = (), think_s: float = 1.0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        ids = {c["id"]: c.get("props", {}).get("elem_id") for c in self.config["components"]}
        outputs = self.fns["watch"]["outputs"]
        self.form = {str(ids.get(o)): i for i, o in enumerate(outputs) if FORM.match(str(ids.get(o) or ""))}
        self.followed = tuple(self.form.values())
        self.words = [str(ids.get(i)) for i in self.fns["submit_words"]["inputs"][2:]]  # after the page, tokens
        self.presses = sorted(presses)
        self.seat = ""
        self.pressed: list[tuple[str, bool]] = []  # each press: (control, accepted)
        self.answers: list[bool] = []  # each request answered: sent?
        self.acting: set[asyncio.Task[None]] = set()
        self.think_s = think_s

    async def sit(self, name: str, seat: str) -> None:
        """The join link's page load, then *Take the seat* under ``name``: the seat's token kept."""
        await self.call("reattach", [{}])
        tokens, notice = await self.call("classroom_take_seat", [None, {}, name, seat])
        if not isinstance(tokens, dict) or not tokens:
            raise RuntimeError(f"{name} could not take {seat}'s seat: {notice}")
        self.tokens, self.seat = dict(tokens), seat

    def updated(self, values: list[Any]) -> None:
        sentences = sum(len(line) for line in self.transcript.lines)
        while self.presses and sentences >= self.presses[0][0]:
            self.start(self.press(self.presses.pop(0)[1]))
        prompt = values[self.form["seat-prompt"]] if "seat-prompt" in self.form else None
        if isinstance(prompt, str) and prompt.strip():  # a new request (the form is sent whole when it changes)
            slots = {elem_id: values[index] for elem_id, index in self.form.items()}
            self.start(self.answer(slots))

    def start(self, what: Any) -> None:
        """Act beside the stream (the stream goes on being read meanwhile)."""
        task = asyncio.ensure_future(what)
        self.acting.add(task)
        task.add_done_callback(self.acting.discard)

    async def press(self, control: str) -> None:
        inputs = self.fns[control]["inputs"]
        try:
            said = await self.act(control, [None, self.tokens, *[9] * (len(inputs) - 2)])  # urgency: high
        except RuntimeError as error:
            say(f"{self.seat}: {control} had no outcome: {error}")
            said = ["bad"]
        notice = " ".join(str(part) for part in said if isinstance(part, str))
        self.pressed.append((control, "bad" not in notice))

    async def answer(self, slots: dict[str, Any]) -> None:
        await asyncio.sleep(self.think_s)
        data = [slot_value(elem_id, slots.get(elem_id)) for elem_id in self.words]
        try:
            said = await self.act("submit_words", [None, self.tokens, *data])
        except RuntimeError as error:
            say(f"{self.seat}: the answer had no outcome: {error}")
            said = []
        self.answers.append(any(isinstance(part, str) and 'class="ok"' in part for part in said))


# -- one classroom ----------------------------------------------------------------------------------------


def start_values(config: dict[str, Any], budget: int, pace: float) -> list[Any]:
    """The Start button's inputs: the set-up's defaults, the scripted demo, ``budget`` and ``pace``."""
    components = {c["id"]: c for c in config["components"]}
    start = next(d for d in config["dependencies"] if d.get("api_name") == "on_start")
    overrides = {"budget-setting": budget, "pace": pace}
    values: list[Any] = []
    for input_id in start["inputs"]:
        props = components[input_id].get("props", {})
        kind = components[input_id].get("type")
        if kind in ("state", "browserstate"):
            values.append(None if kind == "state" else {})
            continue
        values.append(overrides.get(props.get("elem_id"), props.get("value")))
    return values


def heartbeat_fn(config: dict[str, Any]) -> int:
    """The page's heartbeat: the timer's tick that redraws the classroom panel (its outputs hold the join info)."""
    ids = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    for fn in config["dependencies"]:
        if any(event == "tick" for _, event in fn.get("targets", [])) and "join-info" in [
            ids.get(o) for o in fn["outputs"]
        ]:
            return int(fn["id"])
    raise RuntimeError("the page has no classroom heartbeat")


JOIN_CODE = re.compile(r'id="join-code">([^<]+)<')
ROSTER_ROW = re.compile(r'<tr data-seat="([^"]+)"><td>.*?</td><td>(\w+)</td>')


def host_view(config: dict[str, Any], values: Sequence[Any]) -> tuple[str, list[str]]:
    """From the host's heartbeat: the join code ("" when not shown) and the seats a model holds (closed to people),
    which the host may open."""
    ids = {c["id"]: c.get("props", {}).get("elem_id") for c in config["components"]}
    fn = next(f for f in config["dependencies"] if f["id"] == heartbeat_fn(config))
    drawn = {ids.get(o): v for o, v in zip(fn["outputs"], values, strict=False) if isinstance(v, str)}
    code = JOIN_CODE.search(drawn.get("join-info", ""))
    seats = [html.unescape(agent) for agent, state in ROSTER_ROW.findall(drawn.get("roster", "")) if state == "closed"]
    return (html.unescape(code.group(1)).strip() if code else ""), seats


def seat_presses(index: int, first: int = 4, then: int = 12) -> list[tuple[int, str]]:
    """When seated person ``index`` presses what (after how many sentences): an interrupt and a raised hand, in
    turn by seat, so that two people do not press the same thing at the same moment."""
    controls = ["interrupt", "raise_hand"] if index % 2 == 0 else ["raise_hand", "interrupt"]
    return [(first + 2 * index, controls[0]), (then + 2 * index, controls[1])]


@dataclass
class Outcome:
    viewers: int
    first: tuple[float, float, float]
    last: tuple[float, float, float]
    arrived: int
    expected: int
    sentences: int
    cpu: float
    wall: float
    updates: int
    client_cpu: float = 0.0  # this bench's own CPU over the debate (its clients must not be what is slow)
    debates: int = 1
    seated: int = 0  # per debate
    worst: tuple[float, float] = (math.nan, math.nan)  # the worst debate's p95, first and last quarter
    presses: int = 0
    accepted: int = 0
    asked: int = 0  # the requests the seated people answered
    sent: int = 0  # of which the debate took


@dataclass
class Room:
    """One classroom debate as the bench holds it: its id, the host's tokens and page, and every page on it."""

    debate_id: str
    tokens: dict[str, str]
    teacher: Viewer
    pages: list[Viewer]
    seated: list[Seated]


async def open_room(http: Any, url: str, config: dict[str, Any], viewers: int, seated: int, budget: int,
                    pace: float, name: str = "") -> Room:  # fmt: skip
    """A new debate, paused: its teacher's page, ``viewers - 1`` more on its live address and ``seated`` people
    who joined through the join code and took the seats the host opened."""
    teacher = Viewer(http, url, config)
    outputs = await teacher.call("on_start", start_values(config, budget, pace))
    tokens = next(v for v in outputs if isinstance(v, dict) and v and "__type__" not in v)
    debate_id = next(iter(tokens))
    teacher.tokens = dict(tokens)
    say(f"{name}debate {debate_id[:8]} started")
    await teacher.call("pause", [None, tokens])
    people: list[Seated] = []
    if seated:
        code, closed = host_view(config, await teacher.tick())
        if not code:
            raise RuntimeError("the host's page shows no join code")
        if len(closed) < seated:
            raise SystemExit(f"--seated {seated}: the debate has {len(closed)} seats to open ({', '.join(closed)})")
        for seat in closed[:seated]:
            said = await teacher.call("classroom_open_seat", [None, tokens, seat, "model"])
            if "bad" in " ".join(str(part) for part in said):
                raise RuntimeError(f"the host could not open {seat}'s seat: {said}")
        people = [
            Seated(http, url, config, query=f"join={code}", presses=seat_presses(index)) for index in range(seated)
        ]
        await asyncio.gather(*(person.sit(f"Student {index + 1}", seat)
                               for index, (person, seat) in enumerate(zip(people, closed, strict=False))))  # fmt: skip
        say(f"{name}{seated} people joined with code {code} and took {', '.join(p.seat for p in people)}")
    pupils = [Viewer(http, url, config, live=debate_id) for _ in range(viewers - 1)]
    await asyncio.gather(*(pupil.open() for pupil in pupils))
    say(f"{name}{len(pupils)} pages opened its live address")
    return Room(debate_id, dict(tokens), teacher, [teacher, *pupils, *people], people)


async def resume(http: Any, url: str, config: dict[str, Any], room: Room) -> None:
    """The teacher resumes the debate from a second tab (same browser: it holds the token)."""
    control = Client(http, url, config, live=room.debate_id)
    await control.call("reattach", [room.tokens])
    await control.call("resume", [None, room.tokens])


def pooled(
    disclosed: Sequence[tuple[str, float]], pages: Sequence[Viewer]
) -> tuple[list[float], list[float], int, int]:
    """Every page's latencies (ms) over the first and the last quarter, the (sentence, page) pairs that arrived and
    those expected (disclosed after the page's first update)."""
    head, tail = quarters(len(disclosed))
    first: list[float] = []
    last: list[float] = []
    arrived = expected = 0
    for page in pages:
        found = latencies(disclosed, page.transcript.first, page.since)
        for index, seconds in enumerate(found):
            if disclosed[index][1] < page.since:
                continue
            expected += 1
            if seconds is None:
                continue
            arrived += 1
            if index in head:
                first.append(seconds * 1000)
            if index in tail:
                last.append(seconds * 1000)
    return first, last, arrived, expected


async def classroom(url: str, pid: int | None, db: Path, viewers: int, budget: int, pace: float, *,
                    seated: int = 0, debates: int = 1, heartbeat: bool = True) -> Outcome:  # fmt: skip
    """``debates`` classrooms, each of ``viewers`` pages and ``seated`` people, on new debates of the app at
    ``url`` (its process ``pid``, for its CPU; None: not measured) whose store is ``db``; every page beats
    its heartbeat each second (``heartbeat``), as the page's timer does."""
    import httpx
    import psutil

    from debate_core.events import UnitDisclosed
    from storage import Store

    clients = debates * (viewers + seated)
    limits = httpx.Limits(max_connections=3 * clients + 10, max_keepalive_connections=3 * clients + 10)
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0), limits=limits) as http:
        config = (await http.get(f"{url}config")).json()
        rooms = []
        for k in range(debates):  # one after the other: each start loads the model and pauses its debate
            label = f"[{k + 1}/{debates}] " if debates > 1 else ""
            rooms.append(await open_room(http, url, config, viewers, seated, budget, pace, label))
        pages = [page for room in rooms for page in room.pages]
        ended = asyncio.Event()
        beating = [asyncio.create_task(page.beat(ended)) for page in pages if heartbeat or isinstance(page, Seated)]
        watching = [asyncio.create_task(page.watch()) for page in pages]
        while any(page.since == float("inf") for page in pages):
            await asyncio.sleep(0.1)
        say("every page has its first update")
        server = psutil.Process(pid) if pid is not None else None
        cpu_before, started = sum(server.cpu_times()[:2]) if server else math.nan, time.monotonic()
        client_before = time.process_time()
        await asyncio.gather(*(resume(http, url, config, room) for room in rooms))  # together: debates at once
        say("resumed")
        await asyncio.gather(*watching)
        wall = time.monotonic() - started
        cpu = sum(server.cpu_times()[:2]) - cpu_before if server else math.nan
        client_cpu = time.process_time() - client_before
        ended.set()
        people = [person for room in rooms for person in room.seated]
        await asyncio.gather(*beating, *(task for person in people for task in list(person.acting)))
    store = Store(db)
    disclosed = {
        room.debate_id: [(e.text, e.at) for e in store.events(room.debate_id) if isinstance(e, UnitDisclosed)]
        for room in rooms
    }
    store.close()
    first: list[float] = []
    last: list[float] = []
    arrived = expected = 0
    worst = [0.0, 0.0]
    for room in rooms:
        head, tail, got, wanted = pooled(disclosed[room.debate_id], room.pages)
        first += head
        last += tail
        arrived, expected = arrived + got, expected + wanted
        worst = [max(worst[0], percentiles(head)[1]), max(worst[1], percentiles(tail)[1])]
    return Outcome(
        viewers,
        percentiles(first),
        percentiles(last),
        arrived,
        expected,
        sum(len(d) for d in disclosed.values()),
        cpu,
        wall,
        sum(p.updates for p in pages),
        client_cpu,
        debates,
        seated,
        (worst[0], worst[1]),
        sum(len(p.pressed) for p in people),
        sum(accepted for p in people for _, accepted in p.pressed),
        sum(len(p.answers) for p in people),
        sum(p.answers.count(True) for p in people),
    )


def say(text: str) -> None:
    """Progress, on stderr (the numbers go to stdout)."""
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def report(outcome: Outcome) -> str:
    def ms(values: tuple[float, float, float]) -> str:
        return "p50 {:.0f} / p95 {:.0f} / max {:.0f} ms".format(*values)

    who = f"{outcome.viewers:>3} viewers" + (f" + {outcome.seated} seated" if outcome.seated else "")
    if outcome.debates > 1:
        who = f"{outcome.debates} debates × {who.strip()}"
    worst = (
        " · the worst debate's p95 {:.0f} / {:.0f} ms (first / last quarter)".format(*outcome.worst)
        if outcome.debates > 1
        else ""
    )
    seats = (
        f" · presses accepted {outcome.accepted}/{outcome.presses} · requests answered {outcome.sent}/{outcome.asked}"
        if outcome.seated
        else ""
    )
    return (
        f"{who} · {outcome.sentences} sentences · first quarter {ms(outcome.first)} · "
        f"last quarter {ms(outcome.last)}{worst} · arrived {outcome.arrived}/{outcome.expected} · "
        f"{outcome.updates} updates{seats} · server CPU {100 * outcome.cpu / max(outcome.wall, 1e-9):.0f} % of a core "
        f"({1000 * outcome.cpu / max(outcome.updates, 1):.1f} ms per page update, heartbeats included) "
        f"over {outcome.wall:.0f} s (the clients' {100 * outcome.client_cpu / max(outcome.wall, 1e-9):.0f} %) · "
        f"load average {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout whose app.py to run")
    parser.add_argument("--viewers", default="1,10,40", help="numbers of viewers per debate, comma-separated")
    parser.add_argument("--seated", type=int, default=0, help="people per debate who join by its code and take a seat")
    parser.add_argument("--debates", type=int, default=1, help="classroom debates at once, each with its own pages")
    parser.add_argument("--no-heartbeat", action="store_true", help="viewers skip the page's 1 s heartbeat")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--pace", type=float, default=0.6, help="seconds per sentence")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds one classroom may take")
    args = parser.parse_args()
    counts = [int(n) for n in args.viewers.split(",") if n.strip()]
    if not counts or min(counts) < 1:
        raise SystemExit("--viewers: one or more numbers of at least 1, e.g. 1,10,40")
    if args.seated < 0 or args.debates < 1:
        raise SystemExit("--seated: 0 or more; --debates: 1 or more")
    sys.path.insert(0, str(ROOT))
    print(
        f"{args.app.resolve()} · budget {args.budget} · pace {args.pace} s · {os.cpu_count()} CPUs · "
        f"{args.debates} debate(s) · {args.seated} seated per debate · "
        f"heartbeat: {'the seated only' if args.no_heartbeat else 'every page'}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "classroom.sqlite3"
        port = free_port()
        process = start_app(args.app.resolve(), db, port)
        try:
            for count in counts:
                run = classroom(
                    f"http://127.0.0.1:{port}/", process.pid, db, count, args.budget, args.pace,
                    seated=args.seated, debates=args.debates, heartbeat=not args.no_heartbeat,
                )  # fmt: skip
                try:
                    outcome = asyncio.run(asyncio.wait_for(run, args.timeout))
                except TimeoutError:
                    print(f"{count:>3} viewers · did not finish within {args.timeout:.0f} s (the last stage is above)")
                    continue
                print(report(outcome), flush=True)
        finally:
            process.terminate()
            process.wait(10)


if __name__ == "__main__":
    main()
