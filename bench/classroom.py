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

This module is the run: the rooms (each debate's teacher, viewers and
seated people, ``open_room``), resuming them together, following every
stream, reading the disclosures back from the store and pooling each page's
latencies (``pooled``, ``classroom``), and the command line. It does not
start the app (bench/app_process.py, shared with bench/ui_latency.py), speak
Gradio's protocol or read a page (the clients, bench/classroom_clients.py),
nor compute percentiles or write the line (bench/classroom_report.py).

The pure helpers (``Transcript``, ``host_view``, ``slot_value``,
``seat_presses`` in bench/classroom_clients.py; ``latencies``,
``percentiles``, ``quarters``, ``report`` in bench/classroom_report.py;
``pooled`` here) are checked by tests/test_classroom_bench.py; the run on
real connections by tests/browser/test_classroom_bench.py.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the repository's packages before bench/'s modules (bench/storage.py is not storage); bench/ is a package then
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.app_process import free_port, start_app
from bench.classroom_clients import Client, Seated, Viewer, host_view, say, seat_presses, start_values
from bench.classroom_report import Outcome, latencies, percentiles, quarters, report

ROOT = Path(__file__).resolve().parents[1]


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
