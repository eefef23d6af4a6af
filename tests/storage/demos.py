"""The scripted demo of every registered protocol and variant, as event streams (made once per process).

``demo_streams()`` runs each built-in protocol's own scripted demo (``Protocol.demo_responder``) for
every variant, with what the variant needs to start: a fine-tuned listener's seat for HandRaiser's
``learned`` (the demo script stands in for it), a person in the moderator's seat for ``human`` (who
presses Interrupt once and votes), a trained gate for SID's ``sid_c`` (a one-layer classifier written
to a scratch file) and one solver for Parliament's and SID's ``cot``. The tamperings of ``test_tampering`` start
from these streams, and every one of them must import untouched.
"""

from __future__ import annotations

import functools
import json
import tempfile
import threading
from pathlib import Path
from typing import Any

from debate_core import AgentSpec, Debate, DebateConfig, HumanChannel, HumanSeat, ScriptedBackend, SeatKind
from debate_core.backends.router import BackendRouter
from debate_core.events import Event, UnitDisclosed
from debate_core.protocols.registry import available
from tests.conftest import HANG_GUARD_S, QUESTION, SentenceSplitter

BUILT_IN = ("ace", "handraiser", "kimura", "parliament", "sid")
NAMES = ("Ann", "Ben", "Cy")


def _agents(protocol: str, variant: str) -> tuple[AgentSpec, ...]:
    if variant == "cot" and protocol in ("parliament", "sid"):  # one solver, once
        return (AgentSpec(name="Ann"),)
    if protocol == "parliament":
        return tuple(AgentSpec(name=n) for n in NAMES[:2])
    if protocol == "handraiser" and variant == "human":
        return (AgentSpec(name="Ann"), AgentSpec(name="Ben"), AgentSpec(name="Cy", seat=SeatKind.HUMAN))
    return tuple(AgentSpec(name=n) for n in NAMES)


def _gate_file(folder: Path) -> str:
    """A trained gate (one layer: P(right) falls with the NLL maximum), as ``train-gate`` saves one."""
    from protocols.sid import gate

    data = {
        "features": list(gate.CODE_FEATURES),
        "mean": [0, 0, 0, 0],
        "scale": [1, 1, 1, 1],
        "layers": [{"weights": [[-2.0], [0.0], [0.0], [0.0]], "biases": [3.0]}],
    }
    path = folder / "gate.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _params(protocol: str, variant: str, folder: Path) -> dict[str, Any]:
    if protocol == "handraiser" and variant == "learned":
        return {"listener": "demo-listener"}
    if protocol == "sid" and variant == "sid_c":
        return {"classifier": _gate_file(folder)}
    return {}


def _run(config: DebateConfig) -> list[Event]:
    cls = available()[config.protocol]
    responder = cls.demo_responder(config)
    assert responder is not None, config.protocol
    backend = ScriptedBackend(responder, model_id="scripted-demo")
    if config.protocol == "handraiser" and config.variant == "learned":
        listener = ScriptedBackend(cls.demo_responder(config), model_id="demo-listener")  # type: ignore[arg-type]
        router = BackendRouter(backend, by_role={"moderator": listener})
        return Debate(config, router, segmenter=SentenceSplitter(), debate_id="demo-handraiser-learned").run()
    debate_id = f"demo-{config.protocol}-{config.variant}"
    if config.protocol == "handraiser" and config.variant == "human":
        return _with_a_person(config, backend, debate_id)
    return Debate(config, backend, segmenter=SentenceSplitter(), debate_id=debate_id).run()


def _with_a_person(config: DebateConfig, backend: ScriptedBackend, debate_id: str) -> list[Event]:
    """HandRaiser with a person as moderator: Interrupt pressed during Ann's second chunk, votes for pro."""
    channel = HumanChannel()
    seat = HumanSeat("Cy", channel, timeout_s=HANG_GUARD_S, live=True)
    debate = Debate(config, backend, seats={"Cy": seat}, segmenter=SentenceSplitter(), debate_id=debate_id)

    def person() -> None:
        while True:
            request = channel.pending(timeout_s=HANG_GUARD_S)
            if request is None:
                return
            channel.submit(request.request_id, {"vote": "pro"})

    helper = threading.Thread(target=person, daemon=True)
    helper.start()
    events: list[Event] = []
    pressed = False
    for event in debate.events():
        events.append(event)
        if not pressed and isinstance(event, UnitDisclosed) and event.index == 1:
            channel.set_stance(intent="interrupt")
            pressed = True
        elif event.type == "interrupted":
            channel.set_stance(intent=None)
    channel.close()
    helper.join(HANG_GUARD_S)
    return events


@functools.cache
def demo_streams() -> dict[str, list[Event]]:
    """``{"protocol/variant": events}`` for every variant of every built-in protocol."""
    streams: dict[str, list[Event]] = {}
    with tempfile.TemporaryDirectory() as root:
        for name in BUILT_IN:
            cls = available()[name]
            for variant in cls.variants:
                config = DebateConfig(
                    question=QUESTION,
                    agents=_agents(name, variant),
                    protocol=name,
                    variant=variant,
                    params=_params(name, variant, Path(root)),
                )
                streams[f"{name}/{variant}"] = _run(config)
    return streams
