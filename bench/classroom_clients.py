"""The headless pages of bench/classroom.py: Gradio clients that speak to the web app as its pages do.

Each client is one page's session over ``httpx`` (no browser): ``Client`` joins Gradio's queue for an event
(``?live=ID`` or ``?join=CODE`` in the page's address), reads the session's event stream (SSE) and beats the
classroom's heartbeat (the page's ``gr.Timer``, ``/run/predict``) with the tokens that page holds. ``Viewer``
loads a live address, follows the live stream (``watch``), applies Gradio's diffs and the transcript's deltas
into a ``Transcript`` that notes when each sentence first reached the page, and sends other events while it
watches, reading their outcomes on the same stream as a browser does. ``Seated`` is a person in a seat: takes
the seat the host opened through the join code, presses the seat's controls when ``seat_presses`` says and
answers what the debate asks the seat (``slot_value``: the first choice, the lowest number, ``SAID``).
Also here, what a page reads from the app's config and sends: the Start button's inputs (``start_values``),
the heartbeat's function (``heartbeat_fn``) and, from the host's heartbeat, the join code and the seats a
model holds (``host_view``); and ``say``, the bench's progress line on stderr.

It does not start the app (bench/app_process.py), decide how many pages open which debate and when (the run,
bench/classroom.py), nor turn arrival times into latencies or print them (bench/classroom_report.py). Its pure
helpers are checked by tests/test_classroom_bench.py, the clients on real connections by
tests/browser/test_classroom_bench.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

SENTENCE = re.compile(r'<span class="sentence">(.*?)</span>', re.S)
API = "gradio_api"
UPDATES = ("process_generating", "process_completed")  # the messages that carry a stream's outputs


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


# -- what a page reads from the app's config and sends ----------------------------------------------------


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


def say(text: str) -> None:
    """Progress, on stderr (the numbers go to stdout)."""
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)
