"""A classroom on one debate: from each disclosure to every viewer's client, and what the server spends.

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

Prints, for each number of viewers (``--viewers 1,10,40``; the teacher's page
is one of them), the latency from the engine's disclosure (``UnitDisclosed.at``,
wall clock, read back from the store) to the client, as p50/p95/max over the
first and over the last quarter of the debate's sentences, every viewer
pooled; how many (sentence, viewer) pairs arrived; the server's CPU (its
process's user and system time over the debate's wall time, 100 % = one
core) and the machine's load average. A sentence disclosed before a viewer
had its first update is not counted for that viewer.

    python bench/classroom.py --viewers 1,10,40
    python bench/classroom.py --viewers 40 --app /tmp/before   # another checkout

Seated people (``Seated``: a client holding a seat's token, who presses and
types) are for when the classroom's seats reach the page; ``--seated`` is
refused until then. The helpers (``Transcript``, ``percentiles``,
``quarters``) are what tests/browser/test_classroom_bench.py checks.
"""

from __future__ import annotations

import argparse
import asyncio
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

    def __init__(self, http: Any, url: str, config: dict[str, Any], live: str = "") -> None:
        self.http, self.url, self.config, self.live = http, url, config, live
        self.session_hash = uuid.uuid4().hex[:11]
        self.fns = {d["api_name"]: d for d in config["dependencies"] if d.get("api_name")}

    async def join(self, api_name: str, data: list[Any]) -> str:
        body = {
            "data": data,
            "fn_index": self.fns[api_name]["id"],
            "session_hash": self.session_hash,
            "event_data": None,
            "trigger_id": None,
        }
        query = f"?live={self.live}" if self.live else ""
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

    async def open(self) -> None:
        """The page load of ``?live=ID``: the page re-attaches to the debate (watching: it holds no token)."""
        await self.call("reattach", [{}])

    async def watch(self) -> None:
        """Follow the live stream until the debate has ended."""
        from gradio_client.utils import apply_diff

        event_id = await self.join("watch", [None])
        values: list[Any] | None = None
        async for at, message in self.messages():
            if message.get("event_id") != event_id or message.get("msg") not in (
                "process_generating",
                "process_completed",
            ):
                continue
            data = (message.get("output") or {}).get("data")
            if data is None:
                break
            if values is None or message["msg"] == "process_completed":
                values = list(data)
            else:  # Gradio sends each output as a diff from the last: only the transcript's is followed here
                values[self.delta_at] = apply_diff(values[self.delta_at], data[self.delta_at])
            self.since = min(self.since, at)
            self.updates += 1
            self.transcript.apply(values[self.delta_at], at)
            if message["msg"] == "process_completed":
                break


class Seated(Viewer):
    """A person in a seat (their token in hand, pressing and typing): for when the classroom's seats reach the
    page (its seat tokens and endpoints); until then the bench refuses ``--seated``."""


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


async def classroom(url: str, pid: int | None, db: Path, viewers: int, budget: int, pace: float) -> Outcome:
    """One classroom of ``viewers`` on a new debate of the app at ``url`` (its process ``pid``, for its CPU;
    None: not measured) whose store is ``db``."""
    import httpx
    import psutil

    from debate_core.events import UnitDisclosed
    from storage import Store

    limits = httpx.Limits(max_connections=2 * viewers + 10, max_keepalive_connections=2 * viewers + 10)
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0), limits=limits) as http:
        config = (await http.get(f"{url}config")).json()
        teacher = Viewer(http, url, config)
        outputs = await teacher.call("on_start", start_values(config, budget, pace))
        tokens = next(v for v in outputs if isinstance(v, dict) and v and "__type__" not in v)
        debate_id = next(iter(tokens))
        say(f"debate {debate_id[:8]} started")
        await teacher.call("pause", [None, tokens])
        pupils = [Viewer(http, url, config, live=debate_id) for _ in range(viewers - 1)]
        await asyncio.gather(*(pupil.open() for pupil in pupils))
        say(f"{len(pupils)} pages opened its live address")
        pages = [teacher, *pupils]
        watching = [asyncio.create_task(page.watch()) for page in pages]
        while any(page.since == float("inf") for page in pages):
            await asyncio.sleep(0.1)
        say("every page has its first update")
        server = psutil.Process(pid) if pid is not None else None
        cpu_before, started = sum(server.cpu_times()[:2]) if server else math.nan, time.monotonic()
        client_before = time.process_time()
        control = Client(http, url, config, live=debate_id)
        await control.call("reattach", [tokens])  # the teacher's second tab (same browser: holds the token)
        await control.call("resume", [None, tokens])
        say("resumed")
        await asyncio.gather(*watching)
        wall = time.monotonic() - started
        cpu = sum(server.cpu_times()[:2]) - cpu_before if server else math.nan
        client_cpu = time.process_time() - client_before
    store = Store(db)
    disclosed = [(e.text, e.at) for e in store.events(debate_id) if isinstance(e, UnitDisclosed)]
    store.close()
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
    return Outcome(
        viewers,
        percentiles(first),
        percentiles(last),
        arrived,
        expected,
        len(disclosed),
        cpu,
        wall,
        sum(p.updates for p in pages),
        client_cpu,
    )


def say(text: str) -> None:
    """Progress, on stderr (the numbers go to stdout)."""
    print(f"{time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


def report(outcome: Outcome) -> str:
    def ms(values: tuple[float, float, float]) -> str:
        return "p50 {:.0f} / p95 {:.0f} / max {:.0f} ms".format(*values)

    return (
        f"{outcome.viewers:>3} viewers · {outcome.sentences} sentences · first quarter {ms(outcome.first)} · "
        f"last quarter {ms(outcome.last)} · arrived {outcome.arrived}/{outcome.expected} · "
        f"{outcome.updates} updates · server CPU {100 * outcome.cpu / max(outcome.wall, 1e-9):.0f} % of a core "
        f"over {outcome.wall:.0f} s (the clients' {100 * outcome.client_cpu / max(outcome.wall, 1e-9):.0f} %) · "
        f"load average {os.getloadavg()[0]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, default=ROOT, help="the checkout whose app.py to run")
    parser.add_argument("--viewers", default="1,10,40", help="numbers of viewers, comma-separated")
    parser.add_argument("--seated", type=int, default=0, help="seated people (not yet: needs the classroom's seats)")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--pace", type=float, default=0.6, help="seconds per sentence")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds one classroom may take")
    args = parser.parse_args()
    if args.seated:
        raise SystemExit("--seated: the page has no classroom seats yet (they come with the classroom wiring)")
    counts = [int(n) for n in args.viewers.split(",") if n.strip()]
    if not counts or min(counts) < 1:
        raise SystemExit("--viewers: one or more numbers of at least 1, e.g. 1,10,40")
    sys.path.insert(0, str(ROOT))
    print(f"{args.app.resolve()} · budget {args.budget} · pace {args.pace} s · {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "classroom.sqlite3"
        port = free_port()
        process = start_app(args.app.resolve(), db, port)
        try:
            for count in counts:
                run = classroom(f"http://127.0.0.1:{port}/", process.pid, db, count, args.budget, args.pace)
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
