"""The kernel's listening moves: listener decisions under a policy, and interventions.

What it does: ``ListenerMoves`` is the part of ``Table`` that records what
listeners do while someone speaks: ``decide`` asks a policy for each
listener's yes/no after the last disclosed unit and records one
``ListenerDecision`` each (decisions the table was told to force, for a fork,
override the policy at their points); ``intervene`` records a point of information or a
question put to a speaker.

What it does not do: act on a decision (the protocol decides what an
interruption leads to, and calls ``cut``, ``say``, ``resume``...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from debate_core.events.acts import Intervention, ListenerDecision
from debate_core.events.records import Source
from debate_core.kernel.floor import Floor
from debate_core.kernel.forms import FormResult
from debate_core.kernel.policies import ForcedPolicy, InterruptPolicy
from debate_core.kernel.state import TableState


class ListenerMoves:
    """Listening moves of the table (see the module docstring)."""

    forced: dict[tuple[str, int, int], bool]
    forced_left: set[tuple[str, int, int]]

    def emit(self, cls: Any, **fields: Any) -> Any:  # provided by Table
        raise NotImplementedError

    def count(self, statistic: str, by: int = 1) -> None:  # provided by Table
        raise NotImplementedError

    def decide(
        self, listeners: Sequence[str], floor: Floor, policy: InterruptPolicy, view: Callable[[str], Any]
    ) -> dict[str, ListenerDecision]:
        """Each listener's decision after the floor's last disclosed unit, under ``policy``."""
        asked = policy  # what decides where nothing is forced, and names those decisions
        if self.forced:
            policy = ForcedPolicy(self.forced, otherwise=policy)
        decided = policy.decide(cast(TableState, self), listeners, floor, view)
        self.forced_left -= {(name, floor.utterance_id, floor.disclosed - 1) for name in listeners}
        events = {}
        for name in listeners:
            item = decided[name]
            reply = item.reply
            self.count("decisions")
            events[name] = self.emit(
                ListenerDecision,
                listener=name,
                speaker=floor.speaker,
                utterance_id=floor.utterance_id,
                unit_index=floor.disclosed - 1,
                interrupt=item.decision.interrupt,
                policy=item.policy or asked.name,
                p_interrupt=item.p_interrupt,
                text=item.decision.text,
                **self._reply_fields(reply),
            )
        return events

    def intervene(
        self,
        author: str,
        target: str,
        kind: str,
        text: str,
        *,
        blocking: bool,
        floor: Floor | None = None,
        reply: FormResult[Any] | None = None,
    ) -> Intervention:
        """A point of information (blocking) or a question (not) put to ``target``."""
        self.count("interventions")
        return self.emit(
            Intervention,
            author=author,
            target=target,
            kind=kind,
            text=text,
            blocking=blocking,
            utterance_id=floor.utterance_id if floor else None,
            unit_index=floor.disclosed - 1 if floor else None,
            **self._reply_fields(reply),
        )

    @staticmethod
    def _reply_fields(reply: FormResult[Any] | None) -> dict[str, Any]:
        return {"source": Source.POLICY} if reply is None else reply.record()
